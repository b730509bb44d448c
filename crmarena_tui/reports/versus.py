"""Human against agent on the tasks both attempted: who solved what.

Each participant's latest graded attempt on a task counts; a task is shared by a (human, agent)
pair when both attempted it (same task source and idx). Wins follow `attempts.is_win`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from crmarena_tui.reports.attempts import FUZZY_THRESHOLD, Attempt, latest_per_participant


@dataclass(frozen=True, slots=True)
class HeadToHead:
    human: str
    agent: str
    shared: int
    human_only: int
    agent_only: int
    both: int
    neither: int
    protocols: str = "unknown"  # the grading protocols of the rewards compared

    def row(self) -> dict:
        return {
            "human": self.human,
            "agent": self.agent,
            "protocols": self.protocols,
            "shared_tasks": self.shared,
            "human_only": self.human_only,
            "agent_only": self.agent_only,
            "both": self.both,
            "neither": self.neither,
        }


def head_to_head(
    attempts: Iterable[Attempt], fuzzy_threshold: float = FUZZY_THRESHOLD
) -> list[HeadToHead]:
    """One row per (human, agent) pair that share at least one task."""
    by_task: dict[tuple[str, int], dict[str, list[Attempt]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for attempt in latest_per_participant(attempts).values():
        by_task[attempt.task_key][attempt.participant.kind].append(attempt)
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    protocols: dict[tuple[str, str], set[str]] = defaultdict(set)
    for sides in by_task.values():
        for human in sides.get("human", []):
            for agent in sides.get("agent", []):
                h, a = human.win(fuzzy_threshold), agent.win(fuzzy_threshold)
                slot = 2 if h and a else 0 if h else 1 if a else 3
                counts[(human.who, agent.who)][slot] += 1
                protocols[(human.who, agent.who)].update((human.protocol, agent.protocol))
    return [
        HeadToHead(h, a, sum(c), c[0], c[1], c[2], c[3], " + ".join(sorted(protocols[(h, a)])))
        for (h, a), c in sorted(counts.items())
    ]
