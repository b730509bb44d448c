"""Every session of one task (or of the whole database): filter them, open one in the trajectory
viewer (`enter`), mark two or three with `space` and compare them (`c`).

Filters: type-ahead text (participant, model, task type, status, `#id`), participant kind, and the
human-vs-agent outcome of the task (human-only wins, agent-only wins, both, neither).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import DataTable, Footer, Input, Select, Static

from crmarena_tui.reports.session_rows import (
    OUTCOMES,
    SessionRow,
    TaskKey,
    filter_rows,
    load_rows,
    protocol_mix,
    task_outcomes,
)
from crmarena_tui.screens.base_screen import BaseScreen
from crmarena_tui.widgets.session_clock import format_seconds

COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("mark", "✓", 1),
    ("id", "Session", 6),
    ("who", "Participant", 22),
    ("kind", "Kind", 5),
    ("task", "Task", 22),
    ("idx", "#", 5),
    ("status", "Status", 10),
    ("reward", "Reward", 6),
    ("time", "Time", 7),
    ("labels", "Labels", 6),
    ("parent", "Fork of", 7),
)

if TYPE_CHECKING:
    from textual.worker import Worker
MAX_COMPARE = 3


class SessionsScreen(BaseScreen):
    """Sessions of `task_key` (source, idx), or of every task when None."""

    AUTO_FOCUS = "#ss-table"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "mark", "Mark", id="sessions.mark"),
        Binding("c", "compare", "Compare", id="sessions.compare"),
        Binding("enter", "open", "Open", id="sessions.open"),
        Binding("slash", "filter", "Filter", id="sessions.filter"),
        Binding("f5", "reload", "Refresh", id="sessions.reload"),
        Binding("escape", "back", "Back", id="sessions.back"),
    ]

    @dataclass
    class Loaded(Message):
        rows: list[SessionRow]
        outcomes: dict[TaskKey, str]

    def __init__(self, task_key: TaskKey | None = None, title: str = "") -> None:
        super().__init__()
        self.task_key = task_key
        self.title_text = title
        self.rows: list[SessionRow] = []
        self.outcomes: dict[TaskKey, str] = {}
        self.shown: list[SessionRow] = []
        self.marked: list[int] = []  # session ids, in the order they were marked

    def compose(self) -> ComposeResult:
        what = self.title_text or (
            "all sessions"
            if self.task_key is None
            else f"sessions of {self.task_key[0]}#{self.task_key[1]}"
        )
        yield Static(f"[b]Sessions[/] · {escape(what)}", id="ss-top")
        with Horizontal(id="ss-bar"):
            yield Input(
                placeholder="/ filter: participant, model, task type, status, #id…",
                id="ss-filter",
                select_on_focus=False,
            )
            yield Select(
                [("humans", "human"), ("agents", "agent")],
                prompt="anyone",
                id="ss-kind",
                compact=True,
            )
            yield Select(
                [(label, name) for name, label in OUTCOMES],
                prompt="any outcome",
                id="ss-outcome",
                compact=True,
            )
        yield DataTable(id="ss-table", cursor_type="row", zebra_stripes=True)
        yield Static("", id="ss-status")
        yield Footer(compact=True)

    @property
    def table(self) -> DataTable:
        return self.query_one("#ss-table", DataTable)

    def on_mount(self) -> None:
        for key, label, width in COLUMNS:
            self.table.add_column(label, key=key, width=width)
        self.table.loading = True
        self.load()

    def on_screen_resume(self) -> None:
        if self.rows:
            self.load()  # labels or new sessions (a fork) may have changed meanwhile

    @work(thread=True, exclusive=True, exit_on_error=False, group="sessions-load")
    def load(self) -> None:
        arena = self.arena
        store = arena.sessions_store()
        hidden = arena.hidden_labels
        if hidden is None:
            hidden = arena.settings.hidden_labels
        rows = load_rows(store, self.task_key, me=arena.participant_name or "", hidden=hidden)
        revealed = arena.revealed_tasks()  # blind mode: only tasks this participant submitted
        if revealed is not None:
            rows = [r for r in rows if r.task_key in revealed]
        self.post_message(self.Loaded(rows, task_outcomes(rows)))

    @on(Loaded)
    def _loaded(self, event: Loaded) -> None:
        self.rows, self.outcomes = event.rows, event.outcomes
        known = {r.session.id for r in self.rows}
        self.marked = [m for m in self.marked if m in known]
        self.table.loading = False
        self.apply_filter()

    def worker_failed(self, worker: Worker) -> None:
        self.table.loading = False
        self._status(f"[red]cannot load the sessions: {escape(str(worker.error))}[/]")

    # -- filtering ------------------------------------------------------------------------------

    def apply_filter(self) -> None:
        text = self.query_one("#ss-filter", Input).value
        kind = self._select("#ss-kind")
        outcome = self._select("#ss-outcome")
        self.shown = filter_rows(self.rows, text, kind, outcome, self.outcomes)
        table = self.table
        cursor = table.cursor_row
        table.clear()
        for row in self.shown:
            table.add_row(*self._cells(row), key=str(row.session.id))
        if self.shown:
            table.move_cursor(row=min(cursor, len(self.shown) - 1))
        self._show_count()

    def _select(self, selector: str) -> str:
        select = self.query_one(selector, Select)
        return "" if select.is_blank() else str(select.value)

    def _cells(self, row: SessionRow) -> list[str | Text]:
        s, p = row.session, row.participant
        reward = (
            Text("—", style="dim")
            if row.reward is None
            else Text(f"{row.reward:.2f}", style="green" if row.reward >= 1 else "red")
        )
        seconds = s.active_seconds
        return [
            "✓" if s.id in self.marked else "",
            str(s.id),
            p.name,
            p.kind,
            row.task_label,
            str(s.task_idx),
            s.status.replace("_", " "),
            reward,
            format_seconds(seconds) if seconds is not None else "—",
            str(row.labels or ""),
            f"#{s.parent_session_id}" if s.parent_session_id else "",
        ]

    def _show_count(self) -> None:
        marked = f" · marked {', '.join(f'#{m}' for m in self.marked)}" if self.marked else ""
        total = len(self.rows)
        shown = len(self.shown)
        count = f"{shown:,} of {total:,} sessions" if shown != total else f"{total:,} sessions"
        mix = protocol_mix(self.shown)
        mixed = f" · [yellow]protocols mixed: {mix}[/]" if mix else ""
        self._status(f"{count}{mixed}{marked} · space: mark · c: compare 2-3 · enter: open")

    def _status(self, text: str) -> None:
        self.query_one("#ss-status", Static).update(text)

    @on(Input.Changed, "#ss-filter")
    def _filter_changed(self) -> None:
        self.apply_filter()

    @on(Input.Submitted, "#ss-filter")
    def _filter_done(self) -> None:
        self.table.focus()

    @on(Select.Changed)
    def _select_changed(self) -> None:
        self.apply_filter()

    def action_filter(self) -> None:
        self.query_one("#ss-filter", Input).focus()

    def action_reload(self) -> None:
        self.load()

    # -- picking --------------------------------------------------------------------------------

    @property
    def current(self) -> SessionRow | None:
        row = self.table.cursor_row
        return self.shown[row] if 0 <= row < len(self.shown) else None

    def action_mark(self) -> None:
        row = self.current
        if row is None:
            return
        sid = row.session.id
        if sid in self.marked:
            self.marked.remove(sid)
        elif len(self.marked) >= MAX_COMPARE:
            self.notify(f"At most {MAX_COMPARE} sessions can be compared.", severity="warning")
            return
        else:
            self.marked.append(sid)
        self.table.update_cell(str(sid), "mark", "✓" if sid in self.marked else "")
        self._show_count()
        if self.table.cursor_row < len(self.shown) - 1:
            self.table.move_cursor(row=self.table.cursor_row + 1)

    def action_compare(self) -> None:
        from crmarena_tui.screens.compare_screen import CompareScreen

        if len(self.marked) < 2:
            self.notify("Mark two or three sessions with space first.", severity="warning")
            return
        by_id = {r.session.id: r for r in self.rows}
        tasks = {by_id[m].task_key for m in self.marked}
        if len(tasks) > 1:
            self.notify(
                "Compare sessions of one task: the marked sessions are on different tasks.",
                severity="warning",
            )
            return
        self.app.push_screen(CompareScreen(list(self.marked)))

    @on(DataTable.RowSelected, "#ss-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def action_open(self) -> None:
        from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer

        row = self.current
        if row is not None:
            self.app.push_screen(TrajectoryViewer(row.session.id))

    def action_back(self) -> None:
        if self.focused is self.query_one("#ss-filter", Input):
            self.table.focus()
            return
        self.app.pop_screen()
