"""Asked once, on the first run: the participant's name (saved for next time)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static


class NameDialog(ModalScreen[str]):
    """Dismisses with a non-empty name."""

    DEFAULT_CSS = """
    NameDialog { align: center middle; }
    NameDialog > #name-box {
        width: 64; height: auto; padding: 1 2; border: thick $accent; background: $surface;
    }
    """

    def compose(self) -> ComposeResult:
        with Vertical(id="name-box"):
            yield Label("[b]Welcome to crmarena-tui[/]")
            yield Static(
                "Your name labels your sessions in the results. It is asked once and "
                "saved in the config file; `--as NAME` overrides it."
            )
            yield Input(placeholder="your name", id="name")

    def on_mount(self) -> None:
        self.query_one("#name", Input).focus()

    @on(Input.Submitted, "#name")
    def _done(self, event: Input.Submitted) -> None:
        event.stop()
        name = " ".join(event.value.split())
        if name:
            self.dismiss(name)
