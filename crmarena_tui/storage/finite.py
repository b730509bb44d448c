"""Numbers that are not finite (NaN, infinities) never reach a JSON text the database or an export
holds: `json` writes them as `NaN` and `Infinity`, which are not JSON, and SQLite's JSON functions
then fail on the whole report ("malformed JSON").

- `finite_text(value, text)`: the JSON text of `value` with each non-finite number written as
  null; the encoders call it only when their text holds `NaN` or `Infinity` (one C-level search),
  so ordinary writes cost nothing more.
- Schema 17 (`v17_finite_json`): a database written before this rule (an upstream result file
  holding `"total_cost": Infinity` was imported as it was) has those numbers turned to null in
  every JSON text, and non-finite numbers in nullable REAL columns to NULL, once.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Callable
from typing import Any

_TOKENS = ("NaN", "Infinity")


def suspect(text: str) -> bool:
    """Whether a JSON text may hold a non-finite number (the words may be inside a string)."""
    return "NaN" in text or "Infinity" in text


def finite_copy(value: Any) -> Any:
    """`value` with every non-finite float replaced by None (dicts, lists and tuples walked)."""
    kind = type(value)
    if kind is float:
        return value if math.isfinite(value) else None
    if kind is dict:
        return {k: finite_copy(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [finite_copy(v) for v in value]
    return value


def finite_text(value: Any, text: str, encode: Callable[[Any], str]) -> str:
    """`text` (`encode(value)`) again without non-finite numbers, when it may hold one, and with
    each lone surrogate (which SQLite and UTF-8 files cannot hold: the write would fail) made
    U+FFFD. ASCII text, most of what is written, is checked for neither beyond two C passes."""
    if suspect(text):
        text = encode(finite_copy(value))
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def repair_json_text(text: Any) -> Any:
    """A stored JSON text with its non-finite numbers written as null; any other value (not
    text, not JSON, nothing to repair) as it is. An SQL function of the migration."""
    if not isinstance(text, str) or not suspect(text):
        return text
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return text
    fixed = finite_copy(value)
    if fixed == value and not _has_nan(value):
        return text
    return json.dumps(fixed, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _has_nan(value: Any) -> bool:
    kind = type(value)
    if kind is float:
        return math.isnan(value)
    if kind is dict:
        return any(_has_nan(v) for v in value.values())
    if kind is list:
        return any(_has_nan(v) for v in value)
    return False


def v17_finite_json(db: sqlite3.Connection) -> None:
    """Schema 17: non-finite numbers written by older versions turned to null (module
    docstring). Only the rows whose text holds one of the words are read."""
    db.create_function("crmarena_finite_json", 1, repair_json_text, deterministic=True)
    tables = [
        r[0]
        for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            " AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' AND name NOT LIKE 'event_search%'"
        )
    ]
    for table in tables:
        for _, column, kind, notnull, _, _ in db.execute(f'PRAGMA table_info("{table}")'):
            kind = str(kind).upper()
            if kind == "TEXT":
                words = " OR ".join(f"instr(\"{column}\", '{w}') > 0" for w in _TOKENS)
                db.execute(
                    f'UPDATE "{table}" SET "{column}" = crmarena_finite_json("{column}")'
                    f" WHERE {words}"
                )
            elif kind == "REAL" and not notnull:
                db.execute(
                    f'UPDATE "{table}" SET "{column}" = NULL WHERE "{column}" IN (9e999, -9e999)'
                )
