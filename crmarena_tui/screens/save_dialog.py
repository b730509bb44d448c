"""Ask where to save a file: the path input is focused with a proposal; `enter` saves. A path
the caller refuses (`check` raises `SaveRefused`) is said and the dialog stays; an existing file
is replaced only after a second `enter` on the same path (issue 38)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.markup import escape
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from crmarena_tui.scratch.save_target import SaveRefused

HINT = "a name ending in .csv is written as CSV, any other as TSV · enter saves · escape cancels"


@dataclass(frozen=True)
class SaveChoice:
    """Where to save, and whether an existing file there may be replaced."""

    path: Path
    overwrite: bool = False


class SaveDialog(ModalScreen[SaveChoice | None]):
    """Dismisses with the `SaveChoice`, or None when cancelled. `check` turns what was typed
    into the file to write (or raises `SaveRefused`)."""

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

    def __init__(
        self, what: str, proposal: str, check: Callable[[str], Path], where: str = ""
    ) -> None:
        super().__init__()
        self.what = what
        self.proposal = proposal
        self.check = check
        self.where = where
        self._asked: Path | None = None  # the existing file the last enter asked about

    def compose(self) -> ComposeResult:
        with Vertical(id="save-box"):
            yield Label(Text(f"Save {self.what}", style="bold"))
            yield Input(self.proposal, placeholder="file path", id="save-path", max_length=1000)
            hint = f"saved into {self.where} · {HINT}" if self.where else HINT
            yield Static(Text(hint), id="save-hint")

    def on_mount(self) -> None:
        self.query_one("#save-path", Input).focus()

    @on(Input.Submitted, "#save-path")
    def _done(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            target = self.check(event.value)
        except SaveRefused as exc:
            self.notify(str(exc).capitalize() + ".", severity="warning", markup=False)
            return
        if target.exists() or target.is_symlink():
            if self._asked != target:
                self._asked = target
                self.query_one("#save-hint", Static).update(
                    f"[b yellow]{escape(str(target))} exists:[/] enter again replaces it,"
                    " escape keeps it"
                )
                return
            self.dismiss(SaveChoice(target, overwrite=True))
            return
        self.dismiss(SaveChoice(target))

    def action_cancel(self) -> None:
        self.dismiss(None)
