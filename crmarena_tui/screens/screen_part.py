"""A part of a screen (docs/ARCHITECTURE.md, "Screens and widgets"): the one way a screen too big
for one class is composed.

A part is a widget with no look of its own (`display: none`) that the screen composes beside its
visible widgets. It holds one idea's state, runs that idea's workers and handles what they post
(messages nested in the part's class); it is handed, when the screen composes it, the visible
widgets it drives, and never looks them up in the screen. It tells the screen and the other parts
what happened by messages nested in its class, which bubble to the screen; the screen routes them
(and its widgets' events) to the parts. The app's services come through `arena`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from textual import on
from textual.message import Message
from textual.widget import Widget
from textual.worker import Worker, WorkerState

if TYPE_CHECKING:
    from crmarena_tui.screens.arena import Arena


class ScreenPart(Widget):
    """One part of a screen: state and workers, no rendering."""

    DEFAULT_CSS = "ScreenPart { display: none; }"

    @dataclass
    class Failed(Message):
        """A worker of `part` failed (already reported): its `group` and `error`, for the
        screen to put itself back in a usable state."""

        part: ScreenPart
        group: str | None
        error: BaseException | None

        @property
        def control(self) -> ScreenPart:
            return self.part

    @property
    def arena(self) -> Arena:
        return cast("Arena", self.app)

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        # a worker's state goes to the widget that runs it, not up to the screen (BaseScreen)
        if event.state == WorkerState.ERROR:
            worker = event.worker
            self.arena.report_worker_error(worker)
            self.worker_failed(worker)
            self.post_message(self.Failed(self, worker.group, worker.error))

    def worker_failed(self, worker: Worker) -> None:
        """Hook: put the part back in a usable state after `worker` failed (already shown)."""
