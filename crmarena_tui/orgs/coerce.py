"""Stored snapshot values into the org file's typed forms, one field type at a time.

A coercer takes a value as SQLite returns it and answers `(value, status)`: status `SAME` (kept as
it was), `REWRITTEN` (turned into the org's form: `'true'` -> 1, `'2021-06-07 10:50:00'` ->
`'2021-06-07T10:50:00.000+0000'`, `''` -> NULL, a 15-character Id -> its 18-character form) or
`FAILED` (not a value of that type: kept exactly as stored, and reported).

The org's forms (`orgs/soql/dates.py`, `orgs/soql/shape.py`): dates `YYYY-MM-DD`, datetimes
`YYYY-MM-DDTHH:MM:SS.mmm+0000` in UTC, booleans 0/1, numbers as SQLite numbers, Ids 18 characters.
Dates and datetimes written with slashes (`07/06/2021 10:50:00 a. m.`) are read in the order their
column was found to use (`coerce_dates.column_order`, passed as `coercer(type, order)`); read alone
(`order="auto"`) a value is day first only when its form says so or its first number exceeds 12.
Epoch milliseconds are read as stored numbers or as text of 12 or 13 digits.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, date, datetime
from functools import partial
from typing import Any

from crmarena_tui.orgs.coerce_dates import Order, read_slash, resolve
from crmarena_tui.orgs.soql.conditions import to_18
from crmarena_tui.orgs.soql.dates import parse_datetime_literal, sf_datetime

SAME, REWRITTEN, FAILED = 0, 1, 2
Coerced = tuple[Any, int]
Coercer = Callable[[Any], Coerced]

NULL_WORDS = frozenset({"null", "none", "nan", "nat", "n/a"})
TRUE_WORDS = frozenset({"true", "t", "yes", "y", "1"})
FALSE_WORDS = frozenset({"false", "f", "no", "n", "0"})
_ID = re.compile(r"^[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$")
_NUMBER = re.compile(r"^[-+]?\$?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][-+]?\d+)?%?$")
_DATE = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})$")
_NAIVE_DT = re.compile(r"^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)$")
EPOCH_MS = 100_000_000_000  # numbers above this are milliseconds since 1970, below it seconds


def _blank(v: Any) -> bool:
    """An empty or null-like stored value (for every type but text)."""
    return isinstance(v, str) and (not v.strip() or v.strip().lower() in NULL_WORDS)


def _text(v: Any) -> Any:
    """Bytes as UTF-8 text when they decode (a BLOB column of text)."""
    if isinstance(v, bytes):
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            return v
    return v


def coerce_text(v: Any) -> Coerced:
    if v is None:
        return None, SAME
    if type(v) is str:
        return (None, REWRITTEN) if v == "" else (v, SAME)
    if isinstance(v, bytes):
        decoded = _text(v)
        return (decoded, REWRITTEN) if isinstance(decoded, str) else (v, FAILED)
    if isinstance(v, float) and v.is_integer():
        return str(int(v)), REWRITTEN
    return str(v), REWRITTEN


def coerce_id(v: Any) -> Coerced:
    if v is None:
        return None, SAME
    if type(v) is str and len(v) == 18 and v.isalnum():
        return v, SAME
    v = _text(v)
    if _blank(v):
        return None, REWRITTEN
    if isinstance(v, str):
        s = v.strip()
        if _ID.match(s):
            return to_18(s), REWRITTEN
    return v, FAILED


def coerce_boolean(v: Any) -> Coerced:
    if v is None:
        return None, SAME
    if type(v) is int and v in (0, 1):
        return v, SAME
    v = _text(v)
    if isinstance(v, int | float) and v in (0, 1):
        return int(v), REWRITTEN
    if isinstance(v, str):
        word = v.strip().lower()
        if word in TRUE_WORDS:
            return 1, REWRITTEN
        if word in FALSE_WORDS:
            return 0, REWRITTEN
        if _blank(v):
            return None, REWRITTEN
    return v, FAILED


def _number(v: Any) -> float | None:
    if isinstance(v, int | float) and not isinstance(v, bool):
        return float(v)
    if isinstance(v, str):
        s = v.strip()
        if s and _NUMBER.match(s) and any(ch.isdigit() for ch in s):
            try:
                return float(s.replace(",", "").replace("$", "").rstrip("%"))
            except ValueError:
                return None
    return None


def coerce_int(v: Any) -> Coerced:
    if v is None:
        return None, SAME
    if type(v) is int:
        return v, SAME
    v = _text(v)
    if _blank(v):
        return None, REWRITTEN
    n = _number(v)
    if n is not None and n.is_integer():
        return int(n), REWRITTEN
    return v, FAILED


def coerce_number(v: Any) -> Coerced:
    if v is None:
        return None, SAME
    if type(v) is float or type(v) is int:
        return v, SAME  # the column's REAL affinity stores an integer as a real
    v = _text(v)
    if _blank(v):
        return None, REWRITTEN
    n = _number(v)
    if n is not None and n == n and abs(n) != float("inf"):
        return n, REWRITTEN
    return v, FAILED


def _from_epoch(v: float) -> datetime | None:
    try:
        return datetime.fromtimestamp(v / 1000 if abs(v) >= EPOCH_MS else v, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _epoch_text(s: str) -> datetime | None:
    """Epoch milliseconds written as text (12 or 13 digits: 1973 to 2286)."""
    return _from_epoch(float(s)) if s.isdigit() and 12 <= len(s) <= 13 else None


def _parse_datetime(s: str, order: Order = "auto") -> datetime | None:
    s = s.strip()
    slash = read_slash(s)
    if slash is not None:
        how = resolve(slash, order)
        return slash.moment(how) if how is not None else None
    if s.isdigit():
        return _epoch_text(s)
    if len(s) > 10 and s[10] == " ":
        s = s[:10] + "T" + s[11:]
    found = parse_datetime_literal(s.replace(" ", ""))
    if found is not None:
        return found
    m = _NAIVE_DT.match(s)
    if m:  # no zone: a naive dump of UTC values
        clock = m.group(2) if m.group(2).count(":") == 2 else m.group(2) + ":00"
        try:
            return datetime.fromisoformat(f"{m.group(1)}T{clock}").replace(tzinfo=UTC)
        except ValueError:
            return None
    day = _parse_date(s)
    return datetime(day.year, day.month, day.day, tzinfo=UTC) if day is not None else None


def _parse_date(s: str, order: Order = "auto") -> date | None:
    s = s.strip()
    slash = read_slash(s)
    if slash is not None:  # a date, or a datetime stored for a date: its day as written
        how = resolve(slash, order)
        return slash.day(how) if how is not None else None
    m = _DATE.match(s)
    if m is None:
        moment = _epoch_text(s)
        return moment.date() if moment is not None else None
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def coerce_datetime(v: Any, order: Order = "auto") -> Coerced:
    if v is None:
        return None, SAME
    if type(v) is str and len(v) == 28 and v[10] == "T" and v[19] == "." and v[23:] == "+0000":
        return v, SAME
    v = _text(v)
    if _blank(v):
        return None, REWRITTEN
    found: datetime | None = None
    if isinstance(v, int | float):
        found = _from_epoch(float(v))
    elif isinstance(v, str):
        found = _parse_datetime(v, order)
    return (sf_datetime(found), REWRITTEN) if found is not None else (v, FAILED)


def coerce_date(v: Any, order: Order = "auto") -> Coerced:
    if v is None:
        return None, SAME
    if type(v) is str and len(v) == 10 and v[4] == "-" and v[7] == "-" and _parse_date(v):
        return v, SAME
    v = _text(v)
    if _blank(v):
        return None, REWRITTEN
    day: date | None = None
    if isinstance(v, int | float):
        moment = _from_epoch(float(v))
        day = moment.date() if moment is not None else None
    elif isinstance(v, str):
        day = _parse_date(v, order)
        if day is None and len(v.strip()) > 10 and read_slash(v) is None:
            day = _parse_date(v.strip()[:10])  # a datetime stored for a date: its day as written
    return (day.isoformat(), REWRITTEN) if day is not None else (v, FAILED)


COERCERS: dict[str, Coercer] = {
    "id": coerce_id,
    "reference": coerce_id,
    "boolean": coerce_boolean,
    "int": coerce_int,
    "double": coerce_number,
    "currency": coerce_number,
    "percent": coerce_number,
    "date": coerce_date,
    "datetime": coerce_datetime,
}


def coercer(field_type: str, order: Order = "auto") -> Coercer:
    """The coercer for a field type (text types: `coerce_text`); `order`: how a date or datetime
    column's slash values are read (`coerce_dates.column_order`)."""
    if order != "auto" and field_type == "date":
        return partial(coerce_date, order=order)
    if order != "auto" and field_type == "datetime":
        return partial(coerce_datetime, order=order)
    return COERCERS.get(field_type, coerce_text)
