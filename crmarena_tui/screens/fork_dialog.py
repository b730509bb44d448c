"""Choose who continues a session forked from one of its steps: yourself in the workspace, or an
agent (the reference agent, or a model string). The trajectory viewer makes the fork.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option


@dataclass(frozen=True)
class ForkChoice:
    """`mode` "human" (you, in the workspace) or "agent" (`agent` is "reference" or a model)."""

    mode: str
    agent: str = ""


class ForkDialog(ModalScreen[ForkChoice | None]):
    """Choose who continues the session after the step."""

    DEFAULT_CSS = """
    ForkDialog { align: center middle; }
    ForkDialog > #fork-box {
        width: 76; height: auto; padding: 1 2; border: thick $accent; background: $surface;
    }
    ForkDialog #fork-options { height: auto; margin: 1 0; }
    ForkDialog #fork-hint { color: $text-muted; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="fork-dialog.cancel")
    ]

    def __init__(self, target: str, default_model: str = "") -> None:
        super().__init__()
        self.target = target
        self.default_model = default_model

    def compose(self) -> ComposeResult:
        with Vertical(id="fork-box"):
            yield Label(f"[b]Fork {escape(self.target)}[/]")
            yield Static(
                "The new session starts with every event up to this step and continues "
                "from there; the original stays as it is."
            )
            yield OptionList(
                Option("Continue as me, in the workspace", id="human"),
                Option("Continue as the reference agent", id="reference"),
                Option("Continue as a model (type it below)", id="model"),
                id="fork-options",
            )
            yield Input(
                self.default_model,
                placeholder="model, e.g. gpt-4o or ollama/llama3",
                id="fork-model",
            )
            yield Static("enter: choose · escape: cancel", id="fork-hint")

    def on_mount(self) -> None:
        options = self.query_one("#fork-options", OptionList)
        options.highlighted = 0
        options.focus()

    @on(OptionList.OptionSelected, "#fork-options")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        choice = str(event.option.id)
        if choice == "human":
            self.dismiss(ForkChoice("human"))
        elif choice == "reference":
            self.dismiss(ForkChoice("agent", "reference"))
        else:
            self.query_one("#fork-model", Input).focus()

    @on(Input.Submitted, "#fork-model")
    def _model(self, event: Input.Submitted) -> None:
        event.stop()
        model = event.value.strip()
        if not model:
            self.notify("Type a model name first.", severity="warning")
            return
        self.dismiss(ForkChoice("agent", model))

    def action_cancel(self) -> None:
        self.dismiss(None)
