"""Shared pieces of the task families: drafts, the org reader, periods in words, selection."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import cached_property
from pathlib import Path
from typing import Any

from crmarena_tui.demo import dates
from crmarena_tui.demo.dates import Period

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


def agree(*answers: list[str | None]) -> list[str | None]:
    """The common answer of several readings of a task; Ambiguous when they differ."""
    first = answers[0]
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

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
        self.conn.row_factory = sqlite3.Row

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


def _n(n: int, rng: random.Random) -> str:
    return NUMBER_WORDS[n] if n in NUMBER_WORDS and rng.random() < 0.5 else str(n)


def relative_period(
    rng: random.Random, today: date, kinds: Iterable[str] = ("weeks", "months", "quarters")
) -> tuple[str, Period]:
    """A phrase like "over the past 3 months" and its period (ending today)."""
    kind = rng.choice(list(kinds))
    lead = rng.choice(
        ("over the past", "in the last", "over the last", "during the past", "in the past")
    )
    if kind == "weeks":
        n = rng.randint(3, 10)
        return f"{lead} {_n(n, rng)} weeks", dates.past_weeks(today, n)
    if kind == "months":
        n = rng.randint(2, 12)
        return f"{lead} {_n(n, rng)} months", dates.past_months(today, n)
    n = rng.randint(1, 6)
    unit = "quarter" if n == 1 else "quarters"
    return (f"{lead} quarter" if n == 1 else f"{lead} {_n(n, rng)} {unit}"), dates.past_quarters(
        today, n
    )


def fixed_period(rng: random.Random, today: date) -> tuple[str, Period]:
    """A named period (quarter, season, month or year) that mostly lies before `today`."""
    kind = rng.choice(("quarter", "season", "month", "year"))
    back = today - timedelta(days=rng.randint(20, 700))
    y = max(2020, back.year)
    if kind == "quarter":
        q = (back.month - 1) // 3 + 1
        text = rng.choice((f"Q{q} {y}", f"the {QUARTER_WORDS[q]} quarter of {y}"))
        return text, dates.quarter(y, q)
    if kind == "season":
        name = rng.choice(("spring", "summer", "fall", "autumn", "winter"))
        text = rng.choice((f"{name.capitalize()} {y}", f"the {name} of {y}"))
        return text, dates.season(name, y)
    if kind == "month":
        return f"{dates.MONTH_NAMES[back.month - 1]} {y}", dates.month(y, back.month)
    return rng.choice((f"{y}", f"the year {y}")), dates.year(y)


def any_period(
    rng: random.Random,
    today: date,
    fixed_share: float = 0.35,
    kinds: Iterable[str] = ("weeks", "months", "quarters"),
) -> tuple[str, Period]:
    if rng.random() < fixed_share:
        text, period = fixed_period(rng, today)
        return "in " + text if not text.startswith("the ") else "in " + text, period
    return relative_period(rng, today, kinds)


def random_today(
    rng: random.Random, start: date = date(2021, 1, 1), end: date = date(2025, 10, 31)
) -> date:
    return start + timedelta(days=rng.randint(0, (end - start).days))


# ----------------------------------------------------------------- choosing among candidates


def collect(
    rng: random.Random,
    make: Callable[[random.Random], Draft | None],
    n: int,
    *,
    attempts: int = 600,
    none_share: float = 0.25,
    distinct: Callable[[Draft], Any] | None = None,
) -> list[Draft]:
    """Up to `n` drafts from `make` (None or Ambiguous discards a try): at most `none_share` of them
    answered None, and no two with the same `distinct` key."""
    out: list[Draft] = []
    keys: set[Any] = set()
    max_none = max(1, int(n * none_share)) if none_share > 0 else 0
    for _ in range(attempts):
        if len(out) >= n:
            break
        try:
            draft = make(rng)
        except Ambiguous:
            continue
        if draft is None:
            continue
        if draft.answer == [None] and sum(d.answer == [None] for d in out) >= max_none:
            continue
        key = distinct(draft) if distinct else draft.query
        if key in keys:
            continue
        keys.add(key)
        out.append(draft)
    return out


def collect_each(
    rng: random.Random,
    make_for: Callable[[str], Callable[[random.Random], Draft | None]],
    variants: tuple[str, ...],
    n: int,
    **kw: Any,
) -> list[Draft]:
    """`collect` split evenly over `variants` (e.g. min and max), shortfalls filled by the others,
    shuffled so that every slice of the list mixes the variants."""
    out: list[Draft] = []
    for i, variant in enumerate(variants):
        want = (n - len(out)) // (len(variants) - i)
        out += collect(rng, make_for(variant), want, **kw)
    for variant in variants:
        if len(out) >= n:
            break
        seen = {d.query for d in out}
        extra = [d for d in collect(rng, make_for(variant), n, **kw) if d.query not in seen]
        out += extra[: n - len(out)]
    rng.shuffle(out)
    return out
