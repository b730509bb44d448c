"""`f1`: the keys of the screen it was opened on, each with what it does, in a box over it.

The list is the screen's bindings as they are at that moment (its own, the focused widget's and
the app's, under the `keymap` setting and the browser's keys when served), shown or not in the
footer: a key the footer had no room for is here. `escape` or `f1` closes it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, ClassVar

from rich.markup import escape
from rich.table import Table
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.screen import Screen


def screen_name(screen: Screen) -> str:
    """`TaskBrowser` -> "task browser"."""
    return re.sub(r"(?<!^)(?=[A-Z])", " ", type(screen).__name__).lower()


class KeysScreen(ModalScreen[None]):
    """The keys of `screen`, listed."""

    DEFAULT_CSS = """
    KeysScreen {
        align: center middle;
    }
    KeysScreen #keys-box {
        width: 72;
        max-width: 100%;
        height: auto;
        max-height: 90%;
        border: heavy $accent;
        border-title-style: bold;
        background: $surface;
        padding: 0 1;
    }
    KeysScreen #keys-hint {
        color: $text-muted;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1", "close", "Close", id="keys.close"),
    ]

    def __init__(self, screen: Screen) -> None:
        super().__init__()
        self.of_screen = screen

    def rows(self) -> list[tuple[str, str]]:
        """(keys, what they do), in the footer's order; each action once. The editing keys of a
        text field (Textual's, shown nowhere) are left out."""
        seen: dict[str, tuple[str, str]] = {}
        active_bindings = self.of_screen.active_bindings.values()
        ranges = {  # (a shown key range, as `1-0`, stands for its hidden keys: listed once)
            a.binding.action.split("(")[0]
            for a in active_bindings
            if a.binding.show and "-" in (a.binding.key_display or "")
        }
        for active in active_bindings:
            binding = active.binding
            if not binding.show and binding.action.split("(")[0] in ranges:
                continue
            what = binding.description or binding.action.replace("_", " ").capitalize()
            if binding.system or not what or not active.enabled:
                continue
            if not (binding.id or binding.show):  # a text field's own editing keys
                continue
            shown = self.app.get_key_display(binding)
            if binding.action in seen:
                keys, _ = seen[binding.action]
                if shown not in keys.split(" / "):
                    seen[binding.action] = (f"{keys} / {shown}", what)
                continue
            seen[binding.action] = (shown, what)
        return list(seen.values())

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for keys, what in self.rows():
            table.add_row(escape(keys), escape(what))
        with VerticalScroll(id="keys-box") as box:
            box.border_title = f"Keys · {screen_name(self.of_screen)}"
            yield Static(table, id="keys-list")
            yield Static("escape or f1 closes · ctrl+p lists every command", id="keys-hint")

    def action_close(self) -> None:
        self.dismiss(None)
