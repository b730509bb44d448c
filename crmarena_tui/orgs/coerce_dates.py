"""Dates and datetimes written with slashes, as locale dumps write them, read a column at a time.

Dumps made through a spreadsheet or a localised client write `07/06/2021 10:50:00 a. m.` (Spanish:
day first, a 12-hour clock with `a. m.`/`p. m.`), `06/07/2021 10:50 AM` (a 12-hour clock),
`07/06/2021 10:50` or a bare `07/06/2021`. One value alone cannot say whether 07/06 is the 7th of
June or the 6th of July, so the importer decides once per column (`column_order`):

- the form says so: the Spanish `a. m.`/`p. m.` form is day first (DD/MM);
- every value fits day first and some do not fit month first (a first number above 12): DD/MM;
  every value fits month first and some do not fit day first (a second number above 12): MM/DD;
- every value fits both: ambiguous; no order fits every value: inconsistent. Either way the
  column's slash values are not converted: they stay as stored (text) and the report lists them.

Values without a zone are read as UTC, as naive ISO dumps are (`coerce.py`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Literal

Order = Literal["auto", "dmy", "mdy", "undecided"]

_SPACE = r"[\s\u00a0\u202f]"
_SLASH = re.compile(
    rf"^{_SPACE}*(\d{{1,2}})/(\d{{1,2}})/(\d{{4}})"
    rf"(?:(?:{_SPACE}+|T|,{_SPACE}*)(\d{{1,2}}):(\d{{2}})(?::(\d{{2}})(?:[.,](\d{{1,6}}))?)?"
    rf"(?:{_SPACE}*(?:(?P<es>[ap])\.{_SPACE}+m\.?|(?P<en>[ap])\.?m\.?))?)?{_SPACE}*$",
    re.IGNORECASE,
)
SPANISH_FORM = "DD/MM/YYYY HH:MM:SS a. m."


@dataclass(frozen=True, slots=True)
class Slash:
    """A value of the slash family, its two leading numbers not yet read as day or month."""

    first: int
    second: int
    year: int
    clock: tuple[int, int, int, int] | None  # hour (0-23), minute, second, microsecond
    day_first_form: bool  # the form itself says day first (`a. m.`/`p. m.`)
    twelve_hour: bool

    def day(self, order: Literal["dmy", "mdy"]) -> date | None:
        day, month = (self.first, self.second) if order == "dmy" else (self.second, self.first)
        try:
            return date(self.year, month, day)
        except ValueError:
            return None

    def moment(self, order: Literal["dmy", "mdy"]) -> datetime | None:
        day = self.day(order)
        if day is None:
            return None
        hour, minute, second, micro = self.clock or (0, 0, 0, 0)
        try:
            return datetime(day.year, day.month, day.day, hour, minute, second, micro, tzinfo=UTC)
        except ValueError:
            return None


def read_slash(value: Any) -> Slash | None:
    """The slash form of a stored text value, or None when it is not one (or its clock is no
    clock: minute 61, hour 13 p. m.)."""
    if not isinstance(value, str) or "/" not in value:
        return None
    m = _SLASH.match(value)
    if m is None:
        return None
    clock = None
    meridiem = (m.group("es") or m.group("en") or "").lower()
    if m.group(4) is not None:
        hour, minute = int(m.group(4)), int(m.group(5))
        second = int(m.group(6) or 0)
        micro = int((m.group(7) or "0").ljust(6, "0"))
        if meridiem:
            if not 1 <= hour <= 12:
                return None
            hour = hour % 12 + (12 if meridiem == "p" else 0)
        if hour > 23 or minute > 59 or second > 59:
            return None
        clock = (hour, minute, second, micro)
    return Slash(
        int(m.group(1)),
        int(m.group(2)),
        int(m.group(3)),
        clock,
        day_first_form=m.group("es") is not None,
        twelve_hour=bool(meridiem),
    )


def alone(value: Slash) -> Literal["dmy", "mdy"]:
    """How one value is read with no column to go by: day first when its form says so or its
    first number cannot be a month, else month first."""
    return "dmy" if value.day_first_form or value.first > 12 else "mdy"


def resolve(value: Slash, order: Order) -> Literal["dmy", "mdy"] | None:
    if order == "auto":
        return alone(value)
    return None if order == "undecided" else order


@dataclass(frozen=True, slots=True)
class ColumnOrder:
    """How a column's slash values are read, and why (said in the import report)."""

    order: Order  # dmy, mdy or undecided
    values: int  # distinct slash values seen
    form: str  # the form, e.g. "DD/MM/YYYY HH:MM:SS a. m."
    reason: str

    @property
    def converted(self) -> bool:
        return self.order in ("dmy", "mdy")


def _form(values: list[Slash], order: str) -> str:
    head = "DD/MM/YYYY" if order == "dmy" else "MM/DD/YYYY" if order == "mdy" else "NN/NN/YYYY"
    if any(v.day_first_form for v in values):
        return SPANISH_FORM
    if any(v.twelve_hour for v in values):
        return f"{head} HH:MM AM"
    if any(v.clock is not None for v in values):
        return f"{head} HH:MM:SS"
    return head


def column_order(values: Iterable[Any]) -> ColumnOrder | None:
    """The reading of a column's slash values (None when it holds none)."""
    seen = [s for s in (read_slash(v) for v in values) if s is not None]
    if not seen:
        return None
    if any(v.day_first_form for v in seen):
        return ColumnOrder(
            "dmy", len(seen), SPANISH_FORM, "the a. m./p. m. form writes the day first"
        )
    day_first = all(v.day("dmy") is not None for v in seen)
    month_first = all(v.day("mdy") is not None for v in seen)
    if day_first and not month_first:
        example = next(v for v in seen if v.day("mdy") is None)
        why = f"a day above 12 comes first (e.g. {example.first}/{example.second}/{example.year})"
        return ColumnOrder("dmy", len(seen), _form(seen, "dmy"), why)
    if month_first and not day_first:
        example = next(v for v in seen if v.day("dmy") is None)
        why = f"a day above 12 comes second (e.g. {example.first}/{example.second}/{example.year})"
        return ColumnOrder("mdy", len(seen), _form(seen, "mdy"), why)
    if day_first:
        why = "ambiguous, every value fits both DD/MM and MM/DD"
    else:
        why = "inconsistent, no one order (DD/MM or MM/DD) fits every value"
    return ColumnOrder("undecided", len(seen), _form(seen, ""), why)
