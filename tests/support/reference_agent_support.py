"""Helpers for the reference agent tests: play a task on the real Episode, LocalOrg and Store."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crmarena_tui.agents.agent import AgentStep
from crmarena_tui.agents.reference import ReferenceAgent
from crmarena_tui.agents.user_scripted import ScriptedUser
from crmarena_tui.session.episode import Episode
from crmarena_tui.storage import Store
from crmarena_tui.storage.models import SessionSpec
from crmarena_tui.tasks.model import Task


@dataclass
class Played:
    episode: Episode
    steps: list[AgentStep] = field(default_factory=list)

    @property
    def last(self) -> AgentStep:
        return self.steps[-1]

    @property
    def answer(self) -> str:
        return self.last.text

    @property
    def reward(self) -> float:
        return self.last.grade.reward if self.last.grade is not None else 0.0

    @property
    def queries(self) -> list[str]:
        return [e.text for e in self.episode.events if e.kind in ("query", "search")]


class Player:
    """One store and one participant for many attempts."""

    def __init__(self, db: Path) -> None:
        self.store = Store(db, durability="normal")  # the attempts, not their fsyncs, are tested
        self.agent = ReferenceAgent()
        self.participant = self.store.participant(
            "agent", self.agent.name, model=self.agent.model, settings=self.agent.settings()
        )

    def start(self, task: Task, org: Any, user: Any = None) -> Episode:
        if user is None and task.interactive:
            user = ScriptedUser()
        return Episode.start(
            self.store,
            SessionSpec(task, org, self.participant, settings=self.agent.settings()),
            user=user,
            resume=False,
        )

    def play(self, task: Task, org: Any, user: Any = None) -> Played:
        played = Played(self.start(task, org, user))
        for step in self.agent.steps(played.episode):
            played.steps.append(step)
        return played

    def close(self) -> None:
        self.store.close()
