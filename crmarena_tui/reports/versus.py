"""Human against agent on the tasks both attempted: who solved what.

Each participant's latest graded attempt on a task counts; a task is shared by a (human, agent)
pair when both attempted it (same task source and idx). Wins follow `attempts.is_win`.
"""

from __future__ import annotations

from dataclasses import dataclass


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
