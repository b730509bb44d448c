"""A `SelectionList` whose marked rows are told apart without colour: `▐✓▌` marked, `▐ ▌` not.

Textual's list draws the same `X` in every row's box and tells marked rows by the box's colour
alone, which a monochrome terminal, a screen reader's text or a colour-blind reader loses
(issue 36)."""

from __future__ import annotations

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import SelectionList
from textual.widgets._toggle_button import ToggleButton

MARKED = "✓"
UNMARKED = " "


class MarkList(SelectionList[str]):
    """A selection list of text values, its marks drawn as `✓`."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        segments = list(strip)
        for i, segment in enumerate(segments):
            meta = segment.style.meta if segment.style is not None else {}
            if segment.text == ToggleButton.BUTTON_INNER and "option" in meta:
                value = self.get_option_at_index(meta["option"]).value
                glyph = MARKED if value in self.selected else UNMARKED
                segments[i] = Segment(glyph, segment.style)
                return Strip(segments, strip.cell_length)
        return strip
