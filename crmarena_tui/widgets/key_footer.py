"""The key bar at the bottom of every screen: textual's `Footer`, updated only when the keys it
shows change, and then on the key widgets it has.

A `Footer` re-composes (every key widget unmounted, made and styled again) each time its screen
says its bindings may have changed: when the screen is pushed, when the focus moves, when a screen
asks. Opening the sessions list did that three times in its first frames, for the same keys
(about a quarter of the screen's opening). This footer coalesces the requests of a frame into one,
and skips it when the keys, their labels and their enabled state are what it already shows. When
they differ, the mounted key widgets are given the new keys, and only the keys more or fewer are
mounted or removed (`_show_keys`): re-composing was about 40% of a tab press's CPU in the
workspace, whose panes have different keys. A footer with key groups is re-composed.

Compact keys are made with their compact class, so that mounting them does not restyle each one
again (a compact `Footer` otherwise sets the class on every key after it is mounted).

Keys that do not fit whole before the command palette's key are hidden (`_fit`), from the last:
a footer wider than the terminal showed a cut key (`^g Run ag`) or a stray `^` at 80 and 100
columns. The hidden keys stay in the command palette and in `f1`'s list.

Built on textual 8.2.8's `Footer` (the version pyproject.toml pins): `bindings_changed`, the
`_bindings_ready` flag and `FooterKey`'s attributes are that version's.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

from textual.widgets import Footer
from textual.widgets._footer import FooterKey

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.screen import Screen
    from textual.widget import Widget


class KeyFooter(Footer):
    """A `Footer` (compact unless told otherwise) that updates only for other keys."""

    def __init__(self, *, compact: bool = True, show_command_palette: bool = True) -> None:
        super().__init__(compact=compact, show_command_palette=show_command_palette)
        self._shown: Hashable = None  # what the last composition showed
        self._asked = False  # a re-composition is due after the next refresh

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            if self.compact and isinstance(widget, FooterKey):
                widget.add_class("-compact", update=False)
            yield widget

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus or self._asked:
            return
        if self.is_attached and screen is self.screen:
            self._asked = True
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        self._asked = False
        if not self.is_attached:  # (its screen was closed meanwhile)
            return
        shown = self._keys()
        if shown != self._shown:
            self._shown = shown
            await self._show_keys()
            self.call_after_refresh(self._fit)

    async def _show_keys(self) -> None:
        """Show the keys on the key widgets already mounted, mounting or removing only the ones
        more or fewer (see the module); a footer with key groups, or a palette key come or gone,
        is re-composed."""
        old, new = list(self.children), list(self.compose())
        if not all(type(widget) is FooterKey for widget in [*old, *new]):
            await self.recompose()
            return
        old_keys, old_palette = _split(old)
        new_keys, new_palette = _split(new)
        if (old_palette is None) != (new_palette is None):
            await self.recompose()
            return
        for key, made in zip(old_keys, new_keys, strict=False):
            _relabel(key, made)
        if old_palette is not None and new_palette is not None:
            _relabel(old_palette, new_palette)
        if len(new_keys) > len(old_keys):
            await self.mount_all(new_keys[len(old_keys) :], before=old_palette)
        elif len(old_keys) > len(new_keys):
            await self.remove_children(old_keys[len(new_keys) :])

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """Hide the keys that do not fit whole before the palette's key (see the module). Widths
        are measured from what each key renders, not from the layout, which may not be done."""
        if not self.size.width:
            return  # (not laid out yet: `on_resize` comes)
        keys = list(self.query_children(FooterKey))
        palette = [k for k in keys if k.has_class("-command-palette")]
        room = self.size.width - sum(_width(k) for k in palette)
        used = 0
        for key in keys:
            if key not in palette:
                used += _width(key)
                key.display = used <= room

    def _keys(self) -> Hashable:
        """The keys as the footer would show them, with what makes them look different."""
        return (
            self.show_command_palette,
            tuple(
                (binding.key, binding.action, binding.description, enabled, tooltip)
                for _node, binding, enabled, tooltip in self.screen.active_bindings.values()
                if binding.show
            ),
        )


def _width(key: FooterKey) -> int:
    """The cells `key` takes in the footer: its text, padding, border and margin."""
    styles = key.styles
    return key.render().cell_len + styles.gutter.width + styles.margin.width


def _split(widgets: list[Widget]) -> tuple[list[FooterKey], FooterKey | None]:
    """The keys, and the command palette's key (None without it)."""
    keys = [w for w in widgets if isinstance(w, FooterKey)]
    palette = next((k for k in keys if k.has_class("-command-palette")), None)
    return [k for k in keys if k is not palette], palette


def _relabel(key: FooterKey, made: FooterKey) -> None:
    """Make the mounted `key` show what `made` (never mounted) would."""
    looks = (key.key_display, key.description)
    key.key, key.key_display, key.action = made.key, made.key_display, made.action
    key.description, key._disabled = made.description, made._disabled
    key.set_class(made._disabled, "-disabled")
    key.tooltip = made.tooltip
    key.refresh(layout=looks != (made.key_display, made.description))
