"""Small protocols shared by the agents and the Episode."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from crmarena_tui.storage.end_reason import STOP as STOP  # (the word lives with the end reasons)
from crmarena_tui.tasks.model import Task


@runtime_checkable
class UserSimulator(Protocol):
    """Plays the user in multi-turn tasks. It sees the task's real query and persona; the agent
    sees only what it says. It must be able to pick up a conversation from its history alone, so
    that a session resumed after its process died continues where it stopped."""

    name: str

    def opening(self, task: Task) -> str:
        """The user's first message."""
        ...

    def reply(self, task: Task, history: list[dict[str, str]]) -> str:
        """The next user message given `history` (`{"role": "agent"|"user", "content": ...}`, oldest
        first, ending with the agent's latest message), or exactly `STOP` to end the dialogue."""
        ...
