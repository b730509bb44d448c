"""The screen every app screen derives from: worker failures go to one place, the app; `escape`
and quit lead the footer, so a narrow terminal (80 columns) never cuts them off."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual import on
from textual.binding import ActiveBinding
from textual.screen import Screen
from textual.worker import Worker, WorkerState

if TYPE_CHECKING:
    from crmarena_tui.app.app import CrmArenaApp


class BaseScreen(Screen):
    """A screen of this app: `arena` is the typed app; failed workers are reported, never fatal."""

    @property
    def arena(self) -> CrmArenaApp:
        return cast("CrmArenaApp", self.app)

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        """Textual's active bindings with `escape` and quit first: the footer (and the command
        palette) list them in this order, and a footer too wide for the terminal loses its tail."""
        bindings = super().active_bindings
        first = [k for k, b in bindings.items() if k == "escape" or b.binding.action == "quit"]
        first.sort(key=lambda k: k != "escape")
        return {k: bindings[k] for k in first} | {
            k: b for k, b in bindings.items() if k not in first
        }

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.arena.report_worker_error(event.worker)
            self.worker_failed(event.worker)

    def worker_failed(self, worker: Worker) -> None:
        """Hook: put the screen back in a usable state after `worker` failed (already shown)."""
