"""One step of a trajectory in full: thoughts, the query (highlighted), the observation as a table
or pretty-printed, errors in red, messages, the grade, and the step's labels and notes.

SOQL/SOSL is highlighted by a small tokenizer here rather than pygments or tree-sitter: both cost
about 0.1 s to load on first use, which is most of the viewer's opening budget.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from crmarena_tui.orgs.observations import parse_observation
from crmarena_tui.widgets.results_table import ResultsTable
from crmarena_tui.widgets.step_list import Step, pretty_json
from crmarena_tui.widgets.step_model import turn_body
from crmarena_tui.widgets.task_detail import grade_lines, readable

if TYPE_CHECKING:
    from crmarena_tui.storage.models import Annotation, Event

TEXT_LIMIT = 20_000

KEYWORDS = frozenset(
    {
        "SELECT",
        "FROM",
        "WHERE",
        "AND",
        "OR",
        "NOT",
        "IN",
        "LIKE",
        "LIMIT",
        "OFFSET",
        "ORDER",
        "BY",
        "GROUP",
        "HAVING",
        "ASC",
        "DESC",
        "NULLS",
        "FIRST",
        "LAST",
        "WITH",
        "FIND",
        "RETURNING",
        "ALL",
        "FIELDS",
        "NAME",
        "EMAIL",
        "PHONE",
        "SIDEBAR",
        "INCLUDES",
        "EXCLUDES",
        "TYPEOF",
        "WHEN",
        "THEN",
        "ELSE",
        "END",
        "USING",
        "SCOPE",
        "NULL",
        "TRUE",
        "FALSE",
        "ROLLUP",
        "CUBE",
        "FORMAT",
        "UPDATE",
        "TRACKING",
        "VIEWSTAT",
        "FOR",
        "REFERENCE",
        "VIEW",
        "DATA",
        "CATEGORY",
        "AT",
        "ABOVE",
        "BELOW",
        "ABOVE_OR_BELOW",
        "STANDARD",
        "CUSTOM",
    }
)
_TOKEN = re.compile(
    r"""
    (?P<string>'(?:[^'\\]|\\.)*'?|\{[^}]*\}?)
  | (?P<literal>\b(?:TODAY|YESTERDAY|TOMORROW|(?:LAST|NEXT|THIS)_[A-Z_]+)(?::\d+)?\b)
  | (?P<number>\b\d[\d\-:.TZ+]*\b)
  | (?P<word>[A-Za-z_][A-Za-z0-9_.]*)
  | (?P<op>[=<>!]+|[(),*])
""",
    re.VERBOSE | re.IGNORECASE,
)
STYLES = {
    "string": "green",
    "literal": "cyan",
    "number": "cyan",
    "keyword": "bold magenta",
    "function": "yellow",
    "op": "bold",
}


def highlight_soql(text: str) -> Text:
    """SOQL or SOSL as styled text: keywords, functions, strings and search terms, literals."""
    out = Text(text)
    for match in _TOKEN.finditer(text):
        group = match.lastgroup or ""
        if group == "word":
            word = match.group()
            following = text[match.end() : match.end() + 1]
            if word.upper() in KEYWORDS:
                group = "keyword"
            elif following == "(":
                group = "function"
            else:
                continue
        out.stylize(STYLES.get(group, ""), match.start(), match.end())
    return out


def records_of(value: Any) -> list[dict[str, Any]] | None:
    """The value as table rows when it is a list of records."""
    if isinstance(value, list) and value and all(isinstance(r, dict) for r in value):
        return value
    return None


def _clip(text: str) -> str:
    return (
        text if len(text) <= TEXT_LIMIT else text[:TEXT_LIMIT] + f"\n… ({len(text):,} characters)"
    )


def _time(event: Event) -> str:
    """The event's time of day, or "—" when it has none (imported upstream steps)."""
    return event.ts.strftime("%H:%M:%S") if event.ts is not None else "—"


