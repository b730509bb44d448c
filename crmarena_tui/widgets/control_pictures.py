"""No control character of the data reaches the terminal from a line the app draws (issue 38).

Names and texts the app shows come from files a user imported (participant names, task text,
record values of a snapshot, upstream result files). Textual writes a cell's text to the
terminal as it is, and Rich keeps ESC in it (it drops only BEL, backspace, CR, VT and FF): an
`ESC ] 0 ; … BEL` would set the window title, `ESC [ 2 J` clear the screen, `ESC ] 52` write the
clipboard, in the terminal and in a browser's terminal under `serve` alike. `ControlPictures` is
a Textual line filter the app applies to every line of every widget (`CrmArenaApp.
get_line_filters`), after it is laid out and before it is written: each control character is
shown as its picture (`terminal_text.pictured`: ESC as `␛`), whatever widget drew it, while what
is stored stays exact.

A control character takes no cell when Textual lays a line out, and its picture takes one (a C1
code two): the line keeps its width by giving back as many blank cells, first from the blanks
that end the segments from the first picture on (a cell's padding; in a segment with a picture,
only those after its last one), else from the line's end: a blank before the first picture is
never taken, so no two words or columns run together.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from crmarena_tui.terminal_text import CONTROL_CHAR, pictured


def _holds_control(segment: Segment) -> bool:
    return not segment.control and CONTROL_CHAR.search(segment.text) is not None


class ControlPictures(LineFilter):
    """Each control character of a drawn line shown as its picture; the line's width kept."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        changed = [index for index, segment in enumerate(segments) if _holds_control(segment)]
        if not changed:
            return segments
        width = sum(segment.cell_length for segment in segments if not segment.control)
        line = list(segments)
        owed = 0
        tails: dict[int, int] = {}  # per changed segment: the characters after its last picture
        for index in changed:
            text, style, control = line[index]
            *_, last = CONTROL_CHAR.finditer(text)
            tails[index] = len(text) - last.end()
            shown = pictured(text)
            owed += cell_len(shown) - cell_len(text)
            line[index] = Segment(shown, style, control)
        owed = _give_back(line, owed, tails, changed[0])
        line = [segment for segment in line if segment.text or segment.control]
        return Segment.adjust_line_length(line, width) if owed else line


def _give_back(line: list[Segment], owed: int, tails: dict[int, int], first: int) -> int:
    """Remove up to `owed` blank cells from `line` in place: the blanks that end the segments
    from `first` on (in a segment with a picture, only those after its last one). Returns what
    is still owed."""
    for index in range(first, len(line)):
        text, style, control = line[index]
        if not owed:
            break
        if control:
            continue
        blanks = len(text) - len(text.rstrip(" "))
        taken = min(owed, blanks, tails.get(index, blanks))
        if taken:
            line[index] = Segment(text[: len(text) - taken], style, control)
            owed -= taken
    return owed
