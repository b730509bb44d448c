"""Shared pieces of the task families: drafts, the org reader, periods in words, selection."""

from __future__ import annotations

import math
import os
import random
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import cached_property
from pathlib import Path
from typing import Any

from crmarena_tui.demo import dates
from crmarena_tui.demo.dates import Period
from crmarena_tui.settings.sqlite_readonly import open_readonly

NUMBER_WORDS = {
    1: "one",
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
    10: "ten",
    11: "eleven",
    12: "twelve",
}
QUARTER_WORDS = {1: "first", 2: "second", 3: "third", 4: "fourth"}


class Ambiguous(Exception):
    """The rule does not give one clear answer for these parameters (tie, or readings disagree)."""


@dataclass
class Draft:
    task: str
    query: str
    answer: list[str | None]
    required: str
    params: dict[str, Any] = field(default_factory=dict)


def agree(*answers: Sequence[str | None]) -> list[str | None]:
    """The common answer of several readings of a task; Ambiguous when they differ."""
    first = list(answers[0])
    for other in answers[1:]:
        if sorted(map(str, other)) != sorted(map(str, first)):
            raise Ambiguous("readings disagree")
    return first


def best(scores: dict[str, float], direction: str) -> list[str | None]:
    """`[key]` with the unique min or max score, `[None]` when there is nothing to compare."""
    if not scores:
        return [None]
    pick = min if direction == "min" else max
    target = pick(scores.values())
    winners = [k for k, v in scores.items() if abs(v - target) < 1e-9]
    if len(winners) > 1:
        raise Ambiguous("tie")
    return [winners[0]]


