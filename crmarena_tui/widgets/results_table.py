"""A DataTable for query results that stays smooth with 10,000 rows.

DataTable measures every cell of every new row to size its columns; for 10,000 rows that is
seconds of frozen UI. Here the column widths are computed once from character counts and fixed,
rows are one line high, and rows beyond the first screenful are added in chunks between frames.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.widgets import DataTable
from textual.widgets.data_table import RowKey

from crmarena_tui.widgets.later import later
from crmarena_tui.widgets.result_rows import (
    column_widths,
    full_text,
    looks_like_id,
    row_text,
    rows_of,
    table_of,
)
from crmarena_tui.widgets.text_detail import TextDetail

FIRST_CHUNK = 300
CHUNK = 2000


class ResultsTable(DataTable):
    """Records as a table. `enter` on a cell holding an Id posts `ResultsTable.IdChosen`; on any
    other cell with text it opens the cell in full (wrapped, scrollable); `v` opens the row."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Open", show=False, id="results-table.select-cursor"),
        Binding("v", "view_row", "View row", id="results-table.view-row"),
    ]

    @dataclass
    class IdChosen(Message):
        table: ResultsTable
        record_id: str

        @property
        def control(self) -> ResultsTable:
            return self.table

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="cell", zebra_stripes=True)
        self.columns_shown: list[str] = []
        self.flat_records: list[dict[str, Any]] = []
        self._pending: list[tuple[str, ...]] = []
        self._generation = 0
        self.id_prefixes: set[str] | None = None

    def show_records(self, records: list[dict[str, Any]]) -> None:
        """Replace the table's content with `records` (Salesforce-shaped)."""
        self._generation += 1
        self.clear(columns=True)
        columns, flat = table_of(records)
        rows = rows_of(columns, flat)
        self.columns_shown = columns
        self.flat_records = flat
        for name, width in zip(columns, column_widths(columns, rows), strict=True):
            self.add_column(name, width=width)
        self.add_rows(rows[:FIRST_CHUNK])
        self._pending = rows[FIRST_CHUNK:]
        if self._pending:
            generation = self._generation
            self.call_after_refresh(self._add_pending, generation)

    def show_count(self, count: int) -> None:
        """`SELECT COUNT()`: the count as a one-cell table."""
        self.show_records([{"count": count}])

    def _add_pending(self, generation: int) -> None:
        if generation != self._generation or not self._pending:
            return
        chunk, self._pending = self._pending[:CHUNK], self._pending[CHUNK:]
        self.add_rows(chunk)
        if self._pending:
            later(self, 0.01, lambda: self._add_pending(generation))

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        # Every column has a fixed width and every row is one line: no measuring needed.
        width = sum(c.get_render_width(self) for c in self.columns.values())
        header = self.header_height if self.show_header else 0
        self.virtual_size = Size(width + self._row_label_column_width, self.row_count + header)

    def on_data_table_cell_selected(self, event: DataTable.CellSelected) -> None:
        row, col = event.coordinate
        if row >= len(self.flat_records) or col >= len(self.columns_shown):
            return
        column = self.columns_shown[col]
        value = self.flat_records[row].get(column)
        event.stop()
        if looks_like_id(value, self.id_prefixes):
            self.post_message(self.IdChosen(self, value))
        elif full_text(value):
            self.app.push_screen(TextDetail(f"{column} (row {row + 1})", full_text(value)))

    def action_view_row(self) -> None:
        """Every column of the cursor's row, in full."""
        row = self.cursor_coordinate.row
        if 0 <= row < len(self.flat_records):
            body = row_text(self.columns_shown, self.flat_records[row])
            self.app.push_screen(TextDetail(f"Row {row + 1} of {len(self.flat_records)}", body))
