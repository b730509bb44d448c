"""Dates the way SOQL reads them: literals, relative date literals and the org's stored forms.

Stored forms (the org file's): dates `YYYY-MM-DD`, datetimes `YYYY-MM-DDTHH:MM:SS.mmm+0000` in UTC,
so both compare correctly as text. A relative literal (`LAST_N_DAYS:30`) is a half-open range of days
[start, end) counted from the org's "today"; weeks start on Sunday (Salesforce's en_US locale) and
fiscal periods are calendar periods.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

_DT_RE = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(Z|([+-])(\d{2}):?(\d{2}))$"
)


def parse_datetime_literal(text: str) -> datetime | None:
    """`2024-01-01T00:00:00Z`, `...+05:30`, `...-0800`, `....123Z` -> an aware UTC datetime."""
    m = _DT_RE.match(text)
    if not m:
        return None
    y, mo, d, h, mi, s, frac, zone, sign, zh, zm = m.groups()
    try:
        micro = int((frac or "0").ljust(6, "0"))
        value = datetime(int(y), int(mo), int(d), int(h), int(mi), int(s), micro, tzinfo=UTC)
    except ValueError:
        return None
    if zone != "Z":
        if int(zh) > 23 or int(zm) > 59:
            return None
        offset = timedelta(hours=int(zh), minutes=int(zm))
        value = value - offset if sign == "+" else value + offset
    return value


def sf_datetime(value: datetime) -> str:
    """The stored form of a UTC datetime: `2023-05-10T09:00:00.000+0000`."""
    value = value.astimezone(UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}+0000"


def day_start(day: date) -> str:
    """Midnight UTC of `day` in the stored datetime form."""
    return f"{day.isoformat()}T00:00:00.000+0000"


def _add_months(day: date, months: int) -> date:
    total = day.year * 12 + (day.month - 1) + months
    return date(total // 12, total % 12 + 1, 1)


def _week_start(day: date) -> date:
    return day - timedelta(days=(day.weekday() + 1) % 7)


def _quarter_start(day: date) -> date:
    return date(day.year, 3 * ((day.month - 1) // 3) + 1, 1)


def _unit_start(unit: str, today: date) -> date:
    if unit == "DAY":
        return today
    if unit == "WEEK":
        return _week_start(today)
    if unit == "MONTH":
        return today.replace(day=1)
    if unit == "QUARTER":
        return _quarter_start(today)
    return date(today.year, 1, 1)


def _shift(unit: str, start: date, count: int) -> date:
    """`start` moved by `count` units (start is a unit boundary)."""
    if unit == "DAY":
        return start + timedelta(days=count)
    if unit == "WEEK":
        return start + timedelta(days=7 * count)
    if unit == "MONTH":
        return _add_months(start, count)
    if unit == "QUARTER":
        return _add_months(start, 3 * count)
    return date(start.year + count, 1, 1)


_SIMPLE = {
    "TODAY": ("DAY", 0),
    "YESTERDAY": ("DAY", -1),
    "TOMORROW": ("DAY", 1),
}
_REL_RE = re.compile(r"^(LAST|THIS|NEXT)_(FISCAL_)?(WEEK|MONTH|QUARTER|YEAR)$")
_N_RE = re.compile(r"^(LAST|NEXT)_N_(FISCAL_)?(DAYS|WEEKS|MONTHS|QUARTERS|YEARS)$")
_AGO_RE = re.compile(r"^N_(FISCAL_)?(DAYS|WEEKS|MONTHS|QUARTERS|YEARS)_AGO$")

TAKES_N = "takes_n"


def literal_kind(word: str) -> str | None:
    """None when `word` is no date literal, TAKES_N for `LAST_N_DAYS`-style, else "plain"."""
    if word in _SIMPLE or word in ("LAST_90_DAYS", "NEXT_90_DAYS") or _REL_RE.match(word):
        return "plain"
    if _N_RE.match(word) or _AGO_RE.match(word):
        return TAKES_N
    return None


def literal_range(word: str, n: int | None, today: date) -> tuple[date, date] | None:
    """The [start, end) days a relative date literal covers, or None when `word` is not one."""
    if word in _SIMPLE:
        unit, k = _SIMPLE[word]
        start = today + timedelta(days=k)
        return start, start + timedelta(days=1)
    if word == "LAST_90_DAYS":
        return today - timedelta(days=90), today + timedelta(days=1)
    if word == "NEXT_90_DAYS":
        return today + timedelta(days=1), today + timedelta(days=91)
    m = _REL_RE.match(word)
    if m:
        unit = m.group(3)
        start = _shift(
            unit, _unit_start(unit, today), {"LAST": -1, "THIS": 0, "NEXT": 1}[m.group(1)]
        )
        return start, _shift(unit, start, 1)
    if n is None:
        return None
    m = _N_RE.match(word)
    if m:
        unit = m.group(3)[:-1]
        if unit == "DAY":  # LAST_N_DAYS includes today; NEXT_N_DAYS starts tomorrow
            if m.group(1) == "LAST":
                return today - timedelta(days=n), today + timedelta(days=1)
            return today + timedelta(days=1), today + timedelta(days=n + 1)
        current = _unit_start(unit, today)
        if m.group(1) == "LAST":  # the n whole units before the current one
            return _shift(unit, current, -n), current
        nxt = _shift(unit, current, 1)
        return nxt, _shift(unit, nxt, n)
    m = _AGO_RE.match(word)
    if m:
        unit = m.group(2)[:-1]
        start = _shift(unit, _unit_start(unit, today), -n)
        return start, _shift(unit, start, 1)
    return None
