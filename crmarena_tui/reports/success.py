"""Success rate by participant x task type, and by skill group (the catalogue's one table). Every
cell names the grading protocol of its rewards: a participant graded under two protocols gets a
row for each, never one figure mixing them."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from crmarena_tui.reports.attempts import FUZZY_THRESHOLD, Attempt
from crmarena_tui.tasks.catalog import BY_NAME


@dataclass(frozen=True, slots=True)
class Cell:
    """One participant on one group of tasks."""

    participant: str
    group: str
    attempts: int
    wins: int
    mean_reward: float
    protocol: str = "unknown"

    @property
    def rate(self) -> float:
        return self.wins / self.attempts if self.attempts else 0.0

    def row(self) -> dict:
        return {
            "participant": self.participant,
            "group": self.group,
            "protocol": self.protocol,
            "attempts": self.attempts,
            "wins": self.wins,
            "success_rate": round(self.rate, 4),
            "mean_reward": round(self.mean_reward, 4),
        }


def skill_of(task_type: str) -> str:
    known = BY_NAME.get(task_type)
    return known.skill if known else "other"


def _table(
    attempts: Iterable[Attempt], group: Callable[[Attempt], str], fuzzy_threshold: float
) -> list[Cell]:
    buckets: dict[tuple[str, str, str], list[Attempt]] = defaultdict(list)
    for attempt in attempts:
        buckets[(attempt.who, attempt.protocol, group(attempt))].append(attempt)
    cells = []
    for (who, protocol, name), items in sorted(buckets.items()):
        rewards = [a.reward or 0.0 for a in items]
        cells.append(
            Cell(
                who,
                name,
                len(items),
                sum(a.win(fuzzy_threshold) for a in items),
                sum(rewards) / len(rewards),
                protocol,
            )
        )
    return cells


def success_by_task_type(
    attempts: Iterable[Attempt], fuzzy_threshold: float = FUZZY_THRESHOLD
) -> list[Cell]:
    return _table(attempts, lambda a: a.session.task_type, fuzzy_threshold)


def success_by_skill(
    attempts: Iterable[Attempt], fuzzy_threshold: float = FUZZY_THRESHOLD
) -> list[Cell]:
    return _table(attempts, lambda a: skill_of(a.session.task_type), fuzzy_threshold)


def overall(attempts: Iterable[Attempt], fuzzy_threshold: float = FUZZY_THRESHOLD) -> list[Cell]:
    return _table(attempts, lambda a: "all", fuzzy_threshold)


def by_session_kind(
    attempts: Iterable[Attempt], fuzzy_threshold: float = FUZZY_THRESHOLD
) -> list[Cell]:
    """Success by participant and session kind (`fork`, `takeover`): reported apart, since a
    continuation of someone else's session is not its participant's own attempt."""
    return _table(attempts, lambda a: a.session.kind, fuzzy_threshold)
