"""Confirm and submit the final answer: the input is focused, `enter` submits, `escape` cancels."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static


class SubmitDialog(ModalScreen[str | None]):
    """Dismisses with the answer text, or None when cancelled."""

    DEFAULT_CSS = """
    SubmitDialog { align: center middle; }
    SubmitDialog > #submit-box {
        width: 80; height: auto; padding: 1 2; border: thick $accent; background: $surface;
    }
    SubmitDialog #submit-warning { color: $warning; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="submit-dialog.cancel")
    ]

    def __init__(self, draft: str = "", *, interactive: bool = False) -> None:
        super().__init__()
        self.draft = draft
        self.interactive = interactive

    def compose(self) -> ComposeResult:
        with Vertical(id="submit-box"):
            yield Label("[b]Submit your final answer[/]")
            hint = (
                "Your final answer to the customer (an Id, a state, a month, or a short "
                "text, as the task asks)."
                if self.interactive
                else "An Id, a state, a month, a list, or a short text, as the task asks."
            )
            yield Static(hint)
            yield Input(self.draft, placeholder="answer", id="answer")
            yield Static(
                "enter submits: this is final and ends the session · escape cancels",
                id="submit-warning",
            )

    def on_mount(self) -> None:
        self.query_one("#answer", Input).focus()

    @on(Input.Submitted, "#answer")
    def _submit(self, event: Input.Submitted) -> None:
        event.stop()
        answer = event.value.strip()
        if not answer:
            self.notify("An empty answer cannot be submitted.", severity="warning")
            return
        self.dismiss(answer)

    def action_cancel(self) -> None:
        self.dismiss(None)
