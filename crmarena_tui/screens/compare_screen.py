"""Two or three sessions of one task side by side: a summary row per session (answer, reward,
time, turns, queries, errors, tokens, why it ended), then their steps aligned (queries by
normalised text, messages and responds by turn, the submissions), the first divergence marked.
Sessions of different tasks are refused, however the screen was reached. Under the summary, when
the sessions come from two participants (or humans and agents), the paired statistics `report
--versus A B` prints for those two (`reports.paired_summary`), computed in a second worker.

`enter` on a step opens the session of the column under the cursor in the trajectory viewer, at
that step; `d` jumps to the first divergence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable, Static
from textual.worker import get_current_worker

from crmarena_tui.reports.units import format_duration
from crmarena_tui.screens.base_screen import BaseScreen
from crmarena_tui.tasks.catalog import BY_NAME
from crmarena_tui.widgets.compare_rows import (
    CompareRow,
    Summary,
    align_sessions,
    first_divergence,
    results_by_seq,
    summarise,
)
from crmarena_tui.widgets.key_footer import KeyFooter
from crmarena_tui.widgets.step_detail import highlight_soql
from crmarena_tui.widgets.step_list import ICONS, one_line

if TYPE_CHECKING:
    from textual.worker import Worker

    from crmarena_tui.storage.models import Event, Session
    from crmarena_tui.storage.store import Store

LETTERS = "ABC"
SUMMARY_COLUMNS = (
    "",
    "Session",
    "Participant",
    "Answer",
    "Reward",
    "Time",
    "Turns",
    "Queries",
    "Errors",
    "Tokens",
    "Cost",
    "Ended",
)


@dataclass(frozen=True, slots=True)
class Compared:
    """Everything the compare screen shows, computed in a worker."""

    sessions: list[Session]
    summaries: list[Summary]
    rows: list[CompareRow]
    divergence: int | None
    results: list[dict[int, Event]]
    sides: tuple[str, str] | str = ""  # the paired statistics' two sides, or why there are none


def compare(store: Store, session_ids: list[int]) -> Compared:
    """Blocking: load the sessions and align them; `ValueError` for sessions of different tasks."""
    from crmarena_tui.reports.alignment import different_tasks
    from crmarena_tui.reports.paired_summary import sides_of
    from crmarena_tui.storage.configuration import session_configuration
    from crmarena_tui.storage.end_reason import end_reason

    found = [store.session(sid) for sid in session_ids]
    problem = different_tasks(found)
    if problem:
        raise ValueError(problem)
    sessions, summaries, logs, results, people = [], [], [], [], []
    for session in found:
        sid = session.id
        events = store.events(sid)
        sessions.append(session)
        grade = store.grade(sid)
        who = store.get_participant(session.participant_id)
        summaries.append(summarise(session, who, events, grade, end_reason(session, events, grade)))
        people.append((session_configuration(who, session), who.kind))
        logs.append(events)
        results.append(results_by_seq(events))
    rows = align_sessions(logs)
    return Compared(sessions, summaries, rows, first_divergence(rows), results, sides_of(people))


class CompareScreen(BaseScreen):
    """Sessions `session_ids` (two or three, one task) aligned step by step."""

    AUTO_FOCUS = "#cmp-grid"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "divergence", "First divergence", id="compare.divergence"),
        Binding("enter", "open", "Open step", id="compare.open"),
        Binding("escape", "back", "Back", id="compare.back"),
    ]

    @dataclass
    class Loaded(Message):
        compared: Compared

    @dataclass
    class PairedLoaded(Message):
        view: RenderableType

    def __init__(self, session_ids: list[int]) -> None:
        if not 2 <= len(session_ids) <= 3:
            raise ValueError("compare two or three sessions")
        super().__init__()
        self.session_ids = list(session_ids)
        self.compared: Compared | None = None

    def compose(self) -> ComposeResult:
        yield Static("[dim]aligning sessions…[/]", id="cmp-top")
        yield DataTable(id="cmp-summary", cursor_type="none", zebra_stripes=False)
        yield Static("", id="cmp-paired")
        yield DataTable(id="cmp-grid", cursor_type="cell", zebra_stripes=True)
        yield Static("", id="cmp-detail")
        yield Static(
            "[dim]= same step · ≠ different · ▶ first divergence · Q query · > respond · "
            "< user · ✔ answer · ✖ error · enter: open the step under the cursor · d: first "
            "divergence[/]",
            id="cmp-status",
        )
        yield KeyFooter()

    @property
    def grid(self) -> DataTable:
        return self.query_one("#cmp-grid", DataTable)

    def on_mount(self) -> None:
        self.grid.loading = True
        self.load()

    @work(thread=True, exclusive=True, exit_on_error=False, group="compare-load")
    def load(self) -> None:
        store = self.arena.sessions_store()
        self.post_message(self.Loaded(compare(store, self.session_ids)))

    @work(thread=True, exclusive=True, exit_on_error=False, group="compare-paired")
    def load_paired(self, sides: tuple[str, str], task_type: str) -> None:
        from crmarena_tui.reports.paired_summary import load_paired, paired_view
        from crmarena_tui.reports.summary import ReportCancelled

        worker = get_current_worker()
        try:
            paired = load_paired(
                self.arena.sessions_store(), *sides, cancelled=lambda: worker.is_cancelled
            )
        except ReportCancelled:  # the screen was left
            return
        self.post_message(self.PairedLoaded(paired_view(paired, task_type)))

    def worker_failed(self, worker: Worker) -> None:
        if worker.group == "compare-paired":  # the comparison itself stands
            self.query_one("#cmp-paired", Static).update(
                Text(f"paired statistics failed: {worker.error}", style="red")
            )
            return
        self.grid.loading = False
        self.query_one("#cmp-top", Static).update(
            f"[b red]cannot compare: {escape(str(worker.error))}[/]"
        )

    @on(Loaded)
    def _loaded(self, event: Loaded) -> None:
        data = self.compared = event.compared
        first = data.sessions[0]
        entry = BY_NAME.get(first.task_type)
        where = (
            "every step matches"
            if data.divergence is None
            else f"first divergence at row {data.divergence + 1}"
        )
        self.query_one("#cmp-top", Static).update(
            f"[b]Compare[/] · {escape(entry.label if entry else first.task_type)} "
            f"#{first.task_idx} · {len(data.sessions)} sessions · {len(data.rows)} aligned steps · "
            f"{where}"
        )
        self._fill_summary(data)
        paired = self.query_one("#cmp-paired", Static)
        if isinstance(data.sides, tuple):
            paired.update(Text("computing the paired statistics…", style="dim"))
            self.load_paired(data.sides, first.task_type)
        else:
            paired.update(Text(data.sides, style="dim"))
        self._fill_grid(data)
        self.grid.loading = False
        if data.divergence is not None:
            self.action_divergence()

    @on(PairedLoaded)
    def _paired_loaded(self, event: PairedLoaded) -> None:
        self.query_one("#cmp-paired", Static).update(event.view)

    def _fill_summary(self, data: Compared) -> None:
        table = self.query_one("#cmp-summary", DataTable)
        rows = [
            [
                letter,
                f"#{s.session_id}",
                f"{s.who} ({s.kind})",
                one_line(s.answer, 24) if s.answer is not None else "—",
                None if s.reward is None else f"{s.reward:.2f}",
                format_duration(s.seconds),
                str(s.turns),
                str(s.queries),
                str(s.errors),
                f"{s.tokens:,}" if s.tokens is not None else "—",
                f"${s.cost:.4f}" if s.cost is not None else "—",
                one_line(s.ended, 26),
            ]
            for letter, s in zip(LETTERS, data.summaries, strict=False)
        ]
        for k, name in enumerate(SUMMARY_COLUMNS):  # as wide as the widest of header and values
            widest = max([len(name)] + [len(r[k] or "—") for r in rows])
            table.add_column(name, width=widest)
        for row, s in zip(rows, data.summaries, strict=False):
            reward = (
                Text("—", style="dim")
                if s.reward is None
                else Text(row[4] or "", style="bold green" if s.win else "bold red")
            )
            table.add_row(*row[:4], reward, *row[5:])

    def _fill_grid(self, data: Compared) -> None:
        grid = self.grid
        n = len(data.sessions)
        width = max(24, (self.size.width - 12) // n - 2)
        grid.add_column("#", width=3)
        grid.add_column("", width=1)
        for letter, s in zip(LETTERS, data.summaries, strict=False):
            grid.add_column(f"{letter} · #{s.session_id} {s.who}", width=width)
        for i, row in enumerate(data.rows):
            marker = (
                Text("▶", style="bold yellow")
                if i == data.divergence
                else Text("=", style="green")
                if row.same
                else Text("≠", style="yellow")
            )
            cells = [
                self._cell(ev, data.results[k], width, i == data.divergence)
                for k, ev in enumerate(row.steps)
            ]
            grid.add_row(str(i + 1), marker, *cells, key=str(i))
        ends = [Text(f"■ {one_line(s.ended, width - 2)}", style="dim") for s in data.summaries]
        grid.add_row("", Text("■", style="dim"), *ends, key="end")

    @staticmethod
    def _cell(event: Event | None, results: dict[int, Event], width: int, diverges: bool) -> Text:
        if event is None:
            return Text("—", style="dim")
        result = results.get(event.seq)
        tail = ""
        style = "bold" if diverges else ""
        if result is not None and result.kind == "error":
            tail, style = " ✖", "red"
        elif result is not None and isinstance(result.payload.get("total_size"), int):
            tail = f" → {result.payload['total_size']}"
        icon = (
            "<"
            if event.kind == "message" and event.actor == "user"
            else ICONS.get(str(event.kind), "·")
        )
        text = one_line(event.text, max(8, width - len(tail) - 2))
        return Text(f"{icon} {text}{tail}", style=style)

    # -- actions --------------------------------------------------------------------------------

    def action_divergence(self) -> None:
        data = self.compared
        if data is None or data.divergence is None:
            self.notify("The sessions take the same steps.")
            return
        self.grid.move_cursor(row=data.divergence, column=2)
        self.grid.focus()

    def action_open(self) -> None:
        from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer

        data = self.compared
        if data is None:
            return
        row, column = self.grid.cursor_coordinate
        which = max(0, column - 2)  # the step of the column under the cursor (A left of it)
        if which >= len(data.sessions):
            return
        event = data.rows[row].steps[which] if row < len(data.rows) else None
        session = data.sessions[which]
        self.app.push_screen(
            TrajectoryViewer(session.id, focus_seq=event.seq if event is not None else None)
        )

    @on(DataTable.CellHighlighted, "#cmp-grid")
    def _cell_highlighted(self, event: DataTable.CellHighlighted) -> None:
        """The highlighted row's steps in full, one line of each session's query and result."""
        data = self.compared
        row = event.coordinate.row
        if data is None or row >= len(data.rows):
            return
        lines: list[Text] = []
        for k, ev in enumerate(data.rows[row].steps):
            head = Text(f"{LETTERS[k]} ", style="bold")
            if ev is None:
                lines.append(head + Text("(no step)", style="dim"))
                continue
            if ev.kind in ("query", "search"):
                lines.append(head + highlight_soql(one_line(ev.text, 400)))
            else:
                who = "user" if ev.actor == "user" else ev.kind
                lines.append(head + Text(f"{who}: {one_line(ev.text, 400)}"))
            result = data.results[k].get(ev.seq)
            if result is not None:
                style = "red" if result.kind == "error" else "dim"
                lines.append(Text("  " + one_line(result.text, 200), style=style))
        self.query_one("#cmp-detail", Static).update(Group(*lines))

    @on(DataTable.CellSelected, "#cmp-grid")
    def _cell_selected(self, event: DataTable.CellSelected) -> None:
        event.stop()
        self.action_open()

    def action_back(self) -> None:
        self.app.pop_screen()
