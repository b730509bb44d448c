"""The workspace's results tabs: the results table (or JSON) and the record browser, whose pages
and records are read in a worker and logged as `browse` steps (not counted as queries)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on, work
from textual.widgets import TabbedContent

from crmarena_tui.app.messages import PageFetched, RecordFetched
from crmarena_tui.screens.workspace_part import WorkspacePart
from crmarena_tui.widgets.record_browser import Request, page_soql

if TYPE_CHECKING:
    from crmarena_tui.orgs.schema import Schema
    from crmarena_tui.session.episode import Episode
    from crmarena_tui.widgets.record_browser import RecordBrowser


class WorkspaceResults(WorkspacePart):
    """The record browser's reads, and an Id in the results opened in it."""

    @property
    def records(self) -> RecordBrowser:
        return self.workspace.records

    def open(self, schema: Schema) -> None:
        """The session is open: the browser lists the org's objects; Ids link both ways."""
        self.records.set_schema(schema)
        self.workspace.results.table.id_prefixes = self.records.table.id_prefixes

    def show_records(self) -> None:
        """`ctrl+b`: the records tab, its object list focused."""
        self.workspace.query_one("#ws-tabs", TabbedContent).active = "tab-records"
        self.workspace.query_one("#rb-objects").focus()

    def open_id(self, record_id: str) -> None:
        """An Id chosen in the results: its record in the browser."""
        if self.records.open_id(record_id):
            self.workspace.query_one("#ws-tabs", TabbedContent).active = "tab-records"
            self.call_after_refresh(self.records.focus_current)

    def fetch(self, request: Request) -> None:
        """The browser wants a page of an object or a record (with its related lists)."""
        if self.episode is not None:
            self.fetch_records(request)

    @work(thread=True, exclusive=True, exit_on_error=False, group="records")
    def fetch_records(self, request: Request) -> None:
        schema = self.workspace.schema
        assert self.episode is not None and schema is not None
        org = self.episode.org
        log_browse(self.episode, request)
        call = self.arena.org_call
        if request.kind == "page":
            result = call(
                org.query,
                page_soql(schema, request.object_name, request.offset, request.all_fields),
            )
            self.post_message(PageFetched(request, result))
        else:
            record = call(org.get, request.object_name, request.record_id)
            related = call(org.related, request.object_name, request.record_id) if record else {}
            self.post_message(RecordFetched(request, record, related))

    @on(PageFetched)
    def _page(self, event: PageFetched) -> None:
        event.stop()
        self.records.show_page(event.request, event.result)

    @on(RecordFetched)
    def _record(self, event: RecordFetched) -> None:
        event.stop()
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
