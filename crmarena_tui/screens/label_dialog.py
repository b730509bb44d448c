"""Pick a failure-mode label from the taxonomy (settings) for a step or a whole session, with an
optional note. A label the annotator already gave the target is ticked; choosing it removes it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store


@dataclass(frozen=True)
class LabelChoice:
    """`remove`: the annotator chose a label they had already given (take it back)."""

    label: str
    note: str = ""
    remove: bool = False


def apply_label(
    store: Store, session_id: int, annotator: str, choice: LabelChoice, event_seq: int | None
) -> None:
    """Blocking: add the label, or (`choice.remove`) take back the annotator's labels of that
    name on the target (the step's event, or the session when `event_seq` is None)."""
    if choice.remove:
        for a in store.annotations.find(session_id=session_id, annotator=annotator):
            if a.label == choice.label and a.event_seq == event_seq:
                store.annotations.remove(a.id)
    else:
        store.annotations.add(
            session_id, choice.label, choice.note, annotator=annotator, event_seq=event_seq
        )


class LabelDialog(ModalScreen[LabelChoice | None]):
    """`enter` on a label applies it (with the note typed below); `escape` cancels."""

    DEFAULT_CSS = """
    LabelDialog { align: center middle; }
    LabelDialog > #label-box {
        width: 72; height: auto; max-height: 90%; padding: 1 2; border: thick $accent;
        background: $surface;
    }
    LabelDialog #label-options { height: auto; max-height: 18; margin: 1 0; }
    LabelDialog #label-note { margin-top: 0; }
    LabelDialog #label-hint { color: $text-muted; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="label-dialog.cancel"),
        Binding("tab", "switch", "Label/note", show=False, id="label-dialog.switch"),
    ]

    def __init__(self, taxonomy: list[str], target: str, mine: set[str] | None = None) -> None:
        super().__init__()
        self.taxonomy = list(dict.fromkeys(t for t in taxonomy if t.strip()))
        self.target = target
        self.mine = set(mine or ())

    def compose(self) -> ComposeResult:
        with Vertical(id="label-box"):
            yield Label(f"[b]Label {escape(self.target)}[/]")
            yield OptionList(
                *[
                    Option(("✓ " if t in self.mine else "  ") + escape(t), id=t)
                    for t in self.taxonomy
                ],
                id="label-options",
            )
            yield Input(placeholder="note (optional): what went wrong, where", id="label-note")
            yield Static(
                "enter: apply the label · ✓ a label you gave: enter removes it · "
                "tab: note · escape: cancel",
                id="label-hint",
            )

    def on_mount(self) -> None:
        options = self.query_one("#label-options", OptionList)
        options.highlighted = 0 if self.taxonomy else None
        options.focus()

    def action_switch(self) -> None:
        options = self.query_one("#label-options", OptionList)
        note = self.query_one("#label-note", Input)
        (note if options.has_focus else options).focus()

    @on(OptionList.OptionSelected, "#label-options")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._apply(str(event.option.id))

    @on(Input.Submitted, "#label-note")
    def _note_done(self, event: Input.Submitted) -> None:
        event.stop()
        options = self.query_one("#label-options", OptionList)
        if options.highlighted is not None:
            self._apply(self.taxonomy[options.highlighted])

    def _apply(self, label: str) -> None:
        note = self.query_one("#label-note", Input).value.strip()
        self.dismiss(LabelChoice(label, note, remove=label in self.mine))

    def action_cancel(self) -> None:
        self.dismiss(None)
