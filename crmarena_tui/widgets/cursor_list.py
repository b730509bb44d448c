"""A virtual list with a row cursor: only visible lines render, so 10,000 rows cost nothing.

Subclasses say how many rows there are (`row_count`), draw one row (`_segments`), and may draw
header lines above the rows (`HEADER_LINES`, `render_header`) and react to the cursor
(`cursor_moved`) or a click (`clicked`). Moving the cursor repaints its old and new lines only;
a subclass whose rows change can repaint only the lines that show another row (`visible_lines`
before the change, then `place_cursor`): a filter keystroke that leaves the rows on screen as
they were repaints nothing there.
"""

from __future__ import annotations

from collections.abc import Container, Hashable
from itertools import zip_longest
from typing import ClassVar, Self

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

# what one line under the header shows: (the row's key, under the cursor), None below the rows
LineKey = tuple[Hashable, bool] | None


class CursorList(ScrollView, can_focus=True):
    HEADER_LINES: ClassVar[int] = 0
    CURSOR_COMPONENT: ClassVar[str] = ""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Up", show=False, id="cursor-list.up"),
        Binding("down", "cursor(1)", "Down", show=False, id="cursor-list.down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="cursor-list.page-up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="cursor-list.page-down"),
        Binding("home", "jump(0)", "First", show=False, id="cursor-list.first"),
        Binding("end", "jump(-1)", "Last", show=False, id="cursor-list.last"),
    ]

    # the watcher repaints the two lines concerned, not the reactive the whole list
    cursor: reactive[int] = reactive(0, always_update=True, repaint=False)

    def __init__(self, *, id: str | None = None) -> None:
        self._base_style: Style | None = None
        super().__init__(id=id)
        self.empty_text = ""  # shown on the first row when there is none (what to do)
        self._line_cache: dict[tuple[int, bool], Strip] = {}

    # what subclasses provide --------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        raise NotImplementedError

    def _segments(self, row: int, selected: bool) -> list[Segment]:
        raise NotImplementedError

    def render_header(self, scroll_x: int, width: int) -> Strip:
        return Strip.blank(width, self.base_style)

    @property
    def base_style(self) -> Style:
        """`rich_style` (the list's colours over its ancestors'), read once per repaint: it walks
        every ancestor's styles, which cost more than drawing the line itself."""
        if self._base_style is None:
            self._base_style = self.rich_style
        return self._base_style

    def refresh(
        self,
        *regions: Region,
        repaint: bool = True,
        layout: bool = False,
        recompose: bool = False,
    ) -> Self:
        self._base_style = None  # every repaint, and every style change, comes through here
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def notify_style_update(self) -> None:
        self._base_style = None
        super().notify_style_update()

    def cursor_moved(self, row: int) -> None:
        """Called after the cursor moved to `row`."""

    def clicked(self, row: int, chain: int) -> None:
        self.cursor = row

    def row_key(self, row: int) -> Hashable:
        """What identifies `row`'s content: two lines showing the same key look the same."""
        return row

    def resize_rows(self, size: Size) -> None:
        """Set the virtual size after the rows changed. When the scrollbars stay as they are (the
        width is the same and the rows overflow the view before and after, or fit it before and
        after), there is no layout: `virtual_size` is a layout reactive, and a layout re-arranges
        and redraws the whole screen (every key typed into a filter would pay it). The caller
        repaints the lines that changed (`place_cursor`)."""
        old = self.virtual_size
        if size == old:
            return
        view = self.container_size.height - self.scrollbar_size_horizontal
        if (
            not self.container_size
            or size.width != old.width
            or (size.height > view) != (old.height > view)
        ):
            self.virtual_size = size
            return
        self.set_reactive(CursorList.virtual_size, size)
        if self.show_vertical_scrollbar:
            self.vertical_scrollbar.window_virtual_size = size.height
        self.scroll_y = self.validate_scroll_y(self.scroll_y)  # a changed scroll repaints all

    # moving -----------------------------------------------------------------------------------

    def move_to(self, row: int) -> None:
        if self.row_count:
            self.cursor = max(0, min(self.row_count - 1, row))

    def action_cursor(self, delta: int) -> None:
        self.move_to(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        page = self.scrollable_content_region.height - 1 - self.HEADER_LINES
        self.move_to(self.cursor + direction * max(1, page))

    def action_jump(self, where: int) -> None:
        self.move_to(self.row_count - 1 if where < 0 else 0)

    def watch_cursor(self, old: int, new: int) -> None:
        self._line_cache.pop((old, True), None)
        self._line_cache.pop((new, False), None)
        self._scroll_to_row(new)  # a scroll repaints the whole list
        self.refresh(*self._row_regions(old, new))
        self.cursor_moved(new)

    def place_cursor(self, row: int, before: list[LineKey]) -> None:
        """After the rows changed: the cursor on `row`, and only the lines that no longer show
        what they showed in `before` (`visible_lines()` taken before the change) repainted.
        `cursor_moved` is called only when the cursor's row is another row than before."""
        was = next((line[0] for line in before if line is not None and line[1]), None)
        self.set_reactive(CursorList.cursor, row)
        self._scroll_to_row(row)
        after = self.visible_lines()
        width = self.scrollable_content_region.width
        changed = [
            Region(0, self.HEADER_LINES + y, width, 1)
            for y, (old, new) in enumerate(zip_longest(before, after))
            if old != new
        ]
        if changed:
            self.refresh(*changed)
        if self.row_count == 0 or self.row_key(row) != was:
            self.cursor_moved(row)

    def visible_lines(self) -> list[LineKey]:
        """What each line under the header shows now, top to bottom."""
        top = self.scroll_offset.y
        lines = max(0, self.scrollable_content_region.height - self.HEADER_LINES)
        count, cursor = self.row_count, self.cursor
        return [
            (self.row_key(row), row == cursor) if row < count else None
            for row in range(top, top + lines)
        ]

    def repaint_rows(self, keys: Container[Hashable]) -> None:
        """Repaint the rows on screen whose key is in `keys` (their content changed), only them."""
        top = self.scroll_offset.y
        bottom = min(
            self.row_count, top + self.scrollable_content_region.height - self.HEADER_LINES
        )
        rows = [row for row in range(top, bottom) if self.row_key(row) in keys]
        for row in rows:
            self._line_cache.pop((row, True), None)
            self._line_cache.pop((row, False), None)
        if rows:
            self.refresh(*self._row_regions(*rows))

    def _scroll_to_row(self, row: int) -> None:
        self.scroll_to_region(
            Region(0, row + self.HEADER_LINES, 1, 1), animate=False, top=False, immediate=True
        )

    def _row_regions(self, *rows: int) -> list[Region]:
        """The lines of `rows` in the view (the caller's regions for a partial repaint)."""
        top, width = self.scroll_offset.y, self.scrollable_content_region.width
        return [Region(0, self.HEADER_LINES + row - top, width, 1) for row in rows]

    async def _on_click(self, event: events.Click) -> None:
        row = event.y + int(self.scroll_offset.y) - self.HEADER_LINES
        if 0 <= row < self.row_count:
            self.clicked(row, event.chain)

    # drawing ----------------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        if y < self.HEADER_LINES:
            return self.render_header(scroll_x, width)
        row = scroll_y + y - self.HEADER_LINES
        if row == 0 and not self.row_count and self.empty_text:
            text = Text(" " + self.empty_text, style=self.base_style + Style(italic=True))
            return Strip(list(text.render(self.app.console))).crop_extend(0, width, self.base_style)
        if row >= self.row_count:
            return Strip.blank(width, self.base_style)
        selected = row == self.cursor
        strip = self._line_cache.get((row, selected))
        if strip is None:
            strip = self._line_cache[(row, selected)] = Strip(self._segments(row, selected))
        style = (
            self.get_component_rich_style(self.CURSOR_COMPONENT) if selected else self.base_style
        )
        return strip.crop_extend(scroll_x, scroll_x + width, style)
