"""Write a free-text note about a step or a session (saved as a note event naming its annotator)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

if TYPE_CHECKING:
    from crmarena_tui.storage.models import Event
    from crmarena_tui.storage.store import Store


def add_note(
    store: Store, session_id: int, annotator: str, text: str, about_seq: int | None
) -> Event:
    """Blocking: a note event on the session, about event `about_seq` (None: the session).

    Notes are events (kind `note`) rather than annotations, so that they never count as a label
    in the label counts or the annotator agreement; `annotator` lets hidden-labels mode hide them."""
    return store.append_event(
        session_id, "human", "note", {"text": text, "annotator": annotator, "about_seq": about_seq}
    )


class NoteDialog(ModalScreen[str | None]):
    """Dismisses with the note text (stripped, non-empty), or None when cancelled."""

    DEFAULT_CSS = """
    NoteDialog { align: center middle; }
    NoteDialog > #note-box {
        width: 80; height: auto; padding: 1 2; border: thick $accent; background: $surface;
    }
    NoteDialog #note-hint { color: $text-muted; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="note-dialog.cancel")
    ]

    def __init__(self, target: str) -> None:
        super().__init__()
        self.target = target

    def compose(self) -> ComposeResult:
        with Vertical(id="note-box"):
            yield Label(f"[b]Note on {escape(self.target)}[/]")
            yield Input(placeholder="your note", id="note-text")
            yield Static("enter saves · escape cancels", id="note-hint")

    def on_mount(self) -> None:
        self.query_one("#note-text", Input).focus()

    @on(Input.Submitted, "#note-text")
    def _done(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if not text:
            self.notify("An empty note is not saved.", severity="warning")
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)
