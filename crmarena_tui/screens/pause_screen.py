"""The pause overlay: hides the task and the org completely until the participant resumes."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, Static


class PauseScreen(ModalScreen[None]):
    """Opaque: nothing of the workspace shows through. `f6` or `enter` resumes."""

    DEFAULT_CSS = """
    PauseScreen { align: center middle; background: $background; }
    PauseScreen > #pause-box { width: 50; height: auto; padding: 1 2; border: round $warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f6", "resume", "Resume", id="pause.resume"),
        Binding("enter", "resume", "Resume", show=False, id="pause.resume-enter"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="pause-box"):
            yield Label("[b]Paused[/]")
            yield Static(
                "The clock is stopped and the task is hidden. Press f6 or enter to resume."
            )
        yield Footer(compact=True)

    def action_resume(self) -> None:
        self.dismiss(None)
