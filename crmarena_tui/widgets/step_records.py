"""The trajectory viewer's record browser: re-runs a step's query against the current org and
shows the returned records; any Id opens that record with its related lists, and `backspace`
comes back to the re-run's records.

It fetches for itself in workers (through the app's one org thread) and posts `StepRecords.Shown`
when a re-run's result is on the screen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.message import Message

from crmarena_tui.widgets.record_browser import RecordBrowser, Request, page_soql

if TYPE_CHECKING:
    from crmarena_tui.orgs.base import Org, QueryResult
    from crmarena_tui.orgs.schema import Schema

RERUN = "rerun"


class StepRecords(RecordBrowser):
    """`org` is called (in a worker thread) for the org to query."""

    @dataclass
    class Ran(Message):
        browser: StepRecords
        step: int
        result: QueryResult
        schema: Schema

    @dataclass
    class Shown(Message):
        """A re-run's records are shown (or its error)."""

        browser: StepRecords
        step: int
        result: QueryResult

        @property
        def control(self) -> StepRecords:
            return self.browser

    @dataclass
    class Fetched(Message):
        """A page of records (`result`), or one record and its related lists, read for it."""

        request: Request
        result: QueryResult | None = None
        record: dict[str, Any] | None = None
        related: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def __init__(self, org: Callable[[], Org], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.org = org
        self.result: QueryResult | None = None

    def rerun(self, step: int, text: str) -> None:
        """Run `text` (the query of step number `step`) and show what it returns."""
        self._rerun(step, text)

    @work(thread=True, exclusive=True, exit_on_error=False, group="viewer-rerun")
    def _rerun(self, step: int, text: str) -> None:
        from crmarena_tui.orgs.base import execute

        org = self.org()
        call = self.app.org_call  # type: ignore[attr-defined]
        result = call(execute, org, text)
        schema = self.schema or call(org.describe)
        self.post_message(self.Ran(self, step, result, schema))

    @on(Ran)
    def _ran(self, event: Ran) -> None:
        event.stop()
        if self.schema is None:
            self.set_schema(event.schema)
        self.result = event.result
        records = event.result.records if event.result.ok else []
        kind = records[0].get("attributes", {}).get("type", "") if records else ""
        request = Request(RERUN, kind or "records")
        self.trail.clear()
        self.current = request
        self.show_page(request, event.result)
        self.post_message(self.Shown(self, event.step, event.result))

    @on(RecordBrowser.Wanted)
    def _wanted(self, event: RecordBrowser.Wanted) -> None:
        event.stop()
        if event.request.kind == RERUN and self.result is not None:
            self.show_page(event.request, self.result)
        elif self.schema is not None:
            self._fetch(event.request)

    @work(thread=True, exclusive=True, exit_on_error=False, group="viewer-records")
    def _fetch(self, request: Request) -> None:
        assert self.schema is not None
        org = self.org()
        call = self.app.org_call  # type: ignore[attr-defined]
        if request.kind == "page":
            soql = page_soql(self.schema, request.object_name, request.offset, request.all_fields)
            self.post_message(self.Fetched(request, result=call(org.query, soql)))
        else:
            record = call(org.get, request.object_name, request.record_id)
            related = call(org.related, request.object_name, request.record_id) if record else {}
            self.post_message(self.Fetched(request, record=record, related=related))

    @on(Fetched)
    def _fetched(self, event: Fetched) -> None:
        event.stop()
        if event.result is not None:
            self.show_page(event.request, event.result)
        else:
            self.show_record(event.request, event.record, event.related)
