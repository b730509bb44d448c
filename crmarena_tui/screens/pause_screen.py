"""The pause overlay: hides the task and the org completely until the participant goes on.

Three kinds: `manual` (f6 in the workspace), `idle` (the workspace paused itself after a while
without a key or mouse input) and `start` (the next task after `n` on the result screen: its
clock starts with the first key pressed here; escape goes back to the tasks without starting).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Literal

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from crmarena_tui.widgets.key_footer import KeyFooter

PauseKind = Literal["manual", "idle", "start"]


class PauseScreen(ModalScreen[bool]):
    """Opaque: nothing of the workspace shows through. Dismisses with True to go on working,
    False to leave the task (`start` only). `manual`: f6 or enter resumes; `idle` and `start`:
    any key or click does."""

    DEFAULT_CSS = """
    PauseScreen { align: center middle; background: $background; }
    PauseScreen > #pause-box { width: 60; height: auto; padding: 1 2; border: round $warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f6", "resume", "Resume", id="pause.resume"),
        Binding("enter", "resume", "Resume", show=False, id="pause.resume-enter"),
        Binding("escape", "leave", "Back to tasks", id="pause.leave"),
    ]

    def __init__(
        self,
        kind: PauseKind = "manual",
        *,
        heading: str = "",
        idle_minutes: float = 0,
        on_go: Callable[[], None] | None = None,
    ):
        """`heading`: the next task's title (`start`); `idle_minutes`: how long without input
        paused it (`idle`); `on_go`: called as the key that goes on is read, before the screen
        closes (`start`: the keys typed next wait for the session)."""
        super().__init__()
        self.on_go = on_go
        self.kind: PauseKind = kind
        self.heading = heading
        self.idle_minutes = idle_minutes

    def compose(self) -> ComposeResult:
        with Vertical(id="pause-box"):
            if self.kind == "start":
                yield Label(f"[b]Next:[/] {self.heading}")
                yield Static(
                    "Its clock starts when you press a key. Press any key to start, or escape "
                    "to go back to the tasks."
                )
            elif self.kind == "idle":
                minutes = f"{self.idle_minutes:g} minute{'' if self.idle_minutes == 1 else 's'}"
                yield Label("[b]Paused: no input[/]")
                yield Static(
                    f"No key or mouse input for {minutes}: the clock stopped and the task is "
                    "hidden. Press any key to go on."
                )
            else:
                yield Label("[b]Paused[/]")
                yield Static(
                    "The clock is stopped and the task is hidden. Press f6 or enter to resume."
                )
        yield KeyFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "leave":
            return self.kind == "start"  # elsewhere escape does nothing while paused
        return True

    def on_key(self, event: events.Key) -> None:
        if self.kind != "manual" and event.key != "escape":
            event.stop()
            self._go()

    def on_click(self) -> None:
        if self.kind != "manual":
            self._go()

    def action_resume(self) -> None:
        self._go()

    def _go(self) -> None:
        if self.on_go is not None:
            self.on_go()
            self.on_go = None
        self.dismiss(True)

    def action_leave(self) -> None:
        if self.kind == "start":
            self.dismiss(False)
