"""Asked when `escape` in the workspace's editor would leave the task: `enter` (or `y`) leaves,
the session paused; `escape` (or `n`) stays. Any other key stays here and is refused in words,
so a key typed after one `escape` too many never goes to the task browser's filter."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static

ASK = "enter leaves (the session is paused: it resumes where you left it) · escape stays"


class LeaveDialog(ModalScreen[bool]):
    """Dismisses with True to leave the task, False to stay."""

    DEFAULT_CSS = """
    LeaveDialog { align: center middle; }
    LeaveDialog > #leave-box {
        width: 64; max-width: 100%; height: auto; padding: 1 2;
        border: thick $warning; background: $surface;
    }
    LeaveDialog #leave-refused { color: $warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,y", "leave", "Leave", id="leave-dialog.leave"),
        Binding("escape,n", "stay", "Stay", id="leave-dialog.stay"),
    ]

    def __init__(self, heading: str) -> None:
        super().__init__()
        self.heading = heading

    def compose(self) -> ComposeResult:
        with Vertical(id="leave-box"):
            yield Label("[b]Leave this task?[/]")
            yield Static(self.heading)  # markup, the task's text escaped (BlindView.heading)
            yield Static(ASK)
            yield Static("", id="leave-refused")

    def on_key(self, event: events.Key) -> None:
        if event.key not in self.active_bindings:  # (its keys as the keymap maps them)
            event.stop()
            shown = event.character if event.is_printable else event.key
            self.query_one("#leave-refused", Static).update(
                f"{shown!r} was not applied: the task is not left yet. {ASK}."
            )

    def action_leave(self) -> None:
        self.dismiss(True)

    def action_stay(self) -> None:
        self.dismiss(False)
