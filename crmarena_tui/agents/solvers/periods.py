"""Reading the request's words: today's date, periods, directions, thresholds, numbers.

Periods follow the tasks' domain details: "the past N months / quarters / weeks / days" start N
months / 3N months / 7N days / N days before today and end today; quarters, seasons (winter of Y
runs from December Y to February Y+1), months and years are calendar ranges. Every period is an
inclusive range of calendar days, and the SOQL helpers turn it into bounds on date and datetime
fields (datetimes compared in UTC, the end exclusive at the next midnight).
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "twenty": 20,
    "zero": 0,
    "no": 0,
}
MONTHS = tuple(calendar.month_name)[1:]
_NUM = r"(\d+|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")"
_RELATIVE = re.compile(
    rf"\b(?:over|in|during|within|for)\s+the\s+(?:past|last|previous)\s+(?:{_NUM}\s+)?"
    r"(day|week|month|quarter|year)s?\b",
    re.I,
)
_QUARTER = re.compile(r"\bQ([1-4])\s*(?:of\s+)?(\d{4})\b", re.I)
_QUARTER_WORDS = re.compile(r"\b(first|second|third|fourth)\s+quarter\s+(?:of\s+)?(\d{4})\b", re.I)
_SEASON = re.compile(r"\b(spring|summer|fall|autumn|winter)\s+(?:of\s+)?(\d{4})\b", re.I)
_MONTH = re.compile(r"\b(" + "|".join(MONTHS) + r")\s+(?:of\s+)?(\d{4})\b", re.I)
_YEAR = re.compile(r"\b(?:in|during|for|throughout)\s+(?:the\s+year\s+)?(20\d{2})\b", re.I)
_THRESHOLD = re.compile(rf"\b(?:more\s+than|over|above|at\s+least)\s+{_NUM}\s+cases?\b", re.I)
_ORDINAL = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_SEASON_START = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}

MIN_WORDS = (
    "lowest",
    "minimum",
    "least",
    "fewest",
    "shortest",
    "quickest",
    "fastest",
    "smallest",
    "min",
    "bottom",
    "worst",
)
MAX_WORDS = (
    "highest",
    "maximum",
    "most",
    "longest",
    "slowest",
    "largest",
    "greatest",
    "top",
    "max",
    "best",
    "biggest",
)


@dataclass(frozen=True, slots=True)
class Span:
    """An inclusive range of calendar days, with the words that named it."""

    start: date
    end: date
    words: str = ""

    def __str__(self) -> str:
        return f"{self.start.isoformat()} to {self.end.isoformat()}"

    def datetime_filter(self, field: str) -> str:
        """SOQL bounds on a datetime field: from the first day's midnight (UTC) to the next one
        after the last day."""
        after = self.end + timedelta(days=1)
        return (
            f"{field} >= {self.start.isoformat()}T00:00:00Z AND "
            f"{field} < {after.isoformat()}T00:00:00Z"
        )

    def date_filter(self, field: str) -> str:
        return f"{field} >= {self.start.isoformat()} AND {field} <= {self.end.isoformat()}"


def number(word: str) -> int | None:
    word = word.lower()
    if word.isdigit():
        return int(word)
    return NUMBER_WORDS.get(word)


# Deliberately independent of demo/dates.py's add_months: the reference agent must not share code
# with the generator whose ground truth it is checked against.
def add_months(day: date, months: int) -> date:
    """`day` moved by `months` calendar months, the day of month clamped to the month's end."""
    total = day.year * 12 + (day.month - 1) + months
    year, month = divmod(total, 12)
    return date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def _month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def find_span(text: str, today: date | None) -> Span | None:
    """The period the request names, or None. Relative periods need `today`."""
    match = _RELATIVE.search(text)
    if match and today is not None:
        n = number(match.group(1)) if match.group(1) else 1
        unit = match.group(2).lower()
        n = 1 if n is None else n
        if unit == "day":
            start = today - timedelta(days=n)
        elif unit == "week":
            start = today - timedelta(days=7 * n)
        elif unit == "month":
            start = add_months(today, -n)
        elif unit == "quarter":
            start = add_months(today, -3 * n)
        else:
            start = add_months(today, -12 * n)
        return Span(start, today, match.group(0))
    for pattern in (_QUARTER, _QUARTER_WORDS):
        match = pattern.search(text)
        if match:
            q = (
                int(match.group(1))
                if match.group(1).isdigit()
                else _ORDINAL[match.group(1).lower()]
            )
            year = int(match.group(2))
            return Span(date(year, 3 * q - 2, 1), _month_end(year, 3 * q), match.group(0))
    match = _SEASON.search(text)
    if match:
        year, first = int(match.group(2)), _SEASON_START[match.group(1).lower()]
        start = date(year, first, 1)
        last = add_months(start, 2)
        return Span(start, _month_end(last.year, last.month), match.group(0))
    match = _MONTH.search(text)
    if match:
        year, month = int(match.group(2)), MONTHS.index(match.group(1).capitalize()) + 1
        return Span(date(year, month, 1), _month_end(year, month), match.group(0))
    match = _YEAR.search(text)
    if match:
        year = int(match.group(1))
        return Span(date(year, 1, 1), date(year, 12, 31), match.group(0))
    return None


def find_spans(text: str, today: date | None) -> list[Span]:
    """Every period the request names, in the order they appear ("from Q1 2022 to Q2 2022")."""
    spans: list[tuple[int, Span]] = []
    rest, offset = text, 0
    while True:
        span = find_span(rest, today)
        if span is None or not span.words:
            break
        at = rest.find(span.words)
        spans.append((offset + at, span))
        cut = at + len(span.words)
        rest, offset = rest[cut:], offset + cut
    return [s for _, s in sorted(spans, key=lambda x: x[0])]


def period_phrase(text: str) -> str | None:
    """The words naming a period, whether or not today's date is known to place it."""
    span = find_span(text, date(2000, 1, 1))
    return span.words if span is not None else None


def find_direction(text: str) -> str | None:
    """ "min" or "max": whichever superlative the request uses first."""
    found: list[tuple[int, str]] = []
    for direction, words in (("min", MIN_WORDS), ("max", MAX_WORDS)):
        for word in words:
            match = re.search(rf"\b{word}\b", text, re.I)
            if match:
                found.append((match.start(), direction))
    return min(found)[1] if found else None


def find_threshold(text: str) -> int | None:
    """N of "agents who handled more than N cases", or None when the request sets no minimum."""
    match = _THRESHOLD.search(text)
    return number(match.group(1)) if match else None


def find_days_ago(text: str) -> int | None:
    """How many days back "yesterday", "3 days ago", "five days back", "a week ago", "last week",
    "two weeks ago" point."""
    lowered = text.lower()
    if re.search(r"\byesterday\b", lowered):
        return 1
    if re.search(r"\blast week\b", lowered):
        return 7
    match = re.search(rf"\b{_NUM}\s+(day|week)s?\s+(?:ago|back|earlier)\b", lowered)
    if match:
        n = number(match.group(1))
        if n is not None:
            return n * (7 if match.group(2) == "week" else 1)
    return None
