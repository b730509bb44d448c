"""Browse the org: objects from the schema -> their records, a page at a time -> one record with
its fields and related lists. Any Id shown opens that record.

The widget only displays: it posts `RecordBrowser.Wanted` and the screen fetches in a worker,
then calls `show_page` or `show_record`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from crmarena_tui.orgs.schema import Schema
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


def page_soql(schema: Schema, object_name: str, offset: int) -> str:
    """The SOQL for one page of records: Id, a name-like field and a few more, by Id."""
    obj = schema.object(object_name)
    names = [f.name for f in obj.fields if f.type != "textarea"] if obj else ["Id"]
    preferred = [n for n in ("Id", "Name", "Subject", "Title", "Status", "StageName") if n in names]
    fields = (preferred + [n for n in names if n not in preferred])[:LIST_FIELDS]
    return f"SELECT {', '.join(fields)} FROM {object_name} ORDER BY Id LIMIT {PAGE} OFFSET {offset}"


def record_rows(record: dict[str, Any], related: dict[str, list[dict[str, Any]]]) -> list[dict]:
    """A record as Field/Value rows, then each related list's record Ids."""
    rows = [{"Field": k, "Value": v} for k, v in record.items() if k != "attributes"]
    for name, children in related.items():
        rows.append({"Field": f"── {name} ({len(children)})", "Value": None})
        for child in children:
            label = next((str(child[k]) for k in ("Name", "Subject", "Title") if child.get(k)), "")
            rows.append({"Field": f"   {label[:40]}", "Value": child.get("Id")})
    return rows


class RecordBrowser(Vertical):
    """Objects on the left; records or one record on the right. `backspace` goes up a level."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right_square_bracket", "page(1)", "Next page", id="record-browser.next-page"),
        Binding("left_square_bracket", "page(-1)", "Prev page", id="record-browser.prev-page"),
        Binding("backspace", "up", "Up a level", id="record-browser.up"),
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

    def compose(self) -> ComposeResult:
        yield Static("Pick an object.", id="rb-title")
        with Horizontal(id="rb-body"):
            yield OptionList(id="rb-objects")
            yield ResultsTable(id="rb-table")

    @property
    def table(self) -> ResultsTable:
        return self.query_one("#rb-table", ResultsTable)

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
        self.query_one("#rb-title", Static).update(f"[dim]loading {escape(what)}…[/]")
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
        self.want(Request("page", str(event.option.id)))

    @on(ResultsTable.IdChosen, "#rb-table")
    def _id_chosen(self, event: ResultsTable.IdChosen) -> None:
        event.stop()
        self.open_id(event.record_id)

    def action_page(self, step: int) -> None:
        cur = self.current
        if cur is None or cur.kind != "page":
            return
        offset = max(0, cur.offset + step * PAGE)
        if offset != cur.offset:
            self.want(Request("page", cur.object_name, offset), push=False)

    def action_up(self) -> None:
        if self.trail:
            self.want(self.trail.pop(), push=False)
        elif self.current is not None and self.current.kind == "record":
            self.want(Request("page", self.current.object_name), push=False)
        else:
            self.query_one("#rb-objects", OptionList).focus()

    # -- display --------------------------------------------------------------------------------

    def show_page(self, request: Request, result: QueryResult) -> None:
        if request != self.current:
            return  # a newer request superseded this one
        title = self.query_one("#rb-title", Static)
        if result.error:
            title.update(f"[b red]{escape(result.error)}[/]")
            self.table.show_records([])
            return
        first = request.offset + 1
        last = request.offset + len(result.records)
        span = f"{first}–{last}" if result.records else "none"
        title.update(
            f"[b]{request.object_name}[/] records {span}  [dim]] next page · [ previous · "
            f"enter on an Id opens it[/]"
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
        title = self.query_one("#rb-title", Static)
        if record is None:
            title.update(f"[b red]No {request.object_name} with Id {escape(request.record_id)}[/]")
            self.table.show_records([])
            return
        title.update(
            f"[b]{request.object_name}[/] {escape(request.record_id)}  "
            f"[dim]backspace: back · enter on an Id opens it[/]"
        )
        self.table.show_records(record_rows(record, related))
        self.table.focus()
