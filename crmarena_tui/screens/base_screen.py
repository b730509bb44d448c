"""The screen every app screen derives from: worker failures go to one place, the app."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual import on
from textual.screen import Screen
from textual.worker import Worker, WorkerState

if TYPE_CHECKING:
    from crmarena_tui.app import CrmArenaApp


class BaseScreen(Screen):
    """A screen of this app: `arena` is the typed app; failed workers are reported, never fatal."""

    @property
    def arena(self) -> CrmArenaApp:
        return cast("CrmArenaApp", self.app)

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.arena.report_worker_error(event.worker)
            self.worker_failed(event.worker)

    def worker_failed(self, worker: Worker) -> None:
        """Hook: put the screen back in a usable state after `worker` failed (already shown)."""