class StepDetail(VerticalScroll):
    """Shows one `Step`; `toggle_json()` flips the observation between table and text."""

    DEFAULT_CSS = """
    StepDetail { padding: 0 1; }
    StepDetail > Static { margin-bottom: 1; }
    StepDetail > #sd-table { height: auto; max-height: 14; margin-bottom: 1; }
    StepDetail > #sd-result { margin-bottom: 0; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, can_focus=True)
        self.step: Step | None = None
        self.user_label = "user"  # who spoke as the user: the simulator, or a person
        self.grades_hidden = False  # the viewer still has this task open: no grade shown
        self.json_mode = False
        self.records: list[dict[str, Any]] | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="sd-head")
        yield Static("", id="sd-body")
        yield Static("", id="sd-result")
        yield ResultsTable(id="sd-table")
        yield Static("", id="sd-text")
        yield Static("", id="sd-after")
        yield Static("", id="sd-labels")

    def on_mount(self) -> None:
        self.query_one("#sd-table").display = False

    @property
    def table(self) -> ResultsTable:
        return self.query_one("#sd-table", ResultsTable)

    def show(
        self, step: Step | None, total: int, labels: list[Annotation], notes: list[Annotation]
    ) -> None:
        """Display `step` (of `total`) with the labels and notes the viewer may show."""
        self.step = step
        if step is None:
            self.query_one("#sd-head", Static).update("[dim]No steps in this session.[/]")
            for name in ("#sd-body", "#sd-result", "#sd-text", "#sd-after"):
                self.query_one(name, Static).update("")
                self.query_one(name, Static).display = name == "#sd-body"
            self.table.display = False
            self.show_labels(labels, notes)
            return
        anchor = step.anchor
        took = sum(ev.duration_ms or 0 for ev in step.events)
        extra = f" · {took:,.0f} ms" if took else ""
        self.query_one("#sd-head", Static).update(
            f"[b]Step {step.index + 1}[/] of {total} · [b]{escape(step.actor)}[/] · "
            f"{'message' if step.kind == 'user' else step.kind} · "
            f"event {anchor.seq} · {_time(anchor)}{extra}"
        )
        self.query_one("#sd-body", Static).update(self._body(step))
        self._show_result(step)
        after = self._after(step)
        self.query_one("#sd-after", Static).update(after or "")
        self.query_one("#sd-after", Static).display = after is not None
        self.show_labels(labels, notes)
        self.scroll_home(animate=False)

    def show_labels(self, labels: list[Annotation], notes: list[Annotation]) -> None:
        lines = [
            f"[b]⚑ {escape(a.label)}[/] [dim]by {escape(a.annotator)}[/]"
            + (f": {escape(a.note)}" if a.note else "")
            for a in labels
        ]
        lines += [f"[b]✎[/] [dim]{escape(n.annotator)}:[/] {escape(n.note)}" for n in notes]
        widget = self.query_one("#sd-labels", Static)
        widget.update(
            "\n".join(["[b]Labels and notes[/]", *lines])
            if lines
            else "[dim]No labels on this step (m: label · n: note)[/]"
        )

    def toggle_json(self) -> None:
        self.json_mode = not self.json_mode
        if self.step is not None:
            self._show_result(self.step)

    # -- parts ----------------------------------------------------------------------------------

    def _body(self, step: Step) -> RenderableType:
        parts: list[RenderableType] = []
        for ev in step.of_kind("thought"):
            if ev.text.strip():  # a reply with no <thought> leaves none
                parts.append(Text(f"thought: {ev.text}", style="italic dim"))
        for ev in step.of_kind("usage"):
            parts.append(Text(self._usage(ev.payload), style="dim"))
        for field, full in step.truncated.items():
            parts.append(
                Text(f"✂ {field} stored truncated: {full:,} characters in all", style="bold yellow")
            )
        anchor = step.anchor
        text = anchor.text
        kind = step.kind
        if kind in ("query", "search"):
            parts.append(Text.assemble(("SOSL" if kind == "search" else "SOQL", "bold"), "  "))
            parts.append(highlight_soql(text))
        elif kind == "message":
            parts.append(Text.assemble((f"{anchor.actor} → user: ", "bold"), text))
        elif kind == "user":
            parts.append(Text.assemble((f"{self.user_label}: ", "bold"), text))
        elif kind == "submit":
            parts.append(Text.assemble(("Submitted answer: ", "bold"), text))
        elif kind == "error":
            source = anchor.payload.get("source")
            parts.append(Text(f"Error{f' ({source})' if source else ''}: {text}", style="bold red"))
            reply = anchor.payload.get("reply")
            if isinstance(reply, str):
                parts.append(Text(f"model reply:\n{_clip(reply)}", style="dim"))
        elif kind == "compute":
            mode = "SQL" if anchor.payload.get("mode") == "sql" else "Expression"
            parts.append(Text.assemble((f"Scratch · {mode}  ", "bold"), text))
            if "error" in anchor.payload:
                parts.append(Text(str(anchor.payload["error"]), style="bold red"))
            elif "value" in anchor.payload:
                parts.append(Text.assemble(("= ", "bold"), str(anchor.payload["value"])))
        elif kind == "model_turn":
            parts.extend(turn_body(anchor.payload))
        elif kind in ("thought", "usage"):
            pass
        elif kind == "system" and anchor.payload.get("event") == "system_prompt":
            parts.append(Text("System prompt", style="bold"))
            parts.append(Text(_clip(text)))
        elif text and kind != "system":
            parts.append(Text(_clip(text)))
        else:
            parts.append(Text(_clip(readable(anchor.payload)), style="dim"))
        return Group(*parts) if parts else Text("")

    @staticmethod
    def _usage(payload: dict[str, Any]) -> str:
        bits = [
            f"{payload[k]:,} {k.replace('_', ' ')}"
            for k in ("prompt_tokens", "completion_tokens", "total_tokens")
            if isinstance(payload.get(k), int)
        ]
        cost = payload.get("cost")
        if isinstance(cost, int | float) and cost:
            bits.append(f"${cost:.4f}")
        return "usage: " + (" · ".join(bits) if bits else "recorded")

    def _show_result(self, step: Step) -> None:
        status = self.query_one("#sd-result", Static)
        text_widget = self.query_one("#sd-text", Static)
        result = step.result if step.kind in ("query", "search") else None
        self.records = None
        if step.kind == "compute" and "columns" in step.anchor.payload:
            self._show_computed(step.anchor.payload)
            return
        if result is None:
            status.update("")
            status.display = False
            text_widget.update("")
            text_widget.display = False
            self.table.display = False
            return
        status.display = True
        timing = f"  [dim]{result.duration_ms:,.0f} ms[/]" if result.duration_ms else ""
        if result.kind == "error":
            status.update(f"[b red]{escape(result.text)}[/]{timing}")
            text_widget.display = False
            self.table.display = False
            return
        observation = result.text
        value = parse_observation(observation)
        records = records_of(value)
        size = result.payload.get("total_size")
        count = len(records) if records is not None else (0 if value == [] else None)
        noun = f"{count:,} record{'s' if count != 1 else ''}" if count is not None else "output"
        more = (
            f" of {size:,}" if isinstance(size, int) and count is not None and size > count else ""
        )
        status.update(f"[b]observation[/] {noun}{more}{timing}  [dim]ctrl+j: table/text[/]")
        self.records = records
        if records is not None and not self.json_mode:
            self.table.show_records(records)
            self.table.display = True
            text_widget.display = False
            return
        self.table.display = False
        shown = pretty_json(value) if value is not None else observation
        text_widget.update(Text(_clip(shown)))
        text_widget.display = True

    def _show_computed(self, payload: dict[str, Any]) -> None:
        """A scratch-pane SQL output: its rows as a table (as many as the event kept)."""
        columns = [str(c) for c in payload.get("columns") or []]
        rows = payload.get("rows") or []
        kept = len(rows)
        total = payload.get("row_count", kept)
        more = f" (the first {kept:,} kept)" if isinstance(total, int) and total > kept else ""
        status = self.query_one("#sd-result", Static)
        status.update(f"[b]output[/] {total:,} rows{more}")
        status.display = True
        self.query_one("#sd-text", Static).display = False
        self.records = [dict(zip(columns, r, strict=False)) for r in rows]
        self.table.show_records(self.records)
        self.table.display = True

    def _after(self, step: Step) -> RenderableType | None:
        parts: list[RenderableType] = []
        for ev in step.of_kind("grade"):
            if self.grades_hidden:
                parts.append(Text("Grade hidden: you have this task open.", style="yellow"))
            else:
                parts.extend(grade_lines(ev.payload))
        if step.kind not in ("error", "query", "search"):
            for ev in step.of_kind("error"):
                if ev is not step.anchor:
                    parts.append(Text(f"Error: {ev.text}", style="bold red"))
        return Group(*parts) if parts else None
