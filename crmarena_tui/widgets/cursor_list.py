"""A virtual list with a row cursor: only visible lines render, so 10,000 rows cost nothing.

Subclasses say how many rows there are (`row_count`), draw one row (`_segments`), and may draw
header lines above the rows (`HEADER_LINES`, `render_header`) and react to the cursor
(`cursor_moved`) or a click (`clicked`).
"""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip


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

    cursor: reactive[int] = reactive(0, always_update=True)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._line_cache: dict[tuple[int, bool], list[Segment]] = {}

    # what subclasses provide --------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        raise NotImplementedError

    def _segments(self, row: int, selected: bool) -> list[Segment]:
        raise NotImplementedError

    def render_header(self, scroll_x: int, width: int) -> Strip:
        return Strip.blank(width, self.rich_style)

    def cursor_moved(self, row: int) -> None:
        """Called after the cursor moved to `row`."""

    def clicked(self, row: int, chain: int) -> None:
        self.cursor = row

    def resize_rows(self, size: Size) -> None:
        """Set the virtual size after the rows changed. When the scrollbars stay as they are (the
        width is the same and the rows overflow the view before and after, or fit it before and
        after), only this list is repainted: `virtual_size` is a layout reactive, and a layout
        re-arranges and redraws the whole screen (every key typed into a filter would pay it)."""
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
        self.scroll_y = self.validate_scroll_y(self.scroll_y)
        self.refresh()

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
        self.scroll_to_region(
            Region(0, new + self.HEADER_LINES, 1, 1), animate=False, top=False, immediate=True
        )
        self.refresh()
        self.cursor_moved(new)

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
        if row >= self.row_count:
            return Strip.blank(width, self.rich_style)
        selected = row == self.cursor
        segments = self._line_cache.get((row, selected))
        if segments is None:
            segments = self._line_cache[(row, selected)] = self._segments(row, selected)
        style = (
            self.get_component_rich_style(self.CURSOR_COMPONENT) if selected else self.rich_style
        )
        return Strip(segments).crop_extend(scroll_x, scroll_x + width, style)
