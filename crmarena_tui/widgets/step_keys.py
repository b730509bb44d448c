"""A one-widget footer for screens with many keys: every shown binding of the screen as styled
text, wrapped over as many lines as it needs, so no key is cut off at the terminal's edge. A screen
may name a binding by its state (`describe_binding(action)`: "Others' labels: hidden"); it calls
`refresh_bindings()` when the state changes.

Textual's `Footer` mounts a widget per key and recomposes on every change of bindings; for the
trajectory viewer's fourteen keys that was a third of its opening time. The bindings are the same
ones the command palette lists.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.screen import Screen
from textual.widgets import Static


class KeyBar(Static):
    """Shows the screen's active bindings (those with `show=True`) and the palette key."""

    DEFAULT_CSS = """
    KeyBar {
        height: auto;
        max-height: 3;
        padding: 0 1;
        background: $footer-background;
        color: $footer-foreground;
    }
    KeyBar > .key-bar--key { color: $footer-key-foreground; text-style: bold; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"key-bar--key"}

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen) -> None:
        if screen is not self.screen:
            return
        key = self.get_component_rich_style("key-bar--key")
        text = Text(no_wrap=False, overflow="fold")
        seen: set[str] = set()
        for _node, binding, enabled, _tooltip in screen.active_bindings.values():
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            describe = getattr(screen, "describe_binding", None)
            label = (describe(binding.action) if describe else None) or binding.description
            text.append(self.app.get_key_display(binding), style=key if enabled else "dim")
            text.append(f" {label}  ", style="" if enabled else "dim")
        palette = screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
        if palette is not None and self.app.ENABLE_COMMAND_PALETTE:
            text.append(self.app.get_key_display(palette.binding), style=key)
            text.append(" palette")
        self.update(text)
