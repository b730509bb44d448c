"""Write a free-text note about a step or a session (saved as an annotation of kind `note`, signed
by its annotator)."""

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
    from crmarena_tui.storage.models import Annotation
    from crmarena_tui.storage.store import Store


def add_note(
    store: Store, session_id: int, annotator: str, text: str, about_seq: int | None
) -> Annotation:
    """Blocking: a note on the session, about event `about_seq` (None: the whole session).

    A note is an annotation of kind `note`: beside the labels, never counted as one in the label
    counts or the annotator agreement, hidden like them in hidden-labels mode, and outside the
    session's own log (the trajectory stays what the participant did)."""
    return store.annotations.add(
        session_id, "", text, annotator=annotator, event_seq=about_seq, kind="note"
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
