"""State shared by the generator's families while one org is built: rng, Ids, rows, counts."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from crmarena_tui.demo.dates import fmt_dt
from crmarena_tui.demo.ids import IdFactory
from crmarena_tui.demo.names import FIRST_NAMES, LAST_NAMES
from crmarena_tui.demo.theme import Theme, theme_for
from crmarena_tui.orgs.reference_schema import reference_schema

DATA_START = date(2020, 1, 6)
DATA_END = date(2025, 10, 31)
ORG_TODAY = date(2025, 11, 3)

# Record counts at scale 1.0 (the real b2b org's, docs/ARCHITECTURE.md, "Benchmark rules the code reproduces"). Catalogue objects
# (products, price books, categories, issues, territories, knowledge) do not scale.
BASE_COUNTS: dict[str, int] = {
    "service_agents": 28,
    "sales_agents": 184,
    "lead_desk_agents": 12,
    "Account": 101,
    "Contact": 886,
    "Lead": 1465,
    "Opportunity": 1170,
    "won_opportunities": 163,
    "Quote": 704,
    "Case": 153,
    "LiveChatTranscript": 58,
    "Event": 54,
}


@dataclass
class Person:
    first: str
    last: str

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}"


@dataclass
class BuildContext:
    org_type: str
    seed: int
    scale: float
    theme: Theme = field(init=False)
    ids: IdFactory = field(init=False)
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    prefixes: dict[str, str] = field(default_factory=dict)
    # Cross-family lookups filled in as the build goes (plain data, never read by tasks).
    index: dict[str, Any] = field(default_factory=dict)
    _names_used: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.theme = theme_for(self.org_type)
        self.ids = IdFactory(self.theme.pod)
        schema = reference_schema()
        self.prefixes = {name: obj.key_prefix for name, obj in schema.objects.items()}
        self.rows = {name: [] for name in schema.objects}

    def rng(self, family: str) -> random.Random:
        """An independent, seeded generator per family, so families do not shift each other."""
        return random.Random(f"crmarena-demo:{self.org_type}:{self.seed}:{family}")

    def count(self, name: str, minimum: int = 1) -> int:
        return max(minimum, round(BASE_COUNTS[name] * self.scale))

    def add(self, obj: str, **fields: Any) -> str:
        """Append a record of `obj` and return its new Id."""
        record_id = self.ids.new(self.prefixes[obj])
        self.rows[obj].append({"Id": record_id, **fields})
        return record_id

    def person(self, rng: random.Random, last: str | None = None) -> Person:
        """A person whose full name is not yet used in this org (a middle initial when needed)."""
        for _ in range(40):
            p = Person(rng.choice(FIRST_NAMES), last or rng.choice(LAST_NAMES))
            if p.name not in self._names_used:
                self._names_used.add(p.name)
                return p
        while True:
            p = Person(
                f"{rng.choice(FIRST_NAMES)} {rng.choice('ABCDEFGHJKLMNPRSTVW')}.",
                last or rng.choice(LAST_NAMES),
            )
            if p.name not in self._names_used:
                self._names_used.add(p.name)
                return p


def phone(rng: random.Random) -> str:
    return f"({rng.randint(201, 989)}) 555-{rng.randint(100, 9999):04d}"


def slug(text: str) -> str:
    return "".join(c.lower() if c.isalnum() else "." for c in text).strip(".").replace("..", ".")


def random_dt(
    rng: random.Random, start: date, end: date, hours: tuple[int, int] = (8, 18)
) -> datetime:
    """A datetime on a day in [start, end] during working hours (UTC)."""
    span = max(0, (end - start).days)
    day = start + timedelta(days=rng.randint(0, span))
    return datetime(
        day.year, day.month, day.day, rng.randint(hours[0], hours[1] - 1), rng.randrange(0, 60, 5)
    )


def dt_text(dt: datetime) -> str:
    return fmt_dt(dt)
