"""The shape of a task set, per task type: how many tasks, how often the answer is None or a list,
how long queries and answers are, and which kinds of periods the queries name.

`shape(tasks)` gives one `TypeShape` per task type present (in catalogue order, unknown types
after). Period kinds are read from the query's words:

- `season`: "Spring 2021", "the fall of 2020"; `quarter`: "Q3 2022", "the fourth quarter of 2021";
- `month`: "November 2021"; `year`: "in 2021", "the year 2021";
- `past days|weeks|months|quarters|years`: "the past four weeks", "the last 6 quarters",
  "the last quarter" (a relative period ending today);
- `days ago`: a relative day ("five days back", "yesterday", "last week", "two weeks ago").

A query may name more than one period ("from Q1 2022 to Q2 2022" counts one `quarter` query).

Blind (the `blind` setting, `shape(tasks, blind=True)`) reads no gold answer and no chat task's
request, as the task browser shows neither: the answer figures (`none`, `multi`, answer lengths)
stay empty and `row` leaves them out, and query lengths and periods cover single-turn tasks only
(`queries` counts the requests read).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from crmarena_tui.tasks.catalog import TASK_TYPES
from crmarena_tui.tasks.model import Task

_NUMBER = (
    r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
    r"fourteen|fifteen|twenty)"
)
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
PERIOD_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("season", re.compile(r"\b(?:spring|summer|fall|autumn|winter)\s+(?:of\s+)?\d{4}\b", re.I)),
    (
        "quarter",
        re.compile(
            r"\bQ[1-4]\s*(?:of\s+)?\d{4}\b|\b(?:first|second|third|fourth)\s+quarter\s+of\s+\d{4}",
            re.I,
        ),
    ),
    ("month", re.compile(rf"\b(?:{_MONTHS})\s+(?:of\s+)?\d{{4}}\b")),
    ("year", re.compile(r"\b(?:in|during|for|throughout)\s+(?:the\s+year\s+)?(?:19|20)\d{2}\b")),
    (
        "past",
        re.compile(
            rf"\b(?:past|last|previous|recent)\s+(?:{_NUMBER}\s+)?(day|week|month|quarter|year)s?\b"
            r"(?!\s+(?:ago|back))",
            re.I,
        ),
    ),
    (
        "days ago",
        re.compile(rf"\byesterday\b|\b{_NUMBER}\s+(?:day|week)s?\s+(?:ago|back|earlier)\b", re.I),
    ),
)


def period_kinds(query: str) -> list[str]:
    """The kinds of period a query names, each once, in the order of `PERIOD_KINDS`."""
    found: list[str] = []
    for kind, pattern in PERIOD_KINDS:
        for match in pattern.finditer(query):
            if kind == "past":
                if re.fullmatch(r"last\s+week", match.group(0), re.I):
                    name = "days ago"  # "the lab kit I bought last week"
                else:
                    name = f"past {match.group(1).lower()}s"
            else:
                name = kind
            if name not in found:
                found.append(name)
    return found


def answer_text(answer: list[str | None]) -> str | None:
    """The ground truth as one string (items joined by ", "), None when the answer is None."""
    items = [a for a in answer if a is not None]
    return ", ".join(items) if items else None


@dataclass
class TypeShape:
    task: str
    count: int = 0
    none: int = 0
    multi: int = 0
    query_chars: int = 0
    answer_chars: int = 0
    answers: int = 0  # answers that are not None (the base of the mean answer length)
    queries: int = 0  # requests read (the base of the mean query length; blind: single-turn)
    periods: Counter[str] = field(default_factory=Counter)

    @property
    def none_share(self) -> float:
        return self.none / self.count if self.count else 0.0

    @property
    def multi_share(self) -> float:
        return self.multi / self.count if self.count else 0.0

    @property
    def mean_query(self) -> float:
        return self.query_chars / self.queries if self.queries else 0.0

    @property
    def mean_answer(self) -> float:
        return self.answer_chars / self.answers if self.answers else 0.0

    def add(self, task: Task, blind: bool = False) -> None:
        self.count += 1
        if not (blind and task.interactive):  # blind: a chat's request is the customer's to tell
            self.queries += 1
            self.query_chars += len(task.query)
            self.periods.update(period_kinds(task.query))
        if blind:  # blind: the gold answer is not read at all
            return
        text = answer_text(task.answer)
        if text is None:
            self.none += 1
        else:
            self.answers += 1
            self.answer_chars += len(text)
        if len([a for a in task.answer if a is not None]) > 1:
            self.multi += 1

    def row(self, blind: bool = False) -> dict[str, object]:
        """The figures as JSON-ready data (shares in 0..1, lengths in characters); `blind`
        leaves out those read from the gold answers."""
        row: dict[str, object] = {
            "task": self.task,
            "count": self.count,
            "none_share": round(self.none_share, 4),
            "multi_share": round(self.multi_share, 4),
            "mean_query_chars": round(self.mean_query, 1),
            "mean_answer_chars": round(self.mean_answer, 1),
            "periods": dict(self.periods.most_common()),
        }
        if blind:
            for key in ANSWER_FIGURES:
                del row[key]
            row["requests_read"] = self.queries
        return row


ANSWER_FIGURES = ("none_share", "multi_share", "mean_answer_chars")  # read from the golds


def shape(tasks: Iterable[Task], blind: bool = False) -> list[TypeShape]:
    """One `TypeShape` per task type present, catalogue order first; `blind` reads no gold
    answer and no chat task's request (module notes)."""
    shapes: dict[str, TypeShape] = {}
    for task in tasks:
        shapes.setdefault(task.task, TypeShape(task.task)).add(task, blind)
    order = {t.name: n for n, t in enumerate(TASK_TYPES)}
    return sorted(shapes.values(), key=lambda s: (order.get(s.task, len(order)), s.task))


def total(shapes: Iterable[TypeShape]) -> TypeShape:
    """All types together (period kinds summed)."""
    out = TypeShape("all")
    for s in shapes:
        out.count += s.count
        out.none += s.none
        out.multi += s.multi
        out.query_chars += s.query_chars
        out.answer_chars += s.answer_chars
        out.answers += s.answers
        out.queries += s.queries
        out.periods.update(s.periods)
    return out
