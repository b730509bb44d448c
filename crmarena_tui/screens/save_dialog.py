"""Ask where to save a file: the path input is focused with a proposal; `enter` saves."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static


class SaveDialog(ModalScreen[str | None]):
    """Dismisses with the path typed (stripped, non-empty), or None when cancelled."""

    DEFAULT_CSS = """
    SaveDialog { align: center middle; }
    SaveDialog > #save-box {
        width: 90; height: auto; padding: 1 2; border: thick $accent; background: $surface;
    }
    SaveDialog #save-hint { color: $text-muted; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="save-dialog.cancel")
    ]

    def __init__(self, what: str, proposal: str) -> None:
        super().__init__()
        self.what = what
        self.proposal = proposal

    def compose(self) -> ComposeResult:
        with Vertical(id="save-box"):
            yield Label(Text(f"Save {self.what}", style="bold"))
            yield Input(self.proposal, placeholder="file path", id="save-path")
            yield Static(
                "a name ending in .csv is written as CSV, any other as TSV · enter saves · "
                "escape cancels",
                id="save-hint",
            )

    def on_mount(self) -> None:
        self.query_one("#save-path", Input).focus()

    @on(Input.Submitted, "#save-path")
    def _done(self, event: Input.Submitted) -> None:
        event.stop()
        path = event.value.strip()
        if not path:
            self.notify("Give a file name to save to.", severity="warning")
            return
        self.dismiss(path)

    def action_cancel(self) -> None:
        self.dismiss(None)
