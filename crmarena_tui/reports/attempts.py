"""The unit every report counts: one graded attempt (session + participant + latest grade).

What counts as a win, in one place: reward >= 1 for exact_match and privacy_rejection; for
fuzzy_match (token F1 in [0, 1]) a reward of at least `fuzzy_threshold`, 0.5 by default, i.e. the
answer shares at least half its token-overlap F1 with the ground truth. Every report also shows the
mean reward, which needs no threshold.

An attempt that ended on an infrastructure error (a rate limit, a timeout, the org down: see
`storage.upstream_file`) says nothing about its participant: `infrastructure_error` names it, and
the report leaves such attempts out of success rates unless asked, counting them apart.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from crmarena_tui.storage.configuration import (
    org_type_of,
    session_configuration,
    split_name,
    strategy_of,
)
from crmarena_tui.tasks.catalog import BY_NAME

if TYPE_CHECKING:
    from crmarena_tui.storage import GradeRow, Participant, Session

FUZZY_THRESHOLD = 0.5


def is_win(reward: float | None, metric: str, fuzzy_threshold: float = FUZZY_THRESHOLD) -> bool:
    """A full-credit attempt: reward >= 1, or F1 >= `fuzzy_threshold` for fuzzy_match."""
    if reward is None:
        return False
    if metric == "fuzzy_match":
        return reward >= fuzzy_threshold
    return reward >= 1.0


def ran_under(session: Session) -> str:
    """The protocol `session` ran under, as `session.protocols.session_protocol` says it: the
    recorded one (`upstream` for an imported upstream run), else this project's `workbench`."""
    return "upstream" if session.protocol == "upstream" else "workbench"


@dataclass(frozen=True, slots=True)
class Attempt:
    """`who` and `split` are worked out once, when the attempt is made (every table reads them)."""

    session: Session
    participant: Participant
    grade: GradeRow | None
    who: str = field(default="", compare=False)
    split: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.who:  # the participant's configuration: what every row is per
            object.__setattr__(self, "who", session_configuration(self.participant, self.session))
        if not self.split:  # the benchmark split: org type and mode (`b2b single`, `b2c chat`)
            object.__setattr__(self, "split", split_name(org_type_of(self.session), self.mode))

    @property
    def reward(self) -> float | None:
        return None if self.grade is None else float(self.grade.reward)

    @property
    def metric(self) -> str:
        if self.grade is not None:
            return self.grade.grader
        known = BY_NAME.get(self.session.task_type)
        return (
            known.metric
            if known
            else str(self.session.task_json.get("reward_metric", "exact_match"))
        )

    @property
    def task_key(self) -> tuple[str, int]:
        """Which task this is, across participants: (task source, idx)."""
        return (self.session.task_source, self.session.task_idx)

    @property
    def strategy(self) -> str | None:
        return strategy_of(self.participant, self.session)

    @property
    def org_type(self) -> str:
        return org_type_of(self.session)

    @property
    def mode(self) -> str:
        """`single` or `chat` (a multi-turn session)."""
        return "chat" if self.session.interactive else "single"

    @property
    def no_answer(self) -> bool:
        """The grade says the answer gave no answer ("I don't know"; `metrics.no_answer`)."""
        return self.grade is not None and self.grade.metrics.get("no_answer") is True

    @property
    def infrastructure_error(self) -> str | None:
        """The infrastructure failure the attempt ended on, or None."""
        found = self.grade.metrics.get("infrastructure_error") if self.grade else None
        found = found or self.session.settings.get("infrastructure_error")
        return str(found) if found else None

    @property
    def protocol(self) -> str:
        """The grading protocol of the attempt's grade (`unknown` for grades that predate it)."""
        return (self.grade.protocol if self.grade else None) or "unknown"

    @property
    def session_protocol(self) -> str:
        """The protocol the session ran under (its agent loop)."""
        return ran_under(self.session)

    def win(self, fuzzy_threshold: float = FUZZY_THRESHOLD) -> bool:
        return is_win(self.reward, self.metric, fuzzy_threshold)


def latest_per_participant(
    attempts: Iterable[Attempt],
) -> dict[tuple[str, str, tuple[str, int]], Attempt]:
    """{(configuration, session protocol, task key): that configuration's latest graded attempt
    on the task}, so a task is counted once per configuration even when two participant rows
    share one (settings that tell no configuration apart, such as a temperature). Forks and
    take-overs continue another session: they are never a participant's attempt."""
    latest: dict[tuple[str, str, tuple[str, int]], Attempt] = {}
    for attempt in attempts:
        if not attempt.session.is_attempt:
            continue
        key = (attempt.who, ran_under(attempt.session), attempt.task_key)
        if key not in latest or attempt.session.id > latest[key].session.id:
            latest[key] = attempt
    return latest
