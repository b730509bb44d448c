"""Browse the org: objects from the schema -> their records, a page at a time -> one record with
its fields and related lists. Any Id shown opens that record.

The widget only displays: it posts `RecordBrowser.Wanted` and the screen fetches in a worker,
then calls `show_page` or `show_record`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from crmarena_tui.orgs.base import error_summary
from crmarena_tui.orgs.schema import Schema
from crmarena_tui.widgets.record_view import RecordView
from crmarena_tui.widgets.results_table import ResultsTable

if TYPE_CHECKING:
    from crmarena_tui.orgs.base import QueryResult

PAGE = 50
LIST_FIELDS = 6


@dataclass(frozen=True)
class Request:
    """What to fetch: a page of an object's records, or one record."""

    kind: str  # "page" | "record"
    object_name: str
    offset: int = 0
    record_id: str = ""
    all_fields: bool = False  # a page: every field of the object, not the first few


def page_soql(schema: Schema, object_name: str, offset: int, all_fields: bool = False) -> str:
    """The SOQL for one page of records: Id, a name-like field and a few more (or every field),
    by Id."""
    obj = schema.object(object_name)
    names = [f.name for f in obj.fields if all_fields or f.type != "textarea"] if obj else ["Id"]
    preferred = [n for n in ("Id", "Name", "Subject", "Title", "Status", "StageName") if n in names]
    fields = preferred + [n for n in names if n not in preferred]
    if not all_fields:
        fields = fields[:LIST_FIELDS]
    return f"SELECT {', '.join(fields)} FROM {object_name} ORDER BY Id LIMIT {PAGE} OFFSET {offset}"


class RecordBrowser(Vertical):
    """Objects on the left; records or one record on the right. `backspace` goes up a level:
    from a record to where it was opened from (else its object's records), from records to the
    objects."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # The page keys are named in the title line, not the footer.
        Binding(
            "right_square_bracket",
            "page(1)",
            "Next page",
            show=False,
            id="record-browser.next-page",
        ),
        Binding(
            "left_square_bracket",
            "page(-1)",
            "Prev page",
            show=False,
            id="record-browser.prev-page",
        ),
        Binding("backspace", "up", "Up a level", id="record-browser.up"),
        Binding("a", "all_fields", "All fields", id="record-browser.all-fields"),
    ]

    @dataclass
    class Wanted(Message):
        browser: RecordBrowser
        request: Request

        @property
        def control(self) -> RecordBrowser:
            return self.browser

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.schema: Schema | None = None
        self.current: Request | None = None
        self.trail: list[Request] = []
        self.all_fields = False

    def compose(self) -> ComposeResult:
        yield Static("Pick an object.", id="rb-title")
        with Horizontal(id="rb-body"):
            yield OptionList(id="rb-objects")
            yield ResultsTable(id="rb-table")
            yield RecordView(id="rb-record")

    def on_mount(self) -> None:
        self.record_view.display = False

    @property
    def table(self) -> ResultsTable:
        return self.query_one("#rb-table", ResultsTable)

    @property
    def record_view(self) -> RecordView:
        return self.query_one("#rb-record", RecordView)

    def focus_current(self) -> None:
        """Focus what is shown: the record, else the records page."""
        (self.record_view if self.record_view.display else self.table).focus()

    def _title(self, *parts: str | tuple[str, str]) -> None:
        self.query_one("#rb-title", Static).update(Text.assemble(*parts))

    def _show_table(self, table: bool) -> None:
        self.table.display = table
        self.record_view.display = not table

    def set_schema(self, schema: Schema) -> None:
        self.schema = schema
        objects = self.query_one("#rb-objects", OptionList)
        objects.clear_options()
        objects.add_options([Option(name, id=name) for name in schema.objects])
        self.table.id_prefixes = {o.key_prefix for o in schema.objects.values() if o.key_prefix}

    # -- requests -------------------------------------------------------------------------------

    def want(self, request: Request, *, push: bool = True) -> None:
        if push and self.current is not None and self.current != request:
            self.trail.append(self.current)
        self.current = request
        what = request.record_id or f"{request.object_name} records"
        self._title((f"loading {what}…", "dim"))
        self.post_message(self.Wanted(self, request))

    def open_id(self, record_id: str) -> bool:
        """Open the record with this Id; False when no object of the schema owns its prefix."""
        obj = self.schema.object_for_id(record_id) if self.schema else None
        if obj is None:
            return False
        self.want(Request("record", obj.name, record_id=record_id))
        return True

    @on(OptionList.OptionSelected, "#rb-objects")
    def _object_chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.trail.clear()
        self.current = None
        self.want(Request("page", str(event.option.id), all_fields=self.all_fields))

    @on(ResultsTable.IdChosen, "#rb-table")
    def _id_chosen(self, event: ResultsTable.IdChosen) -> None:
        event.stop()
        self.open_id(event.record_id)

    @on(RecordView.IdChosen, "#rb-record")
    def _related_chosen(self, event: RecordView.IdChosen) -> None:
        event.stop()
        self.open_id(event.record_id)

    def action_page(self, step: int) -> None:
        cur = self.current
        if cur is None or cur.kind != "page":
            return
        offset = max(0, cur.offset + step * PAGE)
        if offset != cur.offset:
            self.want(
                Request("page", cur.object_name, offset, all_fields=cur.all_fields), push=False
            )

    def action_all_fields(self) -> None:
        """Pages show every field of the object, or the first few again."""
        self.all_fields = not self.all_fields
        cur = self.current
        if cur is not None and cur.kind == "page":
            self.want(
                Request("page", cur.object_name, cur.offset, all_fields=self.all_fields), push=False
            )

    def action_up(self) -> None:
        cur = self.current
        if cur is not None and cur.kind == "record":
            if self.trail:
                self.want(self.trail.pop(), push=False)
            else:
                self.want(Request("page", cur.object_name, all_fields=self.all_fields), push=False)
            return
        self.trail.clear()
        self.current = None
        self.table.show_records([])
        self._show_table(True)
        self._title("Pick an object ", ("(enter opens its records)", "dim"))
        self.query_one("#rb-objects", OptionList).focus()

    # -- display --------------------------------------------------------------------------------

    def show_page(self, request: Request, result: QueryResult) -> None:
        if request != self.current:
            return  # a newer request superseded this one
        self._show_table(True)
        if result.error:
            self._title((error_summary(result.error), "bold red"))
            self.table.show_records([])
            return
        first = request.offset + 1
        last = request.offset + len(result.records)
        span = f"{first}–{last}" if result.records else "none"
        fields = "all fields" if request.all_fields else "a few fields (a: all)"
        self._title(
            (request.object_name, "bold"),
            f" records {span}, {fields}  ",
            ("] next page · [ previous · enter opens · backspace: objects", "dim"),
        )
        self.table.show_records(result.records)
        self.table.focus()

    def show_record(
        self,
        request: Request,
        record: dict[str, Any] | None,
        related: dict[str, list[dict[str, Any]]],
    ) -> None:
        if request != self.current:
            return
        if record is None:
            self._show_table(True)
            self._title((f"No {request.object_name} with Id {request.record_id}", "bold red"))
            self.table.show_records([])
            return
        self._show_table(False)
        self._title(
            (request.object_name, "bold"),
            f" {request.record_id}  ",
            ("backspace: back · enter on an Id or a related record opens it", "dim"),
        )
        self.record_view.show(record, related, self.table.id_prefixes)
        self.record_view.focus()
