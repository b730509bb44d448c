"""Sizing a study before paying for it: the smallest difference between the experts and an agent
that a study of T tasks and K experts per task can detect (`reports.power`), as `study create`
prints it.

The agent's rate: `--agent-rate` when given; else, when the database holds graded agent attempts
on the study's tasks (a `run` or an `import` of upstream results on the same task file), their
share of wins: every agent configuration's latest attempt on each task, pooled, leaving out runs
that ended on an infrastructure error; else 0.5, the rate at which a difference is hardest to
detect (the MDE there is the largest, so the study is never sized too small by this default).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from crmarena_tui.reports.attempts import Attempt, latest_per_participant
from crmarena_tui.reports.power import ALPHA, POWER, Mde, independent_mde, paired_mde

if TYPE_CHECKING:
    from crmarena_tui.storage import Store

_AGENT_ATTEMPTS = (
    "SELECT s.id, s.task_source, s.task_idx FROM sessions s"
    " JOIN participants p ON p.id = s.participant_id"
    " WHERE p.kind = 'agent' AND s.kind = 'attempt' AND s.status = 'submitted' ORDER BY s.id"
)
HARDEST = 0.5


@dataclass(frozen=True, slots=True)
class AgentRate:
    rate: float
    source: str  # how it was found, as printed: "given", "12 of 20 ...", "none found: 0.5"


def agent_rate_on(store: Store, tasks: Iterable[tuple[str, int]]) -> tuple[int, int] | None:
    """(wins, attempts) of the agents' latest graded attempts on these tasks (each configuration's
    latest per task, infrastructure errors left out); None when there are none."""
    wanted = set(tasks)
    people = {p.id: p for p in store.participants("agent")}
    found = []
    for session_id, source, idx in store.read(_AGENT_ATTEMPTS):
        if (source, int(idx)) not in wanted:
            continue
        grade = store.grade(int(session_id))
        if grade is None:
            continue
        session = store.session(int(session_id))
        if session.participant_id in people:
            found.append(Attempt(session, people[session.participant_id], grade))
    latest = [a for a in latest_per_participant(found).values() if a.infrastructure_error is None]
    if not latest:
        return None
    return sum(a.win() for a in latest), len(latest)


def choose_agent_rate(
    given: float | None, store: Store, tasks: Iterable[tuple[str, int]]
) -> AgentRate:
    """The rate to size against, and where it came from (module docstring)."""
    if given is not None:
        return AgentRate(given, "given")
    counted = agent_rate_on(store, tasks)
    if counted is None:
        return AgentRate(
            HARDEST, "no graded agent attempt on these tasks: 0.5, where a difference is hardest "
            "to detect; pass --agent-rate"
        )  # fmt: skip
    wins, attempts = counted
    return AgentRate(
        wins / attempts,
        f"the agents' latest graded attempts on these tasks: {wins} of {attempts} correct",
    )


def sizing(
    tasks: int,
    experts: int,
    rate: AgentRate,
    *,
    discordance: float | None = None,
    agent_tasks: int | None = None,
) -> dict[str, Any]:
    """Both designs' MDE for the study, with the assumptions they rest on (JSON-ready)."""
    paired = paired_mde(tasks, rate.rate, experts=experts, discordance=discordance)
    independent = independent_mde(tasks, rate.rate, experts=experts, agent_tasks=agent_tasks)
    assumed = (
        f"discordance {discordance:g} (the share of expert-task pairs where expert and agent "
        "disagree)"
        if discordance is not None
        else "each expert independent of the agent on a task (no shared difficulty: "
        "discordance p_h(1-p_a) + p_a(1-p_h)); if they find the same tasks hard, "
        "the true MDE is smaller"
    )
    shared = (
        [
            f"the {experts} experts of a task independent of one another (with tasks of "
            "unequal difficulty they agree more and K helps less)"
        ]
        if experts > 1
        else []
    )
    return {
        "tasks": tasks,
        "experts_per_task": experts,
        "agent_rate": round(rate.rate, 4),
        "agent_rate_source": rate.source,
        "alpha": ALPHA,
        "power": POWER,
        "paired": _figures(paired),
        "independent": _figures(independent),
        "agent_tasks": tasks if agent_tasks is None else agent_tasks,
        "assumptions": [
            "two-sided test at the level, normal approximation, the task as the unit",
            f"paired (experts and agent on the same tasks): {assumed}",
            *shared,
            "independent: the agent on as many other tasks as given (--agent-tasks), the "
            "pooled rate under the null (a two-proportion z-test)",
        ],
    }


def _figures(mde: Mde) -> dict[str, float | None]:
    return {
        "up": None if mde.up is None else round(mde.up, 4),
        "down": None if mde.down is None else round(mde.down, 4),
    }


def _points(value: float | None, sign: str) -> str:
    return "none within [0, 1]" if value is None else f"{sign}{value * 100:.1f} points"


def sizing_text(found: dict[str, Any]) -> list[str]:
    """The lines `study create` prints."""
    rate = found["agent_rate"]
    paired, independent = found["paired"], found["independent"]
    return [
        f"Power: at {found['power']:.0%} power and α = {found['alpha']:g}, "
        f"{found['tasks']} tasks with {found['experts_per_task']} experts each can detect a "
        f"difference from an agent rate of {rate:.1%} ({found['agent_rate_source']}) of at least",
        f"  paired (agent on the same tasks): {_points(paired['up'], '+')} above, "
        f"{_points(paired['down'], '-')} below",
        f"  independent (agent on {found['agent_tasks']} other tasks): "
        f"{_points(independent['up'], '+')} above, {_points(independent['down'], '-')} below",
        *(f"  assumes: {a}" for a in found["assumptions"]),
    ]
