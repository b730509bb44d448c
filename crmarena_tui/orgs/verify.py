"""`org verify`: run one corpus of queries on two orgs and report every difference.

A difference is one of: an error on one side only, or errors of different codes (messages are not
compared: Salesforce and the local engine word them differently); a different `totalSize`; different
records. Records are compared without their `attributes`, numbers to 9 significant digits, in order
when the query sorts (`ORDER BY`) and as a multiset otherwise (SOSL, unsorted SOQL).
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import date
from typing import Any

from crmarena_tui.orgs.base import Org, QueryResult, execute, strip_attributes
from crmarena_tui.orgs.verify_corpus import CorpusQuery

_ORDERED = re.compile(r"\bORDER\s+BY\b", re.IGNORECASE)


@dataclass(slots=True)
class Difference:
    query: str
    source: str
    what: str  # "error", "totalSize" or "records"
    a: str  # what ORG_A answered (short)
    b: str  # what ORG_B answered (short)


@dataclass(slots=True)
class VerifyReport:
    org_a: str
    org_b: str
    queries: int = 0
    by_source: dict[str, int] = field(default_factory=dict)
    items: list[Difference] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def differences(self) -> int:
        return len(self.items)

    def to_dict(self) -> dict[str, Any]:
        return {
            "org_a": self.org_a,
            "org_b": self.org_b,
            "queries": self.queries,
            "by_source": self.by_source,
            "differences": self.differences,
            "items": [asdict(d) for d in self.items],
            "seconds": round(self.seconds, 2),
        }


def _number(value: Any) -> Any:
    if isinstance(value, float):
        return float(f"{value:.9g}")
    if isinstance(value, dict):
        return {k: _number(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_number(v) for v in value]
    return value


def normalise(records: list[dict[str, Any]]) -> list[str]:
    """Each record as canonical JSON: no attributes, numbers rounded, keys sorted."""
    return [
        json.dumps(_number(strip_attributes(r)), sort_keys=True, ensure_ascii=False, default=str)
        for r in records
    ]


def _short(text: str, width: int = 160) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def compare(query: CorpusQuery, ra: QueryResult, rb: QueryResult) -> Difference | None:
    """The difference between two answers to one query, or None when they agree."""

    def diff(what: str, a: str, b: str) -> Difference:
        return Difference(query.text, query.source, what, _short(a), _short(b))

    if ra.error or rb.error:
        if ra.error_code == rb.error_code:
            return None
        return diff(  # the explanation, without the query line and caret an error may carry
            "error",
            ra.error_summary or f"{ra.total_size} records",
            rb.error_summary or f"{rb.total_size} records",
        )
    if ra.total_size != rb.total_size:
        return diff("totalSize", str(ra.total_size), str(rb.total_size))
    if ra.count_only and rb.count_only:
        return None
    a, b = normalise(ra.records), normalise(rb.records)
    ordered = ra.kind == "query" and bool(_ORDERED.search(query.text))
    if (a == b) if ordered else (Counter(a) == Counter(b)):
        return None
    if ordered and Counter(a) == Counter(b):
        return diff("records", "the same records in another order", "")
    only_a = list((Counter(a) - Counter(b)).elements())
    only_b = list((Counter(b) - Counter(a)).elements())
    shown_a, shown_b = _example(only_a, only_b)
    return diff(
        "records",
        f"{len(only_a)} only here, e.g. {shown_a}",
        f"{len(only_b)} only here, e.g. {shown_b}",
    )


def _example(only_a: list[str], only_b: list[str]) -> tuple[str, str]:
    """One record of each side; when both have a record with the same Id, the fields that differ."""
    if not only_a or not only_b:
        return (only_a[0] if only_a else "-"), (only_b[0] if only_b else "-")
    first = json.loads(only_a[0])
    twin = next(
        (json.loads(r) for r in only_b if "Id" in first and json.loads(r).get("Id") == first["Id"]),
        None,
    )
    if twin is None:
        return only_a[0], only_b[0]
    keys = sorted(k for k in set(first) | set(twin) if first.get(k) != twin.get(k))
    label = f"Id {first['Id']}: "
    return (
        label + json.dumps({k: first.get(k) for k in keys}, ensure_ascii=False, default=str),
        label + json.dumps({k: twin.get(k) for k in keys}, ensure_ascii=False, default=str),
    )


def _run(org: Org, text: str, today: date) -> QueryResult:
    return execute(org, text, today)  # the day travels with the call, never set on the org


def verify(
    org_a: Org,
    org_b: Org,
    corpus: list[CorpusQuery],
    *,
    today: date,
    progress: Callable[[int, int], None] | None = None,
) -> VerifyReport:
    """Run every query of `corpus` on both orgs (each on its own day, else `today`)."""
    started = time.perf_counter()
    report = VerifyReport(org_a.ref, org_b.ref, queries=len(corpus))
    report.by_source = dict(Counter(q.source for q in corpus))
    for n, query in enumerate(corpus, start=1):
        day = date.fromisoformat(query.today) if query.today else today
        found = compare(query, _run(org_a, query.text, day), _run(org_b, query.text, day))
        if found is not None:
            report.items.append(found)
        if progress is not None:
            progress(n, len(corpus))
    report.seconds = time.perf_counter() - started
    return report
