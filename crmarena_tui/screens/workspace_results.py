"""The workspace's results tabs: the results table (or JSON) and the record browser, whose pages
and records are read in a worker and logged as `browse` steps (not counted as queries)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.message import Message
from textual.widgets import TabbedContent

from crmarena_tui.screens.workspace_part import WorkspacePart, WorkspaceState
from crmarena_tui.widgets.record_browser import Request, page_soql

if TYPE_CHECKING:
    from crmarena_tui.orgs.base import QueryResult
    from crmarena_tui.orgs.schema import Schema
    from crmarena_tui.session.episode import Episode
    from crmarena_tui.storage.models import Event
    from crmarena_tui.widgets.record_browser import RecordBrowser
    from crmarena_tui.widgets.results_view import ResultsView


class WorkspaceResults(WorkspacePart):
    """The record browser's reads, and an Id in the results opened in it."""

    @dataclass
    class Fetched(Message):
        """A page of records (`result`), or one record and its related lists, for the browser."""

        request: Request
        result: QueryResult | None = None
        record: dict[str, Any] | None = None
        related: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def __init__(
        self,
        state: WorkspaceState,
        *,
        results: ResultsView,
        records: RecordBrowser,
        tabs: TabbedContent,
        id: str | None = None,
    ) -> None:
        """`results` and `records`: the two tabs of `tabs` it fills."""
        super().__init__(state, id=id)
        self.results, self.records, self.tabs = results, records, tabs

    def open(self, schema: Schema) -> None:
        """The session is open: the browser lists the org's objects; Ids link both ways."""
        self.records.set_schema(schema)
        self.results.table.id_prefixes = self.records.table.id_prefixes

    def replay(self, events: Sequence[Event], queries: int) -> None:
        """A resumed session: its last results as they were shown, read back from the log."""
        from crmarena_tui.orgs.base import QueryResult
        from crmarena_tui.scratch.result_tables import result_sets

        sets = result_sets(events)
        done = sets[-1] if sets else None
        if done is not None and (done.records is not None or done.error):
            self.results.show_result(
                done.query,
                QueryResult(error=done.error)
                if done.records is None
                else QueryResult(records=done.records, total_size=len(done.records)),
                name=done.name,
                note=f"resumed session · {queries} queries",
            )
        elif queries:
            self.results.show_status(
                f"[dim]resumed session · {queries} queries · ctrl+r runs the query again[/]"
            )

    def show_records(self) -> None:
        """`ctrl+b`: the records tab, its object list focused."""
        self.tabs.active = "tab-records"
        self.records.query_one("#rb-objects").focus()

    def open_id(self, record_id: str) -> None:
        """An Id chosen in the results: its record in the browser."""
        if self.records.open_id(record_id):
            self.tabs.active = "tab-records"
            self.call_after_refresh(self.records.focus_current)

    def fetch(self, request: Request) -> None:
        """The browser wants a page of an object or a record (with its related lists)."""
        if self.episode is not None:
            self.fetch_records(request)

    @work(thread=True, exclusive=True, exit_on_error=False, group="records")
    def fetch_records(self, request: Request) -> None:
        schema = self.state.schema
        assert self.episode is not None and schema is not None
        org = self.episode.org
        log_browse(self.episode, request)
        call = self.arena.org_call
        if request.kind == "page":
            result = call(
                org.query,
                page_soql(schema, request.object_name, request.offset, request.all_fields),
            )
            self.post_message(self.Fetched(request, result=result))
        else:
            record = call(org.get, request.object_name, request.record_id)
            related = call(org.related, request.object_name, request.record_id) if record else {}
            self.post_message(self.Fetched(request, record=record, related=related))

    @on(Fetched)
    def _fetched(self, event: Fetched) -> None:
        event.stop()
        if event.result is not None:
            self.records.show_page(event.request, event.result)
        else:
            self.records.show_record(event.request, event.record, event.related)


def log_browse(episode: Episode, request: Request) -> None:
    """Record-browser steps go into the session log (not counted as queries)."""
    episode.record(
        "system",
        {
            "event": "browse",
            "kind": request.kind,
            "object": request.object_name,
            "offset": request.offset,
            "record_id": request.record_id,
        },
        actor="human",
    )
