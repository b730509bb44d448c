"""A cell or a whole row, in full: long text wrapped, scrollable with the keyboard, copyable.

Opened by `enter` on a text cell or `v` on a row of any results table. It shows plain text (no
markup), so brackets and JSON read as they are.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


class TextDetail(ModalScreen[None]):
    """`title` above `body`; `escape` closes, `c` copies the text."""

    DEFAULT_CSS = """
    TextDetail { align: center middle; }
    TextDetail > #detail-box {
        width: 90%; height: 80%; padding: 0 1; border: thick $accent; background: $surface;
    }
    TextDetail #detail-title { height: auto; text-style: bold; }
    TextDetail #detail-scroll { height: 1fr; }
    TextDetail #detail-scroll:focus { background-tint: $foreground 3%; }
    TextDetail #detail-hint { height: 1; color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="text-detail.close"),
        Binding("c", "copy", "Copy", id="text-detail.copy"),
    ]

    def __init__(self, title: str, body: str) -> None:
        super().__init__()
        self.title_text = title
        self.body = body

    def compose(self) -> ComposeResult:
        with Vertical(id="detail-box"):
            yield Static(Text(self.title_text), id="detail-title")
            with VerticalScroll(id="detail-scroll"):
                yield Static(Text(self.body), id="detail-body")
            yield Static("up/down/pgup/pgdn scroll · c copies · escape closes", id="detail-hint")

    def on_mount(self) -> None:
        self.query_one("#detail-scroll").focus()

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.body)
        self.notify(f"Copied {len(self.body):,} characters.")

    def action_close(self) -> None:
        self.dismiss(None)
