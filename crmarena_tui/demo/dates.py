"""Dates as the org file stores them, and the periods tasks talk about.

Dates are `YYYY-MM-DD`; datetimes are `YYYY-MM-DDTHH:MM:SS.000+0000` (UTC). A `Period` is an
inclusive range of calendar days. Relative periods count back from "today" exactly as the tasks'
`metadata.optional` defines them: "past N quarters" starts N*3 months before today, "past N months"
N months before, "past N weeks" 7*N days before, and all of them end on today.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

MONTH_NAMES = tuple(calendar.month_name)[1:]


def fmt_date(d: date) -> str:
    return d.isoformat()


def fmt_dt(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%S.000+0000")


def parse_dt(text: str) -> datetime:
    """A stored datetime (or date) as a naive UTC datetime."""
    if len(text) == 10:
        return datetime.fromisoformat(text)
    return datetime.strptime(text[:19], "%Y-%m-%dT%H:%M:%S")


def day_of(text: str) -> date:
    """The calendar day of a stored date or datetime."""
    return date.fromisoformat(text[:10])


def add_months(d: date, months: int) -> date:
    """`d` moved by `months` calendar months, the day clamped to the month's length."""
    total = d.year * 12 + (d.month - 1) + months
    year, month = divmod(total, 12)
    day = min(d.day, calendar.monthrange(year, month + 1)[1])
    return date(year, month + 1, day)


@dataclass(frozen=True, slots=True)
class Period:
    start: date
    end: date
    bounds: tuple[str, str] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        # Start and end as `YYYY-MM-DD` (for SQL `substr(field, 1, 10) BETWEEN ? AND ?`); stored
        # dates and datetimes compare by their first ten characters.
        object.__setattr__(self, "bounds", (fmt_date(self.start), fmt_date(self.end)))

    def __contains__(self, d: object) -> bool:
        if isinstance(d, str):
            return self.bounds[0] <= d[:10] <= self.bounds[1]
        return isinstance(d, date) and self.start <= d <= self.end


def past_days(today: date, days: int) -> Period:
    return Period(today - timedelta(days=days), today)


def past_weeks(today: date, weeks: int) -> Period:
    return past_days(today, 7 * weeks)


def past_months(today: date, months: int) -> Period:
    return Period(add_months(today, -months), today)


def past_quarters(today: date, quarters: int) -> Period:
    return past_months(today, 3 * quarters)


def quarter(year: int, q: int) -> Period:
    start = date(year, 3 * (q - 1) + 1, 1)
    return Period(start, add_months(start, 3) - timedelta(days=1))


def month(year: int, m: int) -> Period:
    return Period(date(year, m, 1), date(year, m, calendar.monthrange(year, m)[1]))


def year(y: int) -> Period:
    return Period(date(y, 1, 1), date(y, 12, 31))


SEASON_MONTHS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}


def season(name: str, y: int) -> Period:
    """Spring Mar-May, Summer Jun-Aug, Fall Sep-Nov of `y`; Winter `y` is Dec `y` to Feb `y+1`."""
    start = date(y, SEASON_MONTHS[name.lower()], 1)
    return Period(start, add_months(start, 3) - timedelta(days=1))
