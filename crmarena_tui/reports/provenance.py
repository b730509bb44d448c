"""Where each configuration's figures come from (the report's `provenance` section): per
configuration and protocol, its graded attempts counted by org clock, schema source, prompt
source and judge (model, temperature, instructions version), and which of those facts its
sessions mix (`storage/provenance.py` says what each value means).

A configuration whose sessions mix values of a fact gets one warning line: its figures then
average sessions that did not meet the same org, prompt or judge (issue 34). A session stored
before a fact was recorded counts as `unknown` for it.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from crmarena_tui.reports.report_sql import PROVENANCE_ROW, provenance_rows
from crmarena_tui.storage import provenance as facts_

if TYPE_CHECKING:
    from rich.console import RenderableType

    from crmarena_tui.reports.report_groups import Group
    from crmarena_tui.storage.store import Store

FACTS = (
    "org_clock",
    "schema_source",
    "prompt_source",
    "judge",
    "judge_model",
    "judge_temperature",
    "judge_instructions",
)
# the facts a warning names (the judge's parts are named through `judge`), as a person reads them
WARNED = {
    "org_clock": "org clocks",
    "schema_source": "schema sources",
    "prompt_source": "prompt sources",
    "judge": "judges",
}
Counted = tuple[tuple[str, str], dict[str, str | None], int]


def facts(settings: dict[str, Any], grade: dict[str, Any] | None) -> dict[str, str | None]:
    """One session's facts as the report names them, from its settings and its latest grade's
    `judge_model`, `extraction`, `imported` and `metrics` (None: no grade); a fact None is not
    applicable (no judge was needed)."""
    grade = grade or {}
    metrics = grade.get("metrics") or {}
    temperature, instructions = metrics.get("judge_temperature"), metrics.get("judge_instructions")
    judge = facts_.judge_of(
        grade.get("judge_model"), grade.get("extraction"), grade.get("imported")
    )
    if judge == facts_.OFFLINE and metrics.get("no_answer"):
        judge = None  # an answer that gives none is read without the judge under workbench
    judged = judge is not None and judge != facts_.OFFLINE
    return {
        "org_clock": facts_.clock_text(settings.get("org_today"), settings.get("org_clock")),
        "schema_source": settings.get("schema_source") or facts_.UNKNOWN,
        "prompt_source": settings.get("prompt_source") or facts_.UNKNOWN,
        "judge": facts_.judge_text(judge, temperature, instructions) or None,
        "judge_model": judge,
        "judge_temperature": facts_.temperature_text(judge, temperature, instructions)
        if judged
        else None,
        "judge_instructions": (instructions or facts_.UNKNOWN) if judged else None,
    }


def rows_of(counted: Iterable[Counted]) -> list[dict[str, Any]]:
    """The section's rows from (configuration and protocol, facts, sessions) triples."""
    counts: dict[tuple[str, str], dict[str, Counter[str]]] = defaultdict(
        lambda: {fact: Counter() for fact in FACTS}
    )
    sessions: Counter[tuple[str, str]] = Counter()
    for key, found, n in counted:
        sessions[key] += n
        for fact, value in found.items():
            if value is not None:
                counts[key][fact][value] += n
    return [
        {
            "configuration": who,
            "protocol": protocol,
            "sessions": sessions[(who, protocol)],
            **{fact: dict(sorted(c.items())) for fact, c in counts[(who, protocol)].items()},
            "mixed": [f for f in WARNED if len(counts[(who, protocol)][f]) > 1],
        }
        for who, protocol in sorted(sessions)
    ]


def provenance_of(store: Store, table: str, groups: list[Group]) -> list[dict[str, Any]]:
    """The section: one row per configuration and protocol of `groups` (the attempts the report
    counts), each fact a {value: sessions} map, and `mixed` naming the facts with more than
    one value."""
    kept = {g.number: g for g in groups}

    def counted() -> Iterator[Counted]:
        for raw in provenance_rows(store, table):
            row = dict(zip(PROVENANCE_ROW, raw, strict=True))
            group = kept.get(row["group"])
            if group is None:
                continue
            org_today, org_clock, schema, prompts = json.loads(row["settings"])
            temperature, instructions, no_answer = json.loads(row["metrics"])
            settings = {
                "org_today": org_today,
                "org_clock": org_clock,
                "schema_source": schema,
                "prompt_source": prompts,
            }
            grade = {
                "judge_model": row["judge_model"],
                "extraction": row["extraction"],
                "imported": bool(row["imported"]),
                "metrics": {
                    "judge_temperature": temperature,
                    "judge_instructions": instructions,
                    "no_answer": no_answer,
                },
            }
            yield (group.who, group.session_protocol), facts(settings, grade), row["n"]

    return rows_of(counted())


def name_judges(report: dict[str, Any]) -> None:
    """Give each overall row the judge its configuration's sessions were graded by (the
    provenance section's, one value or each with its count), for the paper's table; a row
    graded without a judge gets none."""
    judges = {(r["configuration"], r["protocol"]): r["judge"] for r in report.get("provenance", [])}
    for row in report.get("overall") or []:
        judge = judges.get((row.get("participant"), row.get("protocol")))
        if judge:
            row["judge"] = _cell(judge)


def _cell(values: dict[str, int]) -> str:
    if len(values) == 1:
        return next(iter(values))
    return "; ".join(f"{value} ({n})" for value, n in values.items())


def warnings(rows: list[dict[str, Any]]) -> list[str]:
    """One line per configuration whose sessions mix a fact."""
    lines = []
    for row in rows:
        if not row["mixed"]:
            continue
        mixes = "; ".join(
            f"{WARNED[fact]} {', '.join(f'{v} {n}' for v, n in row[fact].items())}"
            for fact in row["mixed"]
        )
        lines.append(
            f"{row['configuration']} ({row['protocol']}) mixes sessions that differ in {mixes}: "
            "its figures average them."
        )
    return lines


def provenance_warnings(report: dict[str, Any]) -> list[RenderableType]:
    """The report's warning lines, one per configuration whose sessions mix a fact."""
    from rich.text import Text

    return [Text(line, style="yellow") for line in warnings(report.get("provenance") or [])]


def provenance_table(report: dict[str, Any]) -> list[RenderableType]:
    """The report's table "Where the figures come from" (none when the section is empty)."""
    rows = report.get("provenance") or []
    if not rows:
        return []
    from rich.table import Table

    table = Table(title="Where the figures come from", title_justify="left")
    for name in ("participant", "protocol", "sessions", "org clock", "schema", "prompts", "judge"):
        table.add_column(name, overflow="fold", justify="right" if name == "sessions" else "left")
    for row in rows:
        table.add_row(
            row["configuration"],
            row["protocol"],
            str(row["sessions"]),
            _cell(row["org_clock"]),
            _cell(row["schema_source"]),
            _cell(row["prompt_source"]),
            _cell(row["judge"]) if row["judge"] else "none needed",
        )
    return [table]
