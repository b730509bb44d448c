"""What every part of the workspace shares (docs/ARCHITECTURE.md, "The workspace").

A part (opening, query, results, scratch, submit, chat, clock) is a `ScreenPart`: it holds its
state, runs its workers and handles what they post. The workspace composes each with the shared
`WorkspaceState` (the task, and the episode once open) and the visible widgets it drives; a part
tells the screen and the other parts what happened by messages, which bubble to the screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

from crmarena_tui.screens.screen_part import ScreenPart

if TYPE_CHECKING:
    from crmarena_tui.orgs.schema import Schema
    from crmarena_tui.session.episode import Episode
    from crmarena_tui.tasks.model import Task


@dataclass
class WorkspaceState:
    """What the workspace's parts share: the task, and once open its episode and schema."""

    task: Task
    episode: Episode | None = None
    schema: Schema | None = None
    open_error: str | None = None  # why the session could not open (nothing works)
    time_up: bool = False  # a study's time limit ended the session: nothing more goes in

    @property
    def accepting(self) -> bool:
        """Whether a query, computation, message or answer may still go in."""
        episode = self.episode
        return episode is not None and not episode.finished and not self.time_up


class WorkspacePart(ScreenPart):
    """One part of the workspace, sharing `state` with the others."""

    @dataclass
    class Noted(Message):
        """The part has something to say on the workspace's state line (markup, dimmed)."""

        text: str

    def __init__(self, state: WorkspaceState, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state = state

    @property
    def task_row(self) -> Task:
        return self.state.task

    @property
    def episode(self) -> Episode | None:
        return self.state.episode

    def note(self, text: str) -> None:
        """Put `text` on the workspace's state line."""
        self.post_message(self.Noted(text))

    def not_open(self) -> None:
        """Say why nothing runs yet: the session is opening, or it could not open."""
        if self.state.open_error is not None:
            self.notify(
                f"The session could not open: {self.state.open_error} "
                "(escape goes back to the tasks)",
                severity="error",
            )
        else:
            self.notify("The session is still opening.", severity="warning")
