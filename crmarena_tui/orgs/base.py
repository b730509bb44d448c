"""The Org protocol and the result every backend returns.

A `QueryResult` is shaped like Salesforce's REST responses: each record carries
`attributes: {"type": ..., "url": ...}`, parent records nest (`{"Account": {"Name": "Acme"}}`),
child subqueries nest as `{"totalSize", "done", "records"}`. An error is a string `CODE: message`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal, Protocol, runtime_checkable

from crmarena_tui.orgs.schema import Schema

API_VERSION = "v62.0"
OBSERVATION_PREFIX = "Salesforce instance output: "


# what Salesforce puts before the explanation of an error it places in the query
_PLACEMENT = re.compile(r"^([^:\n]+): \n[^\n]*\n *\^\nERROR at Row:(\d+):Column:(\d+)\n")


def error_summary(error: str) -> str:
    """`CODE: explanation`: an error without the query line, caret and `ERROR at Row:r:Column:c`
    that Salesforce's message of a placed error begins with (for one-line displays)."""
    return _PLACEMENT.sub(r"\1: ", error, count=1)


@dataclass(slots=True)
class QueryResult:
    records: list[dict[str, Any]] = field(default_factory=list)
    total_size: int = 0
    done: bool = True
    # "CODE: message", or None on success; the message of an error Salesforce places in the query
    # begins on a new line with that line, a caret and `ERROR at Row:r:Column:c` (`error_summary`)
    error: str | None = None
    error_offset: int | None = None  # character offset into the query text, for the UI marker
    kind: Literal["query", "search"] = "query"
    count_only: bool = False  # SELECT COUNT() ...: the count is total_size, no records
    elapsed_ms: float = 0.0
    # one line when the query filters, groups or sorts on a field holding values an import left
    # as stored (`orgs/unconverted.py`); the Episode keeps it on a session's first such query
    warning: str | None = None
    # what the participant who ran it was shown, as the Episode logged it (its `observation`
    # event, or for a failed query the error): built once there, never again by the caller
    shown: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def error_code(self) -> str | None:
        return self.error.split(":", 1)[0] if self.error else None

    @property
    def error_summary(self) -> str | None:
        return error_summary(self.error) if self.error else None

    def to_response(self) -> dict[str, Any]:
        """The JSON body Salesforce's REST API would answer with."""
        if self.error:
            code, _, message = self.error.partition(": ")
            return {"errorCode": code, "message": message}
        if self.kind == "search":
            return {"searchRecords": self.records}
        return {"totalSize": self.total_size, "done": self.done, "records": self.records}

    def observation(self) -> str:
        """What an agent sees, following the benchmark's shaping (docs/ARCHITECTURE.md, "Benchmark rules the code reproduces").

        Records lose their `attributes` (at every level), keys that are null in every record are
        dropped, an empty result is `[]`, an error is `CODE: message`. `SELECT COUNT()` shows the
        count (upstream showed `[]` because its connector read only `records`).
        """
        if self.error:
            return self.error
        if self.count_only:
            return json.dumps([{"count": self.total_size}])
        return json.dumps(shape_records(self.records), ensure_ascii=False, default=str)


def strip_attributes(value: Any) -> Any:
    if isinstance(value, dict):
        if "records" in value and "totalSize" in value:  # a child subquery
            return [strip_attributes(r) for r in value["records"]]
        return {k: strip_attributes(v) for k, v in value.items() if k != "attributes"}
    if isinstance(value, list):
        return [strip_attributes(v) for v in value]
    return value


def shape_records(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Remove `attributes` everywhere and drop top-level keys that are null in every record."""
    plain = [strip_attributes(r) for r in records]
    if not plain:
        return []
    keys: list[str] = []
    for r in plain:
        for k in r:
            if k not in keys:
                keys.append(k)
    keep = [k for k in keys if any(r.get(k) is not None for r in plain)]
    return [{k: r.get(k) for k in keep if k in r} for r in plain]


def is_sosl(text: str) -> bool:
    return text.lstrip().lstrip("`").lstrip().upper().startswith("FIND")


def unwrap_code_fence(text: str) -> str:
    """`\u0060\u0060\u0060sql\\nSELECT ...\\n\u0060\u0060\u0060` -> `SELECT ...` (other text untouched)."""
    stripped = text.strip()
    if stripped.startswith("```") and stripped.endswith("```") and len(stripped) >= 6:
        inner = stripped[3:-3]
        first_nl = inner.find("\n")
        if first_nl != -1 and inner[:first_nl].strip().isalpha():
            inner = inner[first_nl + 1 :]
        return inner.strip()
    return stripped


@runtime_checkable
class Org(Protocol):
    """What every org backend offers. The app and the agents cannot tell backends apart."""

    kind: str  # "local", "upstream" (an imported upstream snapshot) or "salesforce"
    ref: str  # a path, or "salesforce:b2b"
    org_type: str  # "b2b", "b2c" or "original"

    def query(self, soql: str, *, today: date | None = None) -> QueryResult:
        """Run SOQL; `today` (default: the org's own date) is what relative date literals
        (`TODAY`, `LAST_N_DAYS:7`, ...) count from. It travels with each call: an org object is
        shared by every session open on it, each on its own task's date."""
        ...

    def search(self, sosl: str, *, today: date | None = None) -> QueryResult: ...

    def describe(self) -> Schema: ...

    def get(self, object_name: str, record_id: str) -> dict[str, Any] | None: ...

    def related(self, object_name: str, record_id: str) -> dict[str, list[dict[str, Any]]]: ...

    def close(self) -> None: ...


Kind = Literal["query", "search"]


def route(text: str, kind: Kind | None = None) -> tuple[Kind, str]:
    """Where a typed statement goes and the statement sent there, decided once per query: a code
    fence unwrapped (a text with none is sent as typed), then, unless the caller names the
    endpoint (`kind`: a tool that says which), SOSL when it starts with FIND, else SOQL. The
    backends take the statement as it is (`send`)."""
    statement = unwrap_code_fence(text)
    if statement == text.strip():
        statement = text  # no fence: the typed text, its positions kept
    if kind is None:
        kind = "search" if is_sosl(statement) else "query"
    return kind, statement


def send(
    org: Org, kind: Kind, statement: str, typed: str, today: date | None = None
) -> QueryResult:
    """Run a routed statement (`route`); an error's offset counts in the `typed` text's
    characters (where the fence's opening line pushed the statement)."""
    if kind == "search":
        result = org.search(statement, today=today)
    else:
        result = org.query(statement, today=today)
    if result.error_offset is not None and statement != typed:
        result.error_offset += max(typed.find(statement), 0)
    return result


def execute(org: Org, text: str, today: date | None = None) -> QueryResult:
    """Run SOQL or SOSL (a text starting with FIND, after unwrapping a code fence: `route`)."""
    kind, statement = route(text)
    return send(org, kind, statement, text, today)
