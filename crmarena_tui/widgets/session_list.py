"""The sessions list: one line per session under a header (a `CursorList`, so only the lines on
screen are drawn, whatever the number of sessions).

Columns are as wide as their widest value (capped for names) and never narrower than their
header, so no header is ever cut. Rewards, protocols and label counts are "details": the screen
loads them only for the rows on screen; a row drawn before its details arrive shows "…" and the
list posts `SessionList.NeedDetails` with the ids it is missing (while a filter is being typed,
once the rows have settled: `hold_details`). A filter repaints only the lines that show another
session than before, and arriving details only their own lines. The Trial column (which of its
configuration's attempts at the task a session is: `run --trials K`) is there only when some
session of the list is a trial after the first.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip

from crmarena_tui.reports.attempts import is_win
from crmarena_tui.reports.session_rows import (
    SessionIndex,
    day,
    org_label,
    source_label,
    task_label,
)
from crmarena_tui.reports.units import format_duration
from crmarena_tui.widgets.cursor_list import CursorList
from crmarena_tui.widgets.later import later

if TYPE_CHECKING:
    import asyncio

    from crmarena_tui.storage.models import Details, ListedSession

PENDING = "…"
DETAILS_AFTER = 0.12  # s; see `SessionList.hold_details`
CAPS = {"who": 48, "task": 34, "source": 40, "org": 28}
HEADERS: tuple[tuple[str, str], ...] = (
    ("mark", "✓"),
    ("id", "Session"),
    ("who", "Participant"),
    ("pkind", "Who"),
    ("kind", "Kind"),
    ("task", "Task"),
    ("idx", "#"),
    ("trial", "Trial"),  # shown only when the list holds a trial after the first
    ("source", "Source"),
    ("org", "Org"),
    ("date", "Date (UTC)"),
    ("status", "Status"),
    ("reward", "Reward"),
    ("protocol", "Protocol"),
    ("time", "Time"),
    ("labels", "Labels"),
    ("parent", "Fork of"),
)
RIGHT = frozenset({"id", "idx", "trial", "reward", "labels", "time"})


def _fit(text: str, width: int, right: bool = False) -> str:
    if len(text) > width:
        text = text[: width - 1] + "…"
    return text.rjust(width) if right else text.ljust(width)


class SessionList(CursorList):
    """Sessions of a `SessionIndex`, the rows at `positions`, marks and details from the screen."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "session-list--header",
        "session-list--cursor",
        "session-list--win",
        "session-list--loss",
        "session-list--dim",
    }
    DEFAULT_CSS = """
    SessionList { height: 1fr; }
    SessionList > .session-list--header { text-style: bold; background: $panel; }
    SessionList > .session-list--cursor { background: $block-cursor-background; color: $block-cursor-foreground; }
    SessionList > .session-list--win { color: $success; }
    SessionList > .session-list--loss { color: $error; }
    SessionList > .session-list--dim { color: $text-muted; }
    """
    HEADER_LINES = 1
    CURSOR_COMPONENT = "session-list--cursor"

    @dataclass
    class NeedDetails(Message):
        ids: list[int]

    @dataclass
    class Highlighted(Message):
        row: int

    @dataclass
    class Chosen(Message):
        """A double click on a row (enter is the screen's binding)."""

        row: int

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.index: SessionIndex | None = None
        self.positions: Sequence[int] = ()
        self.details: dict[int, Details] = {}
        self.is_marked: Callable[[int], bool] = lambda _sid: False
        self.widths: dict[str, int] = {}  # the columns shown (`HEADERS` keys), their widths
        self._missing: set[int] = set()  # drawn without details, not asked for yet
        self._asked: set[int] = set()
        self._held: asyncio.TimerHandle | None = None  # details asked when it fires

    # data -------------------------------------------------------------------------------------

    def set_index(self, index: SessionIndex) -> None:
        self.index = index
        self.details, self._missing, self._asked = {}, set(), set()
        self.widths = self._measure(index)
        self.show(range(len(index.rows)))
        self.refresh()  # other columns and details: every line, the header too

    def show(self, positions: Sequence[int], cursor: int = 0) -> None:
        """Show the rows at these positions of the index. Only the lines that now show another
        session (or the cursor elsewhere) are repainted: a filter keystroke that leaves the
        newest sessions on top redraws none of the list."""
        before = self.visible_lines()
        self.positions = positions
        self._line_cache.clear()
        self.resize_rows(Size(sum(self.widths.values()) + len(self.widths), len(positions) + 1))
        self.place_cursor(max(0, min(cursor, len(positions) - 1)), before)

    def hold_details(self) -> None:
        """Ask for the details of the rows drawn from now on only once the list has not changed
        for `DETAILS_AFTER` seconds: a filter being typed asks once, after its last key, and
        every key costs no details read and no second repaint of their lines."""
        if self._held is not None:
            self._held.cancel()
        self._held = later(self, DETAILS_AFTER, self._release_details)

    def _release_details(self) -> None:
        self._held = None
        self._ask()

    def add_details(self, details: dict[int, Details]) -> None:
        """Rewards, protocols and label counts arrived: only their lines on screen are redrawn."""
        self.details.update(details)
        self._asked.difference_update(details)
        self.repaint_rows(details)

    def redraw(self) -> None:
        self._line_cache.clear()
        self.refresh()

    @property
    def row_count(self) -> int:
        return len(self.positions)

    def row_key(self, row: int) -> Hashable:
        listed = self.row_at(row)
        return None if listed is None else listed.id

    def row_at(self, row: int) -> ListedSession | None:
        if self.index is None or not 0 <= row < len(self.positions):
            return None
        return self.index.rows[self.positions[row]]

    @property
    def current(self) -> ListedSession | None:
        return self.row_at(self.cursor)

    def cursor_moved(self, row: int) -> None:
        self.post_message(self.Highlighted(row))

    def clicked(self, row: int, chain: int) -> None:
        self.cursor = row
        if chain >= 2:
            self.post_message(self.Chosen(row))

    # layout -----------------------------------------------------------------------------------

    @staticmethod
    def _measure(index: SessionIndex) -> dict[str, int]:
        """Each column's width: its widest value (capped) or its header, whichever is wider, over
        the whole list (`index.extent`: a partial index's columns are already the final ones)."""
        extent = index.whole()
        values: dict[str, list[str]] = {
            "mark": ["✓"],
            "id": [str(extent.max_id)],
            "who": [index.people[p].name for p in extent.participants],
            "pkind": ["human", "agent"],
            "kind": list(extent.kinds),
            "task": [task_label(t) for t in extent.task_types],
            "idx": [str(extent.max_idx)],
            "trial": [str(extent.max_trial)],
            "source": [source_label(s) for s in extent.sources],
            "org": [org_label(o) for o in extent.orgs],
            "date": ["2025-01-01 00:00"],
            "status": [s.replace("_", " ") for s in extent.statuses],
            "reward": ["0.00"],
            "protocol": ["workbench"],
            "time": ["59 min 59 s"],
            "labels": ["999"],
            "parent": [f"#{extent.max_parent}"],
        }
        widths = {}
        for key, header in HEADERS:
            if key == "trial" and extent.max_trial <= 1:
                continue
            longest = max((len(v) for v in values[key]), default=0)
            widths[key] = max(len(header), min(longest, CAPS.get(key, longest)))
        return widths

    def render_header(self, scroll_x: int, width: int) -> Strip:
        # (before the sessions are read, the headers at their own widths)
        shown = [(k, h) for k, h in HEADERS if (k in self.widths if self.widths else k != "trial")]
        text = " ".join(_fit(h, self.widths.get(k, len(h)), k in RIGHT) for k, h in shown)
        style = self.get_component_rich_style("session-list--header")
        return Strip([Segment(text, style)]).crop_extend(scroll_x, scroll_x + width, style)

    # drawing ----------------------------------------------------------------------------------

    def _segments(self, row: int, selected: bool) -> list[Segment]:
        listed = self.row_at(row)
        assert listed is not None and self.index is not None
        base: Style = (
            self.get_component_rich_style("session-list--cursor") if selected else self.base_style
        )
        found = self.details.get(listed.id)
        if found is None and listed.id not in self._asked:
            if not self._missing and self._held is None:
                self.call_after_refresh(self._ask)
            self._missing.add(listed.id)
        person = self.index.participant(listed)
        cells = {
            "mark": "✓" if self.is_marked(listed.id) else "",
            "id": str(listed.id),
            "who": person.name,
            "pkind": person.kind,
            "kind": listed.kind,
            "task": task_label(listed.task_type),
            "idx": str(listed.task_idx),
            "trial": str(listed.trial),
            "source": source_label(listed.task_source),
            "org": org_label(listed.org_ref),
            "date": day(listed.started),
            "status": listed.status.replace("_", " "),
            "reward": PENDING if found is None else _reward(found),
            "protocol": PENDING if found is None else (found.protocol or "—"),
            "time": format_duration(listed.active_seconds),
            "labels": PENDING if found is None else (str(found.labels) if found.labels else ""),
            "parent": f"#{listed.parent_id}" if listed.parent_id else "",
        }
        styled: list[tuple[str, Style]] = []
        for key, _header in HEADERS:
            if key not in self.widths:
                continue
            style = base
            if not selected and key == "reward" and found is not None and found.reward is not None:
                won = is_win(found.reward, found.grader)
                style = self.get_component_rich_style(
                    "session-list--win" if won else "session-list--loss"
                )
            elif not selected and cells[key] in (PENDING, "—"):
                style = self.get_component_rich_style("session-list--dim")
            styled.append((_fit(cells[key], self.widths[key], key in RIGHT) + " ", style))
        return _runs(styled)

    def _ask(self) -> None:
        """Ask once for the details of every row drawn without them since the last ask."""
        wanted = sorted(self._missing.difference(self.details))
        self._asked.update(self._missing)
        self._missing = set()
        if wanted:
            self.post_message(self.NeedDetails(wanted))


def _runs(cells: list[tuple[str, Style]]) -> list[Segment]:
    """One segment per run of cells in the same style: a line of 16 columns becomes a few
    segments, and every later step (cropping, colour filters, the screen's cuts) goes by segment."""
    out: list[Segment] = []
    text, style = "", None
    for cell, cell_style in cells:
        if cell_style is style:
            text += cell
            continue
        if style is not None:
            out.append(Segment(text, style))
        text, style = cell, cell_style
    if style is not None:
        out.append(Segment(text, style))
    return out


def _reward(found: Details) -> str:
    return "—" if found.reward is None else f"{found.reward:.2f}"
