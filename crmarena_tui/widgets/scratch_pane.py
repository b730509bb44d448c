"""The scratch pane: compute inside the app, on the clock.

One input line: an expression (`2 + 2`, `date("2024-03-05") - date("2024-01-01")`,
`days_between(a, b)`) or SQL starting with SELECT or WITH over the session's result sets, each a
table named as the query that fetched it (`r1`, `r2`, ...), listed above the input with its
columns. `enter` runs (the screen computes in a worker and calls `show_output`) and empties the
input; `up` / `down` recall earlier inputs; `ctrl+a` selects the whole input (typing replaces it),
`ctrl+u` deletes to its start; `f7` / `f8` copy the output as TSV / CSV; `f9` saves it to a file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from crmarena_tui.widgets.results_table import ResultsTable

if TYPE_CHECKING:
    from crmarena_tui.scratch.compute_output import ComputeOutput
    from crmarena_tui.scratch.result_tables import TableInfo

HELP = (
    "An expression (2 + 2 · days_between(a, b) · date(a) - date(b) · mean([..])) or SQL over "
    "your results: SELECT ... FROM r1 (dates: days_between, hours_between, sf_date, sf_month; "
    "median). enter runs · f7/f8 copy TSV/CSV · f9 saves"
)
PLACEHOLDER = "e.g. SELECT OwnerId, AVG(days_between(CreatedDate, ClosedDate)) FROM r1 GROUP BY 1"


class ScratchInput(Input):
    """The scratch pane's input: `ctrl+a` selects all (as in the editor), not "go to start"."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+a", "select_all", "Select all", show=False, id="scratch.select-all"),
    ]


class ScratchPane(Vertical):
    """Input, the tables available, and the last output."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f7", "copy('tsv')", "Copy TSV", id="scratch.copy-tsv"),
        Binding("f8", "copy('csv')", "Copy CSV", id="scratch.copy-csv"),
        Binding("f9", "save", "Save", id="scratch.save"),
        Binding("up", "recall(-1)", "Earlier input", show=False, id="scratch.history-prev"),
        Binding("down", "recall(1)", "Later input", show=False, id="scratch.history-next"),
    ]

    @dataclass
    class Run(Message):
        pane: ScratchPane
        text: str

        @property
        def control(self) -> ScratchPane:
            return self.pane

    @dataclass
    class SaveWanted(Message):
        pane: ScratchPane
        output: ComputeOutput

        @property
        def control(self) -> ScratchPane:
            return self.pane

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.output: ComputeOutput | None = None
        self.inputs: list[str] = []
        self._recall: int | None = None

    def compose(self) -> ComposeResult:
        yield Static(HELP, id="scratch-help")
        with VerticalScroll(id="scratch-tables"):
            yield Static(
                "No result sets yet: every query you run becomes r1, r2, ...", id="scratch-list"
            )
        yield ScratchInput(placeholder=PLACEHOLDER, id="scratch-input")
        yield Static("", id="scratch-status")
        yield ResultsTable(id="scratch-table")

    @property
    def input(self) -> Input:
        return self.query_one("#scratch-input", Input)

    @property
    def table(self) -> ResultsTable:
        return self.query_one("#scratch-table", ResultsTable)

    def show_tables(self, tables: list[TableInfo]) -> None:
        """List the result sets as tables: name, rows, columns (or why there is none)."""
        if not tables:
            return
        text = Text()
        for info in tables:
            if text:
                text.append("\n")
            text.append(info.name, style="bold")
            if info.rows is None:
                text.append(f"  no table: {info.error or 'the query failed'}", style="dim")
                continue
            text.append(f"  {info.rows:,} rows  ")
            text.append(", ".join(info.columns) or "(no columns)", style="dim")
        self.query_one("#scratch-list", Static).update(text)

    def show_running(self, text: str) -> None:
        self.query_one("#scratch-status", Static).update(Text(f"computing… {text}", style="dim"))

    def show_output(self, output: ComputeOutput) -> None:
        """The output of the last computation: a value, a table, or the error in full."""
        self.output = output
        status = self.query_one("#scratch-status", Static)
        timing = f"  {output.elapsed_ms:,.0f} ms"
        if output.error is not None:
            status.update(Text.assemble((output.error, "bold red"), (timing, "dim")))
            self.table.show_records([])
            return
        if output.mode == "expression":
            status.update(Text.assemble(("= ", "bold"), (output.value, "bold"), (timing, "dim")))
            self.table.show_records([])
            return
        status.update(Text.assemble((output.summary(), "bold"), (timing, "dim")))
        names = _unique(output.columns)
        self.table.show_records([dict(zip(names, row, strict=False)) for row in output.rows])

    @on(Input.Submitted, "#scratch-input")
    def _run(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if not text:
            self.notify(
                "Type an expression or a SELECT over r1, r2, ... first.", severity="warning"
            )
            return
        self.remember(text)
        self.input.value = ""  # the next computation starts on an empty line (`up` recalls)
        self.post_message(self.Run(self, text))

    def remember(self, text: str) -> None:
        """Add `text` to the inputs `up` recalls (a resumed session's, or one just run)."""
        if not self.inputs or self.inputs[-1] != text:
            self.inputs.append(text)
        self._recall = None

    def action_recall(self, step: int) -> None:
        if not self.input.has_focus or not self.inputs:
            return
        pos = len(self.inputs) if self._recall is None else self._recall
        pos = max(0, min(len(self.inputs), pos + step))
        self._recall = pos
        self.input.value = self.inputs[pos] if pos < len(self.inputs) else ""
        self.input.cursor_position = len(self.input.value)

    def action_copy(self, fmt: str) -> None:
        if self.output is None:
            self.notify("Nothing computed yet.", severity="warning")
            return
        self.app.copy_to_clipboard(self.output.as_delimited("," if fmt == "csv" else "\t"))
        self.notify(f"Copied the output as {fmt.upper()}.")

    def action_save(self) -> None:
        if self.output is None:
            self.notify("Nothing computed yet.", severity="warning")
            return
        self.post_message(self.SaveWanted(self, self.output))


def _unique(columns: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    names = []
    for column in columns:
        seen[column] = seen.get(column, 0) + 1
        names.append(column if seen[column] == 1 else f"{column}:{seen[column]}")
    return names
