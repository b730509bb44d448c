"""Request shapes several solvers share, and the questions that ask for what a request lacks."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from crmarena_tui.agents.solvers.periods import (
    Span,
    find_direction,
    find_span,
    find_threshold,
)
from crmarena_tui.tasks.model import Task


@dataclass(frozen=True, slots=True)
class Ranking:
    """ "Which agent (or state) has the lowest/highest X in a period [among agents with > N cases]"."""

    direction: str | None
    span: Span | None
    threshold: int | None = None
    today: date | None = None


def ranking(text: str, task: Task) -> Ranking:
    today = task.today()
    return Ranking(find_direction(text), find_span(text, today), find_threshold(text), today)


def ranking_gaps(request: Ranking, measure: str) -> str | None:
    """What to ask when a ranking request lacks its period or direction."""
    parts = []
    if request.span is None:
        parts.append("which time period I should look at")
    if request.direction is None:
        parts.append(f"whether you are after the lowest or the highest {measure}")
    return " and ".join(parts) or None


def directed(direction: str | None, low: str, high: str) -> str:
    return low if direction == "min" else high


def period_words(span: Span) -> str:
    label = f" ({span.words})" if span.words else ""
    return f"{span.start.isoformat()} to {span.end.isoformat()}{label}"
