"""Salesforce dates and datetimes as text, read into Python and measured.

Salesforce writes a date as `2024-03-05` and a datetime as `2024-03-05T14:30:00.000+0000` (also
`Z`, `+00:00`, or a space for the `T`). Every function here takes any of these (or a `date` or
`datetime`) and returns None for a value that is none of them, so one bad cell never stops a
computation.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

_OFFSET = re.compile(r"([+-]\d{2}):?(\d{2})$")


def parse(value: object) -> datetime | None:
    """A timezone-aware datetime (UTC when no offset is given; a date is its midnight)."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text:
        return None
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    text = _OFFSET.sub(r"\1:\2", text)
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def between(start: object, end: object) -> timedelta | None:
    """`end - start`, or None when either is not a date or datetime."""
    a, b = parse(start), parse(end)
    return None if a is None or b is None else b - a


def days_between(start: object, end: object) -> float | None:
    """Days from `start` to `end` (fractional; negative when `end` is earlier)."""
    span = between(start, end)
    return None if span is None else span.total_seconds() / 86400.0


def hours_between(start: object, end: object) -> float | None:
    """Hours from `start` to `end`."""
    span = between(start, end)
    return None if span is None else span.total_seconds() / 3600.0


def seconds_between(start: object, end: object) -> float | None:
    """Seconds from `start` to `end`."""
    span = between(start, end)
    return None if span is None else span.total_seconds()


def sf_date(value: object) -> str | None:
    """The UTC day of a date or datetime, `YYYY-MM-DD` (SQLite's date functions read it)."""
    parsed = parse(value)
    return None if parsed is None else parsed.astimezone(UTC).date().isoformat()


def sf_datetime(value: object) -> str | None:
    """A date or datetime as `YYYY-MM-DD HH:MM:SS` in UTC (SQLite's `julianday` reads it)."""
    parsed = parse(value)
    return None if parsed is None else parsed.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def sf_month(value: object) -> str | None:
    """The UTC month of a date or datetime, `YYYY-MM`."""
    day = sf_date(value)
    return None if day is None else day[:7]
