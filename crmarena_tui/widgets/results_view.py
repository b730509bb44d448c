"""Query results: a status line (rows, time), the table or its JSON, or the error with its position.

A large result's JSON is written into its text area a few hundred lines at a time (`_load_json`,
an async worker on the app's loop), so that keys are handled between the pieces: a 2,000-row
result took about 1.5 s to load at once, and the app froze meanwhile (issue 36).
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING

from rich.markup import escape
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static, TextArea

from crmarena_tui.orgs.base import error_summary
from crmarena_tui.widgets.results_table import ResultsTable

if TYPE_CHECKING:
    from crmarena_tui.orgs.base import QueryResult

JSON_LIMIT = 2000
JSON_PIECE = 400  # lines of JSON written into the text area at a time


def error_marker(query: str, offset: int | None, width: int = 0) -> str:
    """The line of `query` holding `offset`, a caret under that character and `ERROR at
    Row:r:Column:c`, as Salesforce's message of the error begins.

    A line longer than `width` (when given) is shown as a window around the character, marked
    with `…` where it is cut, so it never wraps and the caret stays under the right character."""
    if offset is None or offset < 0:
        return ""
    offset = min(offset, len(query))
    start = query.rfind("\n", 0, offset) + 1
    end = query.find("\n", offset)
    line = query[start : len(query) if end == -1 else end]
    row = query.count("\n", 0, offset) + 1
    col = offset - start
    shown, caret = line, col
    if width >= 10 and len(line) >= width:
        room = width - 2  # one `…` on each side at most
        first = max(0, min(col - room // 2, len(line) - room))
        before = "…" if first > 0 else ""
        after = "…" if first + room < len(line) else ""
        shown = before + line[first : first + room] + after
        caret = len(before) + col - first
    return f"{shown}\n{' ' * caret}^\nERROR at Row:{row}:Column:{col + 1}"


class ResultsView(Vertical):
    """Shows one `QueryResult`. `ctrl+j` (bound by the workspace) toggles table and JSON."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.result: QueryResult | None = None
        self.query_text = ""
        self.json_mode = False
        self.json_loading = False  # a large result's JSON is still being written in

    def compose(self) -> ComposeResult:
        yield Static("Run a query with ctrl+r.", id="result-status")
        yield Static("", id="result-error")
        yield ResultsTable(id="result-table")
        yield TextArea(
            "", id="result-json", read_only=True, soft_wrap=True, show_line_numbers=False
        )

    def on_mount(self) -> None:
        self.query_one("#result-error").display = False
        area = self.query_one("#result-json", TextArea)
        area.display = False
        area.match_cursor_bracket = False  # (it scans the whole text on every cursor move)

    @property
    def table(self) -> ResultsTable:
        return self.query_one("#result-table", ResultsTable)

    def show_status(self, markup: str) -> None:
        """A line of its own above the table (a failed run, a resumed session)."""
        self.query_one("#result-status", Static).update(markup)

    def show_running(self, query: str) -> None:
        self.query_one("#result-status", Static).update(
            f"[dim]running…[/] {escape(_one_line(query))}"
        )

    def show_result(self, query: str, result: QueryResult, name: str = "", note: str = "") -> None:
        """Display `result` (a QueryResult) of `query`; `name` is its scratch table (`r3`);
        `note` goes after the timing (e.g. that the result was read back from a resumed log)."""
        self.result = result
        self.query_text = query
        status = self.query_one("#result-status", Static)
        error = self.query_one("#result-error", Static)
        timing = f"{result.elapsed_ms:,.0f} ms" + (f" · {escape(note)}" if note else "")
        tag = f"[b]{escape(name)}[/] · " if name and not result.error else ""
        if result.error:
            # the org's message without its own line and caret: the marker below draws them to
            # the pane's width (a long line as a window), so the caret never wraps away
            summary = error_summary(result.error)
            status.update(f"[b red]{escape(summary)}[/]  [dim]{timing}[/]")
            marker = error_marker(query, result.error_offset, self.size.width - 2)
            error.update(escape(marker))
            error.display = bool(marker)
            self.table.show_records([])
            self._set_json()
            return
        error.display = False
        if result.count_only:
            status.update(f"{tag}COUNT() = [b]{result.total_size:,}[/]  [dim]{timing}[/]")
            self.table.show_count(result.total_size)
        else:
            shown = len(result.records)
            more = f" of {result.total_size:,}" if result.total_size > shown else ""
            noun = "record" if shown == 1 else "records"
            status.update(f"{tag}[b]{shown:,}[/]{more} {noun}  [dim]{timing}[/]")
            self.table.show_records(result.records)
        self._set_json()

    def toggle_json(self) -> None:
        self.json_mode = not self.json_mode
        self._set_json()

    def _set_json(self) -> None:
        area = self.query_one("#result-json", TextArea)
        self.table.display = not self.json_mode
        area.display = self.json_mode
        self.workers.cancel_group(self, "json")
        self.json_loading = False
        if not self.json_mode:
            return
        if self.result is None:
            area.load_text("")
            return
        if len(self.result.records) <= JSON_PIECE // 10:  # a small result: at once
            area.load_text(_json_text(self.result))
            return
        self.json_loading = True
        area.load_text("// writing the JSON…\n")
        self.run_worker(self._load_json(self.result), group="json", exclusive=True)

    async def _load_json(self, result: QueryResult) -> None:
        """Write `result`'s JSON into the text area a piece at a time (see the module)."""
        text = await asyncio.to_thread(_json_text, result)
        if result is not self.result or not self.json_mode:  # (stale: another result, or table)
            return
        area = self.query_one("#result-json", TextArea)
        lines = text.splitlines(keepends=True)
        area.load_text("".join(lines[:JSON_PIECE]))
        for start in range(JSON_PIECE, len(lines), JSON_PIECE):
            await asyncio.sleep(0)  # the keys pressed meanwhile are handled here
            area.insert("".join(lines[start : start + JSON_PIECE]), area.document.end)
        self.json_loading = False


def _json_text(result: QueryResult) -> str:
    """The result as the REST API's response, indented; at most `JSON_LIMIT` records."""
    body = result.to_response()
    records = body.get("records") or body.get("searchRecords")
    note = ""
    if isinstance(records, list) and len(records) > JSON_LIMIT:
        key = "records" if "records" in body else "searchRecords"
        body = {**body, key: records[:JSON_LIMIT]}
        note = f"// first {JSON_LIMIT:,} of {len(records):,} records\n"
    # Plain text on purpose: tree-sitter-json 0.24.8 under tree-sitter 0.26.1 corrupts memory
    # when a highlighted TextArea reloads its text (segfaults seen here); SQL is unaffected.
    return note + json.dumps(body, indent=2, ensure_ascii=False, default=str)


def _one_line(text: str, limit: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
