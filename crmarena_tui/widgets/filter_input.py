"""A type-ahead filter box whose keystrokes repaint only itself.

Textual's `Input` sets its virtual size to its text's width at every change, and `virtual_size`
is a layout reactive: each key re-arranges and repaints the whole screen (on the sessions list, the
footer, the selectors and the list too, several milliseconds a key). This input keeps its virtual
width at least as wide as its view, so while the text fits, the virtual size does not change and a
key repaints the input alone; a text wider than the view grows it (and lays out) as before, so the
input still scrolls to its cursor.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.widgets import Input


class FilterInput(Input):
    """An `Input` for one-line filters: no screen layout while its text fits its width."""

    def validate_virtual_size(self, size: Size) -> Size:
        # the reactive calls this on every assignment; an unchanged result means no refresh at all
        view = self.container_size.width - self.scrollbar_size_vertical
        return Size(max(size.width, view), size.height)
