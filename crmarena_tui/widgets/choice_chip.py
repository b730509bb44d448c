"""A one-line choice among a few options, stepped through in place: where textual's `Select` is
more than the choice needs. A `Select` mounts a current-value widget and an overlay list; two of
them cost more to mount than the rest of the sessions screen (about 25 ms each, against one line
drawn here), on every opening of the screen.

Keys while focused: `enter`, `space` or `right` (or a click) steps to the next option, after the
last back to the prompt (no choice); `left` steps back; `backspace` or `delete` clears it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget


class ChoiceChip(Widget, can_focus=True):
    """`options` are (label, value) pairs; `prompt` is shown when none is chosen (`value` "")."""

    DEFAULT_CSS = """
    ChoiceChip {
        height: 1;
        width: auto;
        padding: 0 1;
        background: $boost;
        color: $text-muted;
    }
    ChoiceChip.-chosen {
        color: $text;
    }
    ChoiceChip:focus {
        background: $block-cursor-background;
        color: $block-cursor-foreground;
        text-style: bold;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space,right", "step(1)", "Next choice", show=False, id="choice-chip.next"),
        Binding("left", "step(-1)", "Previous choice", show=False, id="choice-chip.previous"),
        Binding("backspace,delete", "clear", "No choice", show=False, id="choice-chip.clear"),
    ]

    @dataclass
    class Changed(Message):
        chip: ChoiceChip
        value: str

        @property
        def control(self) -> ChoiceChip:
            return self.chip

    def __init__(
        self,
        options: Sequence[tuple[str, str]],
        *,
        prompt: str,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.options = [("", prompt), *((value, label) for label, value in options)]
        self._at = 0
        self.tooltip = "enter/space: next choice · left: previous · backspace: none"

    @property
    def value(self) -> str:
        return self.options[self._at][0]

    @value.setter
    def value(self, value: str) -> None:
        at = next((k for k, (v, _label) in enumerate(self.options) if v == value), None)
        if at is None:
            raise ValueError(f"{value!r} is not one of the choices")
        self._choose(at)

    def is_blank(self) -> bool:
        return self._at == 0

    def clear(self) -> None:
        self._choose(0)

    def action_step(self, by: int) -> None:
        self._choose((self._at + by) % len(self.options))

    def action_clear(self) -> None:
        self.clear()

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_step(1)

    def _choose(self, at: int) -> None:
        if at == self._at:
            return
        self._at = at
        self.set_class(at != 0, "-chosen")
        self.refresh()  # (one width for every label: no layout)
        self.post_message(self.Changed(self, self.value))

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return max(len(label) for _value, label in self.options) + 4

    def render(self) -> Text:
        return Text(f"◂ {self.options[self._at][1]} ▸")
