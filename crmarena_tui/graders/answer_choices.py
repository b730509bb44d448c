"""What the submit dialog offers to pick: the Ids found in the session's result sets (and in its
scratch-pane outputs), and the enumeration of the task type's answer kind (states, months,
stages, BANT factors), always with "None".

Task types whose answer is text or a refusal offer the Ids and "None", as Id tasks do, so what
is offered never tells the participant that a request must be refused.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from crmarena_tui.graders.entities import BANT, MONTHS, STAGES, STATES
from crmarena_tui.graders.ids import is_plausible_id
from crmarena_tui.tasks.catalog import BY_NAME

if TYPE_CHECKING:
    from crmarena_tui.scratch.result_tables import LoggedEvent

MAX_IDS = 2000
_LABEL_FIELDS = ("Name", "Subject", "Title", "CaseNumber", "Email")


@dataclass(frozen=True, slots=True)
class Choice:
    """One pickable value, with what to show beside it and where it came from."""

    value: str
    label: str = ""
    source: str = ""


def enumeration(task_type: str) -> list[Choice]:
    """The fixed values of the task type's answer kind, then "None"."""
    entry = BY_NAME.get(task_type)
    kind = entry.answer_kind if entry else "id"
    values: list[Choice] = []
    if kind == "state":
        values = [Choice(code, name) for name, code in sorted(STATES.items(), key=lambda i: i[1])]
    elif kind == "month":
        values = [Choice(m) for m in MONTHS]
    elif kind == "stage":
        values = [Choice(s) for s in STAGES]
    elif kind == "bant":
        values = [Choice(f, "not met") for f in BANT]
    return [*values, Choice("None", "there is no such item")]


def multiple_allowed(task_type: str) -> bool:
    """True when the answer may hold several items (the dialog says so)."""
    entry = BY_NAME.get(task_type)
    return entry is not None and entry.answer_kind in ("ids", "bant")


def _label(record: dict[str, Any]) -> str:
    for name in _LABEL_FIELDS:
        value = record.get(name)
        if isinstance(value, str) and value.strip():
            return " ".join(value.split())[:60]
    return ""


def _reference_label(record: dict[str, Any], key: str) -> str:
    """A reference field's label: the field, then the name of what it refers to when the row
    holds it (`Product2Id` with `Product2.Name`, as a nested parent or a scratch column
    `Product2_Name`), else the row's own name or subject."""
    relation = key[:-2] if key.endswith("Id") else key[:-3] + "__r" if key.endswith("__c") else ""
    parent = record.get(relation) if relation else None
    name = _label(parent) if isinstance(parent, dict) else ""
    if not name and relation:  # flattened: `Product2.Name` (a table) or `Product2_Name` (SQL)
        columns = (f"{relation}.", f"{relation}_")
        name = _label({f: record[c + f] for f in _LABEL_FIELDS for c in columns if c + f in record})
    if name:
        return f"{key}: {name}"
    row = _label(record)
    return f"{key} of {row}" if row else key


def _walk(record: dict[str, Any], source: str, found: dict[str, Choice]) -> None:
    own = record.get("Id")
    for key, value in record.items():
        if isinstance(value, dict):
            _walk(value, source, found)
        elif isinstance(value, list):
            for child in value:
                if isinstance(child, dict):
                    _walk(child, source, found)
        elif isinstance(value, str) and value not in found and is_plausible_id(value):
            label = _label(record) if value == own else _reference_label(record, key)
            found[value] = Choice(value, label, source)


def session_ids(events: Iterable[LoggedEvent]) -> list[Choice]:
    """Every Id in the session's query results and scratch outputs, newest result first."""
    from crmarena_tui.scratch.result_tables import result_sets

    events = list(events)
    asked = [
        i for i, e in enumerate(events) if e.kind in ("query", "search") and e.actor != "system"
    ]
    tables: list[tuple[int, str, list[dict[str, Any]]]] = [
        (asked[s.number - 1], s.name, s.records) for s in result_sets(events) if s.records
    ]
    computed = [
        (i, e) for i, e in enumerate(events) if e.kind == "compute" and e.payload.get("rows")
    ]
    for n, (i, ev) in enumerate(computed, start=1):
        columns = [str(c) for c in ev.payload.get("columns") or []]
        rows = [dict(zip(columns, r, strict=False)) for r in ev.payload["rows"]]
        tables.append((i, f"scratch {n}", rows))
    found: dict[str, Choice] = {}
    for _, name, records in sorted(tables, key=lambda t: -t[0]):
        for record in records:
            _walk(record, name, found)
            if len(found) >= MAX_IDS:
                return list(found.values())
    return list(found.values())


def describe(choice: Choice) -> str:
    """The choice as one line for a list: value, label and source."""
    extra = " · ".join(p for p in (choice.label, choice.source) if p)
    return f"{choice.value}  {extra}" if extra else choice.value
