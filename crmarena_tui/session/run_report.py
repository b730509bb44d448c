"""What a batch run (`session/runner.py`) reports: each attempt's `TaskResult` (its outcome,
session, reward, steps) and the `RunReport` of them all, whose `summary` `crmarena-tui run`
prints: reward by task type and overall, and the outcomes counted per attempt (tasks x trials)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from crmarena_tui.tasks.model import Task

# held: another run (or MCP client) held the attempt's lease the whole time this run wanted it
Outcome = Literal["submitted", "skipped", "unfinished", "failed", "not_started", "held"]


@dataclass(slots=True)
class TaskResult:
    task: Task
    outcome: Outcome
    trial: int = 1  # which of the configuration's attempts at the task (RunOptions.trials)
    session_id: int | None = None
    reward: float | None = None
    steps: int = 0
    resumed: bool = False
    error: str | None = None
    seconds: float = 0.0
    end_reason: str | None = None  # why an episode ended unconfirmed ("Max turns reached", ...)


@dataclass(slots=True)
class RunReport:
    agent: str
    results: list[TaskResult] = field(default_factory=list)
    interrupted: bool = False
    trials: int = 1

    @property
    def complete(self) -> bool:
        """Every attempt (task and trial) has a submitted session (new or from an earlier run)."""
        return not self.interrupted and all(
            r.outcome in ("submitted", "skipped") for r in self.results
        )

    def summary(self) -> dict[str, Any]:
        """Reward by task type (graded attempts only: with trials, every trial counts once)
        and overall, with outcome counts (of attempts: tasks x trials)."""
        by_type: dict[str, list[float]] = {}
        for r in self.results:
            by_type.setdefault(r.task.task, [])
            if r.reward is not None:
                by_type[r.task.task].append(r.reward)
        rows = {
            t: {"n": len(v), "mean": (sum(v) / len(v)) if v else None}
            for t, v in sorted(by_type.items())
        }
        graded = [x for v in by_type.values() for x in v]
        counts: dict[str, int] = {}
        for r in self.results:
            key = "resumed" if r.resumed and r.outcome == "submitted" else r.outcome
            counts[key] = counts.get(key, 0) + 1
        return {
            "agent": self.agent,
            "tasks": len({r.task.key for r in self.results}),
            "trials": self.trials,
            "attempts": len(self.results),
            "interrupted": self.interrupted,
            "by_task": rows,
            "overall": {"n": len(graded), "mean": (sum(graded) / len(graded)) if graded else None},
            "outcomes": counts,
            "failures": [
                {"task": r.task.key, "trial": r.trial, "error": r.error}
                for r in self.results
                if r.error
            ],
            "end_reasons": dict(
                sorted(Counter(r.end_reason for r in self.results if r.end_reason).items())
            ),
        }
