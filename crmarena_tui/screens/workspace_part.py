"""What every part of the workspace shares (docs/ARCHITECTURE.md, "The workspace").

A part (query, results, scratch, submit, chat, clock) is a widget without a look of its own
(`display: none`): it holds its state, runs its workers and handles what they post, and reads the
screen's episode. The visible widgets it drives (the editor, the results, the scratch pane...) are
laid out by the screen, which hands their events to the part; a part tells the screen and the
other parts what happened by messages, which bubble to the screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from textual import on
from textual.message import Message
from textual.widget import Widget
from textual.worker import Worker, WorkerState

if TYPE_CHECKING:
    from crmarena_tui.app.app import CrmArenaApp
    from crmarena_tui.screens.workspace import Workspace
    from crmarena_tui.session.episode import Episode
    from crmarena_tui.tasks.model import Task


@dataclass
class StateNoted(Message):
    """A part has something to say on the workspace's state line (markup, shown dimmed)."""

    text: str


class WorkspacePart(Widget):
    """One part of the workspace: state and workers, no rendering."""

    DEFAULT_CSS = "WorkspacePart { display: none; }"

    @property
    def workspace(self) -> Workspace:
        return cast("Workspace", self.screen)

    @property
    def arena(self) -> CrmArenaApp:
        return cast("CrmArenaApp", self.app)

    @property
    def task_row(self) -> Task:
        return self.workspace.task_row

    @property
    def episode(self) -> Episode | None:
        return self.workspace.episode

    def note(self, text: str) -> None:
        """Put `text` on the workspace's state line."""
        self.post_message(StateNoted(text))

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        # a worker's state goes to the widget that runs it, not up to the screen (BaseScreen)
        if event.state == WorkerState.ERROR:
            self.arena.report_worker_error(event.worker)
            self.worker_failed(event.worker)

    def worker_failed(self, worker: Worker) -> None:
        """Hook: put the part back in a usable state after `worker` failed (already shown)."""