class OrgReader:
    """Read-only access to an org file, with the lookups several families need."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.conn = open_readonly(self.path)
        self.conn.row_factory = sqlite3.Row
        self.memo: dict[Any, Any] = {}  # results the families compute once per org

    def close(self) -> None:
        self.conn.close()

    def rows(self, sql: str, *params: Any) -> list[sqlite3.Row]:
        return self.conn.execute(sql, params).fetchall()

    def scalar(self, sql: str, *params: Any) -> Any:
        row = self.conn.execute(sql, params).fetchone()
        return row[0] if row else None

    @cached_property
    def meta(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT key, value FROM _sf_meta").fetchall())

    @cached_property
    def org_type(self) -> str:
        return self.meta.get("org_type", "b2b")

    @cached_property
    def cases(self) -> list[sqlite3.Row]:
        return self.rows('SELECT * FROM "Case" ORDER BY CreatedDate, Id')

    @cached_property
    def assignments(self) -> dict[str, list[sqlite3.Row]]:
        """Case Id -> its 'Owner Assignment' history rows, oldest first."""
        out: dict[str, list[sqlite3.Row]] = {}
        for r in self.rows(
            "SELECT * FROM CaseHistory__c WHERE Field__c = 'Owner Assignment' "
            "ORDER BY CreatedDate, Id"
        ):
            out.setdefault(r["CaseId__c"], []).append(r)
        return out

    @cached_property
    def product_of_item(self) -> dict[str, str]:
        return {r[0]: r[1] for r in self.rows("SELECT Id, Product2Id FROM OrderItem")}

    @cached_property
    def products(self) -> dict[str, str]:
        """Product Id -> name."""
        return {r[0]: r[1] for r in self.rows("SELECT Id, Name FROM Product2 ORDER BY Name")}

    @cached_property
    def category_of_product(self) -> dict[str, str]:
        return {
            r[0]: r[1]
            for r in self.rows(
                "SELECT pcp.ProductId, pc.Name FROM ProductCategoryProduct pcp "
                "JOIN ProductCategory pc ON pc.Id = pcp.ProductCategoryId"
            )
        }

    @cached_property
    def articles(self) -> list[sqlite3.Row]:
        return self.rows("SELECT * FROM Knowledge__kav ORDER BY Id")

    def article_titled(self, title: str) -> sqlite3.Row | None:
        return next((a for a in self.articles if a["Title"] == title), None)


# ----------------------------------------------------------------- periods in words

RELATIVE_LEADS = ("over the past", "in the last", "over the last", "during the past", "in the past")
# kind -> (lowest N, highest N) of "the past N <unit>"
RELATIVE_RANGES = {"weeks": (2, 10), "months": (2, 12), "quarters": (1, 6)}


def number_words(n: int, rng: random.Random) -> str:
    """`n` as a word or as digits (even odds)."""
    return NUMBER_WORDS[n] if n in NUMBER_WORDS and rng.random() < 0.5 else str(n)


def relative_period(
    rng: random.Random, today: date, kind: str, n: int | None = None
) -> tuple[str, Period]:
    """A phrase like "over the past 3 months" and its period (ending today); kind is weeks,
    months or quarters."""
    low, high = RELATIVE_RANGES[kind]
    n = rng.randint(low, high) if n is None else n
    lead = rng.choice(RELATIVE_LEADS)
    if kind == "weeks":
        return f"{lead} {number_words(n, rng)} weeks", dates.past_weeks(today, n)
    if kind == "months":
        return f"{lead} {number_words(n, rng)} months", dates.past_months(today, n)
    text = f"{lead} quarter" if n == 1 else f"{lead} {number_words(n, rng)} quarters"
    return text, dates.past_quarters(today, n)


def fixed_period(rng: random.Random, today: date, kind: str) -> tuple[str, Period]:
    """A named quarter, season or month (without a leading preposition) ending before `today`."""
    for _ in range(50):
        back = today - timedelta(days=rng.randint(20, 640))
        y = back.year
        if kind == "quarter":
            q = (back.month - 1) // 3 + 1
            text = rng.choice((f"Q{q} {y}", f"the {QUARTER_WORDS[q]} quarter of {y}"))
            period = dates.quarter(y, q)
        elif kind == "season":
            name = SEASONS[(back.month % 12) // 3]
            if name == "winter" and back.month < 3:
                y -= 1  # January and February belong to the winter named by the previous year
            word = "fall" if name == "autumn" and rng.random() < 0.6 else name
            text = rng.choice((f"{word.capitalize()} {y}", f"the {word} of {y}"))
            period = dates.season(word, y)
        else:
            text, period = f"{dates.MONTH_NAMES[back.month - 1]} {y}", dates.month(y, back.month)
        if period.end < today and period.start.year >= 2020:
            return text, period
    raise Ambiguous("no named period before today")


SEASONS = ("winter", "spring", "summer", "autumn")
FIXED_KINDS = ("quarter", "season", "month")


def pick_period(
    rng: random.Random, today: date, mix: Mapping[str, float]
) -> tuple[str, Period, str]:
    """A period phrase ("in Spring 2021", "over the past 6 weeks"), its period and its kind, the
    kind drawn from `mix` (weeks, months, quarters: relative to today; quarter, season, month:
    named)."""
    kind = rng.choices(list(mix), weights=list(mix.values()))[0]
    if kind in FIXED_KINDS:
        text, period = fixed_period(rng, today, kind)
        lead = rng.choice(("in", "in", "during")) if not text.startswith("the ") else "in"
        return f"{lead} {text}", period, kind
    text, period = relative_period(rng, today, kind)
    return text, period, kind


def capitalized(text: str) -> str:
    return text[0].upper() + text[1:]


def random_today(
    rng: random.Random, start: date = date(2020, 9, 1), end: date = date(2025, 10, 31)
) -> date:
    return start + timedelta(days=rng.randint(0, (end - start).days))


# ----------------------------------------------------------------- choosing among candidates

Maker = Callable[[random.Random, bool], "Draft | None"]


def wants_none(position: int, share: float, phase: float) -> bool:
    """Whether draft number `position` (0-based) should be answered None, so that every prefix
    of the drafts holds `share` of None answers (rounded, starting from `phase`)."""
    return math.floor((position + 1) * share + phase) > math.floor(position * share + phase)


def collect(
    rng: random.Random,
    make: Maker,
    n: int,
    *,
    none_share: float = 0.2,
    distinct: Callable[[Draft], Any] | None = None,
    attempts: int = 400,
) -> list[Draft]:
    """Up to `n` drafts from `make(rng, none)`, which tries for a draft answered None when `none`
    is true (a draft of the wrong kind, a repeated `distinct` key, None or Ambiguous discard the
    try). Draft k is fixed by the drafts before it, so the first k of `collect(..., n)` are the
    drafts of `collect(..., k)`; every prefix holds about `none_share` of None answers."""
    out: list[Draft] = []
    keys: set[Any] = set()
    phase = rng.random() * 0.999
    misses = 0
    while len(out) < n and misses < max(3, n // 4):
        none = wants_none(len(out), none_share, phase)
        for _ in range(attempts):
            try:
                draft = make(rng, none)
            except Ambiguous:
                continue
            if draft is None or (draft.answer == [None]) != none:
                continue
            key = distinct(draft) if distinct else draft.query
            if key in keys:
                continue
            keys.add(key)
            out.append(draft)
            break
        else:
            misses += 1  # the org cannot supply this kind of draft: try the next position
            phase = (phase + none_share) % 1.0
    return out
