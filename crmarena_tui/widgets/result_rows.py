"""Turn Salesforce-shaped records into table columns and one-line cells (no textual import).

Parent lookups flatten to dotted columns (`Account.Name`), a child subquery becomes a count
(`3 records`) in a cell and nested records in full (`child_text`), long or multi-line text is cut
to one line. The original records stay untouched
for the JSON view and for following Ids.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any, TypeGuard

MAX_CELL = 80
ID_PATTERN = re.compile(r"^[a-zA-Z0-9]{15}(?:[a-zA-Z0-9]{3})?$")


def looks_like_id(value: Any, prefixes: Iterable[str] | None = None) -> TypeGuard[str]:
    """A 15- or 18-character Salesforce Id (with a known key prefix, when prefixes are given)."""
    if not isinstance(value, str) or not ID_PATTERN.match(value):
        return False
    if not any(c.isdigit() for c in value):
        return False
    return prefixes is None or value[:3] in prefixes


def _is_child(value: Any) -> bool:
    return isinstance(value, dict) and "records" in value and "totalSize" in value


def flatten(record: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """One record as `{column: value}`: parents dotted, child lists as the child result."""
    out: dict[str, Any] = {}
    for key, value in record.items():
        if key == "attributes":
            continue
        name = f"{prefix}{key}"
        if isinstance(value, dict) and not _is_child(value):
            out.update(flatten(value, f"{name}."))
        else:
            out[name] = value
    return out


def cell_text(value: Any, limit: int = MAX_CELL) -> str:
    """A value as one short line of text."""
    if value is None:
        return ""
    if _is_child(value):
        n = value.get("totalSize", len(value.get("records", [])))
        return f"{n} record" + ("" if n == 1 else "s")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        text = str(int(value)) if abs(value) < 1e15 else str(value)
    else:
        text = str(value)
    if "\n" in text or "\r" in text or "\t" in text:
        text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def full_text(value: Any) -> str:
    """A value in full, for reading: text as it is, child records as nested records (each field
    on its line, long text as text), other structures as indented JSON."""
    if value is None:
        return ""
    if _is_child(value):
        return child_text(value)
    if isinstance(value, dict | list):
        return json.dumps(value, indent=2, ensure_ascii=False, default=str)
    if isinstance(value, str):
        return value
    return cell_text(value, limit=10**9)


def child_text(value: dict[str, Any], indent: str = "    ") -> str:
    """A child subquery (a case's EmailMessages, ...) as readable records: a line per record
    with its number, then its fields indented, long or multi-line text on its own lines."""
    records = [r for r in value.get("records") or [] if isinstance(r, dict)]
    n = value.get("totalSize", len(records))
    lines = [f"{n} record" + ("" if n == 1 else "s")]
    for i, record in enumerate(records, start=1):
        lines.append(f"── {i} of {len(records)}")
        for column, field in flatten(record).items():
            text = full_text(field)
            if "\n" in text or len(text) > 60:
                lines.append(f"{indent}{column}:")
                lines.extend(f"{indent}{indent}{line}" for line in text.splitlines())
            else:
                lines.append(f"{indent}{column}: {text}")
    return "\n".join(lines)


def row_text(columns: list[str], row: dict[str, Any]) -> str:
    """A whole row in full: each column and its value, long values on their own lines."""
    parts = []
    for column in columns:
        text = full_text(row.get(column))
        joiner = "\n" if "\n" in text or len(text) > 60 else " "
        parts.append(f"{column}:{joiner}{text}")
    return "\n\n".join(parts)


def table_of(records: list[dict[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
    """Column names (in first-seen order) and the flattened records."""
    flat = [flatten(r) for r in records]
    columns: dict[str, None] = {}
    for row in flat[:200]:
        for key in row:
            columns.setdefault(key, None)
    for row in flat[200:]:
        if len(row) != len(columns) or any(k not in columns for k in row):
            for key in row:
                columns.setdefault(key, None)
    return list(columns), flat


def rows_of(columns: list[str], flat: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    """Cell texts per row, in column order."""
    return [tuple(cell_text(row.get(c)) for c in columns) for row in flat]


def column_widths(columns: list[str], rows: list[tuple[str, ...]], sample: int = 2000) -> list[int]:
    """Display widths from the header and the first `sample` rows (cheap: character counts)."""
    widths = [len(c) for c in columns]
    for row in rows[:sample]:
        for i, text in enumerate(row):
            if len(text) > widths[i]:
                widths[i] = len(text)
    return [min(max(w, 3), MAX_CELL) for w in widths]
