"""Success rate by participant x task type, and by skill group (the catalogue's one table). Every
cell names the grading protocol of its rewards: a participant graded under two protocols gets a
row for each, never one figure mixing them.

A participant is a configuration (`storage.configuration`: model, strategy, aided, privacy-aware)
and every cell is per benchmark split (org type x single-turn or chat), as the paper reports its
figures. When the attempts span more than one split, each table also has a row per participant
over all of them (split `all`), counting each session once. With the report's `Options`, each
cell also has the figures that take the task as the unit (`reports.task_units`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from crmarena_tui.reports.attempts import FUZZY_THRESHOLD, Attempt
from crmarena_tui.reports.task_units import CLUSTERS, Options, merged, unit_figures
from crmarena_tui.storage.configuration import ALL_SPLITS
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
    split: str = ALL_SPLITS
    no_answer: int = 0  # rewards that came from answers giving no answer (`metrics.no_answer`)
    units: dict[str, Any] | None = field(default=None, compare=False, hash=False)

    @property
    def rate(self) -> float:
        return self.wins / self.attempts if self.attempts else 0.0

    def row(self) -> dict:
        return {
            "participant": self.participant,
            "group": self.group,
            "protocol": self.protocol,
            "split": self.split,
            "org_type": self.split.split(" ")[0] if self.split != ALL_SPLITS else ALL_SPLITS,
            "mode": self.split.split(" ")[-1] if self.split != ALL_SPLITS else ALL_SPLITS,
            "attempts": self.attempts,
            "wins": self.wins,
            "success_rate": round(self.rate, 4),
            "mean_reward": round(self.mean_reward, 4),
            "no_answer": self.no_answer,
            **(self.units or {}),
        }


def skill_of(task_type: str) -> str:
    known = BY_NAME.get(task_type)
    return known.skill if known else "other"


def _table(
    attempts: Iterable[Attempt],
    group: Callable[[Attempt], str],
    fuzzy_threshold: float,
    options: Options | None = None,
    left_out: Iterable[Attempt] = (),
) -> list[Cell]:
    """With `options`, each cell's task figures (`reports.task_units`) and the attempts of
    `left_out` in its place (`excluded`)."""
    buckets = _buckets(attempts, group)
    excluded = {k: len(v) for k, v in _buckets(left_out, group).items()}
    cells = []
    for key, items in sorted(buckets.items(), key=_order):
        who, protocol, split, name = key
        rewards = [a.reward or 0.0 for a in items]
        units = None
        if options is not None:
            column = CLUSTERS.get(options.cluster or "")
            units = unit_figures(
                merged(
                    (
                        a.task_key,
                        1,
                        int(a.win(fuzzy_threshold)),
                        getattr(a.session, column) if column else None,
                    )
                    for a in items
                ),  # fmt: skip
                options,
            )
            units["excluded"] = excluded.get(key, 0)
        cells.append(
            Cell(
                who,
                name,
                len(items),
                sum(a.win(fuzzy_threshold) for a in items),
                sum(rewards) / len(rewards),
                protocol,
                split,
                sum(a.no_answer for a in items),
                units,
            )
        )
    return cells


def _buckets(
    attempts: Iterable[Attempt], group: Callable[[Attempt], str]
) -> dict[tuple[str, str, str, str], list[Attempt]]:
    buckets: dict[tuple[str, str, str, str], list[Attempt]] = defaultdict(list)
    splits = set()
    for attempt in attempts:
        split = attempt.split
        splits.add(split)
        buckets[(attempt.who, attempt.protocol, split, group(attempt))].append(attempt)
    if len(splits) > 1:  # the "all splits" rows: every session once, whatever its split
        for (who, protocol, _split, name), items in list(buckets.items()):
            buckets[(who, protocol, ALL_SPLITS, name)] += items
    return buckets


def _order(item: tuple[tuple[str, str, str, str], list[Attempt]]) -> tuple:
    """Participant, protocol, then the splits in order with `all` last, then the group."""
    who, protocol, split, name = item[0]
    return (who, protocol, split == ALL_SPLITS, split, name)


def success_by_task_type(
    attempts: Iterable[Attempt], fuzzy_threshold: float = FUZZY_THRESHOLD, *units: Any
) -> list[Cell]:
    return _table(attempts, lambda a: a.session.task_type, fuzzy_threshold, *units)


def success_by_skill(
    attempts: Iterable[Attempt], fuzzy_threshold: float = FUZZY_THRESHOLD, *units: Any
) -> list[Cell]:
    return _table(attempts, lambda a: skill_of(a.session.task_type), fuzzy_threshold, *units)


def overall(
    attempts: Iterable[Attempt], fuzzy_threshold: float = FUZZY_THRESHOLD, *units: Any
) -> list[Cell]:
    return _table(attempts, lambda a: "all", fuzzy_threshold, *units)


def by_session_kind(
    attempts: Iterable[Attempt], fuzzy_threshold: float = FUZZY_THRESHOLD
) -> list[Cell]:
    """Success by participant and session kind (`fork`, `takeover`): reported apart, since a
    continuation of someone else's session is not its participant's own attempt."""
    return _table(attempts, lambda a: a.session.kind, fuzzy_threshold)
