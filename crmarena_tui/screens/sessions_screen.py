"""Every session of one task (or of the whole database, 100,000 sessions and more): filter them,
open one in the trajectory viewer (`enter`), mark two or three with `space` and compare them (`c`).

Filters: type-ahead text (participant, model, kind, task type, status, source, org, date, `#id`),
participant kind, and the human-vs-agent outcome of the task (human-only wins, agent-only wins,
both, neither). A filter that starts with `?` is a search across the sessions' steps
(storage/search.py, run on `enter`): the list keeps the sessions with a matching step, and a
session opened from it shows its matching steps in the viewer (`g` goes to the next). The list draws only the rows on screen (`widgets/session_list.py`); rewards,
protocols and label counts are read for those rows only, in a worker, in one batch.

Opening reads in two steps, in a worker: the newest sessions with the extent of them all
(`load_first`, milliseconds), drawn at once in their final columns; then, once drawn, every
session (`load_index`); until then the filters wait (what is typed applies when it lands).
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from rich.markup import escape
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Static

from crmarena_tui.reports.session_rows import (
    OUTCOMES,
    SessionIndex,
    TaskKey,
    load_first,
    load_index,
    mix_note,
    protocol_mix,
    task_outcomes,
    tasks_with_outcome,
)
from crmarena_tui.screens.base_screen import BaseScreen
from crmarena_tui.screens.empty_states import no_match
from crmarena_tui.widgets.choice_chip import ChoiceChip
from crmarena_tui.widgets.filter_input import FilterInput
from crmarena_tui.widgets.key_footer import KeyFooter
from crmarena_tui.widgets.later import later
from crmarena_tui.widgets.session_list import SessionList

if TYPE_CHECKING:
    from textual.worker import Worker

    from crmarena_tui.storage.models import Details, ListedSession
    from crmarena_tui.storage.search import SearchResult

MAX_COMPARE = 3
SPINNER_AFTER = 0.4  # s: a list still not read by then shows a loading spinner
FIRST_FRAME_WAIT = 0.5  # s: at most this long for the newest rows' frame before reading the rest

LIVE_SECONDS = 2.0  # how often the list looks for sessions added or finished elsewhere
_OPEN = "SUM(status = 'in_progress')"


def _state(store: Any) -> tuple:  # sessions added, or finished (a `Store`)
    return tuple(store.read(f"SELECT COUNT(*), MAX(id), {_OPEN} FROM sessions")[0])


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
        index: SessionIndex
        drawn: threading.Event | None = None  # set once the index is on screen

    @dataclass
    class Searched(Message):
        text: str
        result: SearchResult | None
        error: str = ""
        note: str = ""  # (no result yet: the index catching up on an import)

    @dataclass
    class DetailsLoaded(Message):
        details: dict[int, Details]

    @dataclass
    class OutcomesLoaded(Message):
        outcomes: dict[TaskKey, str]

    def __init__(self, task_key: TaskKey | None = None, title: str = "") -> None:
        super().__init__()
        self.task_key = task_key
        self.title_text = title
        self.index: SessionIndex | None = None
        self.outcomes: dict[TaskKey, str] | None = None  # read on the outcome filter's first use
        self.positions: list[int] = []
        self.marked: list[int] = []  # session ids, in the order they were marked
        self._status_text = ""
        self.searched: tuple[str, SearchResult] | None = None  # the `?` search run, its result

    def compose(self) -> ComposeResult:
        key = self.task_key
        what = self.title_text or (f"sessions of {key[0]}#{key[1]}" if key else "all sessions")
        yield Static(f"[b]Sessions[/] · {escape(what)}", id="ss-top")
        with Horizontal(id="ss-bar"):
            yield FilterInput(
                placeholder="/ filter: participant, model, task type, status, source, date, #id…",
                id="ss-filter",
                select_on_focus=False,
            )
            yield ChoiceChip(
                [("humans", "human"), ("agents", "agent")], prompt="anyone", id="ss-kind"
            )
            yield ChoiceChip(
                [(label, name) for name, label in OUTCOMES], prompt="any outcome", id="ss-outcome"
            )
        yield SessionList(id="ss-table")
        yield Static("", id="ss-status")
        yield KeyFooter()

    @property
    def table(self) -> SessionList:
        return self.query_one("#ss-table", SessionList)

    @property
    def rows(self) -> list[ListedSession]:
        """Every session the list holds (filtered or not), newest first."""
        return list(self.index.rows) if self.index is not None else []

    @property
    def shown(self) -> list[ListedSession]:
        """The sessions the filters let through, in the list's order."""
        rows = self.index.rows if self.index is not None else []
        return [rows[i] for i in self.positions]

    def on_mount(self) -> None:
        self.table.is_marked = lambda sid: sid in self.marked
        # The spinner only for a slow read: most lists load in a few tenths of a second, and a
        # spinner shown that briefly is a flash (and a widget mounted and laid out for nothing).
        self._spinner = later(self, SPINNER_AFTER, self._show_spinner)
        self.load(first=True)
        self._seen: tuple | None = None  # the sessions table's state when last read
        self.set_interval(LIVE_SECONDS, self._watch)

    def _watch(self) -> None:
        """Sessions written by another process (an MCP server, a `run`) show while they run:
        every few seconds one aggregate query says whether any session was added or changed
        status, and only then is the list read again."""
        loading = any(w.is_running and w.group == "sessions-load" for w in self.workers)
        if self.index is not None and self.app.screen is self and not loading:
            self._check_changed()

    @work(thread=True, exclusive=True, exit_on_error=False, group="sessions-watch")
    def _check_changed(self) -> None:
        if _state(self.arena.sessions_store()) != self._seen:
            self.app.call_from_thread(self.load)

    def _show_spinner(self) -> None:
        if self.index is None:
            self.table.loading = True

    def _loading_done(self) -> None:
        self._spinner.cancel()
        self.table.loading = False

    def on_screen_resume(self) -> None:
        if self.index is not None:
            self.load()  # labels or new sessions (a fork) may have changed meanwhile

    # -- loading (workers) ----------------------------------------------------------------------

    @work(thread=True, exclusive=True, exit_on_error=False, group="sessions-load")
    def load(self, first: bool = False) -> None:
        """Every session; on the list's opening (`first`) the newest ones before, drawn first
        (the whole read would compete with that frame for the interpreter lock)."""
        store = self.arena.sessions_store()
        self._seen = _state(store)  # before the read: a change during it is seen next time
        revealed = self.arena.revealed_tasks()  # blind mode: only tasks this participant submitted
        if first and revealed is None:
            newest = load_first(store, self.task_key)
            drawn = threading.Event()
            self.post_message(self.Loaded(newest, drawn))
            if not newest.partial:
                return
            drawn.wait(FIRST_FRAME_WAIT)
        index = load_index(store, self.task_key)
        if revealed is not None:
            rows = [r for r in index.rows if r.task_key in revealed]
            index = SessionIndex(rows, index.people)
        self.post_message(self.Loaded(index))

    @work(thread=True, exit_on_error=False, group="sessions-details")
    def load_details(self, ids: list[int]) -> None:
        from crmarena_tui.storage.listing import session_details

        arena = self.arena
        hidden = arena.hidden_labels
        if hidden is None:
            hidden = arena.settings.hidden_labels
        me = arena.participant_name or "" if hidden else None
        details = session_details(arena.sessions_store(), ids, annotator=me)
        self.post_message(self.DetailsLoaded(details))

    @work(thread=True, exclusive=True, exit_on_error=False, group="sessions-outcomes")
    def load_outcomes(self) -> None:
        from crmarena_tui.storage.listing import graded_attempts

        attempts = graded_attempts(self.arena.sessions_store())
        self.post_message(self.OutcomesLoaded(task_outcomes(attempts)))

    @work(thread=True, exclusive=True, exit_on_error=False, group="sessions-search")
    def prepare_search(self, index: SessionIndex) -> None:
        index.haystacks()  # the first filter key then only scans (it waits if this still runs)

    @on(events.DescendantFocus)
    def _focused(self, event: events.DescendantFocus) -> None:
        index = self.index
        if (
            event.widget.id == "ss-filter"
            and index is not None
            and not index.partial
            and not index.searchable
        ):
            self.prepare_search(index)

    @work(thread=True, exclusive=True, exit_on_error=False, group="sessions-query")
    def run_search(self, text: str) -> None:
        from crmarena_tui.storage.search import REFUSED, indexing_note, run

        def indexing(done: int, total: int) -> None:
            self.post_message(self.Searched(text, None, note=indexing_note(done, total)))

        try:
            result = run(self.arena.sessions_store(), text[1:], indexing)
            _ = result.sessions  # (read here, in the worker, for `apply_filter`)
        except REFUSED as exc:  # (a bad search or an unknown participant: said on the status line)
            self.post_message(self.Searched(text, None, str(exc)))
            return
        self.post_message(self.Searched(text, result))

    @on(Searched)
    def _searched(self, event: Searched) -> None:
        if self.query_one("#ss-filter", Input).value != event.text:
            return  # typed on meanwhile: this result is stale
        if event.result is None:  # (an error, or the index catching up: a progress note)
            self.searched = None
            self._status(event.note or f"[red]search: {escape(event.error)}[/]")
            return
        self.searched = (event.text, event.result)
        self.apply_filter()

    @on(Loaded)
    def _loaded(self, event: Loaded) -> None:
        self.index = event.index
        self.outcomes = None
        if self.marked:  # (sessions gone meanwhile are unmarked)
            known = {r.id for r in event.index.rows}
            self.marked = [m for m in self.marked if m in known]
        self._loading_done()
        self.table.set_index(event.index)
        self.apply_filter()
        if event.drawn is not None:
            self.call_after_refresh(event.drawn.set)
        filter_input = self.query_one("#ss-filter", Input)
        if filter_input.has_focus and not event.index.partial:
            self.prepare_search(event.index)

    @on(SessionList.NeedDetails)
    def _need_details(self, event: SessionList.NeedDetails) -> None:
        self.load_details(event.ids)

    @on(DetailsLoaded)
    def _details_loaded(self, event: DetailsLoaded) -> None:
        self.table.add_details(event.details)

    @on(OutcomesLoaded)
    def _outcomes_loaded(self, event: OutcomesLoaded) -> None:
        self.outcomes = event.outcomes
        self.apply_filter()

    def worker_failed(self, worker: Worker) -> None:
        self._loading_done()
        self._status(f"[red]cannot load the sessions: {escape(str(worker.error))}[/]")

    # -- filtering ------------------------------------------------------------------------------

    def apply_filter(self) -> None:
        if self.index is None:
            return
        if self.index.partial:  # the filters apply to every session, once they are read
            self.positions = list(range(len(self.index.rows)))
            self.table.show(self.positions, self.table.cursor)
            self._show_count()
            return
        outcome = self._select("#ss-outcome")
        tasks = None
        if outcome:
            if self.outcomes is None:
                self._status("[dim]reading every task's outcome…[/]")
                self.load_outcomes()
                return
            tasks = tasks_with_outcome(self.outcomes, outcome)
        text = self.query_one("#ss-filter", Input).value
        found: frozenset[int] | None = None
        if text.startswith("?"):  # a search across trajectories, run on enter (`run_search`)
            if (searched := self.searched) is None or searched[0] != text:
                self._status("[dim]enter: search every step for this (kind:, error:, object:…)[/]")
                return
            found, text = frozenset(searched[1].sessions), ""
        current = self.table.current
        self.positions = self.index.filter(text, self._select("#ss-kind"), tasks, found)
        cursor = 0
        if current is not None:
            ids = self.index.rows
            cursor = next((k for k, i in enumerate(self.positions) if ids[i].id == current.id), 0)
        self.table.show(self.positions, cursor)
        self._show_count()

    def _select(self, selector: str) -> str:
        return self.query_one(selector, ChoiceChip).value

    def _show_count(self) -> None:
        marked = f" · marked {', '.join(f'#{m}' for m in self.marked)}" if self.marked else ""
        index = self.index
        if index is None:
            return
        extent, rows, shown = index.whole(), index.rows, len(self.positions)
        total = extent.total
        if index.partial:
            count = f"the newest {shown:,} of {total:,} sessions · reading the rest…"
        elif not shown and total:  # the filter's text, else the choices, left none
            count = no_match("session", self.query_one("#ss-filter", Input).value, total=total)
        elif shown != total:
            count = f"{shown:,} of {total:,} sessions"
        else:
            count = f"{total:,} sessions"
        if index.partial or shown == total:
            mix = mix_note(extent.protocols)  # the whole list's, counted when it was read
        else:
            mix = protocol_mix(rows[i] for i in self.positions)
        mixed = f" · [yellow]protocols mixed: {mix}[/]" if mix else ""
        self._status(f"{count}{mixed}{marked} · space: mark · c: compare 2-3 · enter: open")

    def _status(self, text: str) -> None:
        # one line of fixed size (app.tcss): no layout, which would redraw the whole screen; and
        # no repaint at all when a keystroke leaves the counts as they were
        if text != self._status_text:
            self._status_text = text
            self.query_one("#ss-status", Static).update(text, layout=False)

    @on(Input.Changed, "#ss-filter")
    async def _filter_changed(self) -> None:
        self.table.hold_details()  # while typing: rewards and labels once the rows settle
        self.apply_filter()
        # One frame per keystroke: the list, its scrollbar and the status line each tell the
        # screen they need a repaint from their own message queue. Yielding once lets them do it
        # before this screen goes idle and draws; otherwise the input is drawn now and the rest
        # a frame later (two screen updates a key, the second one ~17 ms on).
        await asyncio.sleep(0)

    @on(Input.Submitted, "#ss-filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        if event.value.startswith("?") and len(event.value) > 1:
            self._status("[dim]searching every step…[/]")
            self.run_search(event.value)
        self.table.focus()

    @on(ChoiceChip.Changed)
    def _select_changed(self) -> None:
        self.apply_filter()

    def action_filter(self) -> None:
        self.query_one("#ss-filter", Input).focus()

    def action_reload(self) -> None:
        self.load()

    # -- picking --------------------------------------------------------------------------------

    @property
    def current(self) -> ListedSession | None:
        return self.table.current

    def action_mark(self) -> None:
        row = self.current
        if row is None:
            return
        if row.id in self.marked:
            self.marked.remove(row.id)
        elif len(self.marked) >= MAX_COMPARE:
            self.notify(f"At most {MAX_COMPARE} sessions can be compared.", severity="warning")
            return
        else:
            self.marked.append(row.id)
        self.table.redraw()
        self._show_count()
        self.table.action_cursor(1)

    def action_compare(self) -> None:
        from crmarena_tui.screens.compare_screen import CompareScreen

        if len(self.marked) < 2:
            self.notify("Mark two or three sessions with space first.", severity="warning")
            return
        by_id = {r.id: r for r in self.index.rows} if self.index is not None else {}
        if len({by_id[m].task_key for m in self.marked}) > 1:
            self.notify(
                "Compare sessions of one task: the marked sessions are on different tasks.",
                severity="warning",
            )
            return
        self.app.push_screen(CompareScreen(list(self.marked)))

    @on(SessionList.Chosen)
    def _chosen(self, event: SessionList.Chosen) -> None:
        event.stop()
        self.action_open()

    def action_open(self) -> None:
        from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer

        row = self.current
        if row is None:
            return
        found, box = self.searched, self.query_one("#ss-filter", Input)
        hits = found[1].seqs_of(row.id) if found is not None and found[0] == box.value else []
        self.app.push_screen(TrajectoryViewer(row.id, hits=frozenset(hits)))

    def action_back(self) -> None:
        """`escape`: a filter with text is cleared first (all rows back), then the list leaves."""
        box = self.query_one("#ss-filter", Input)
        if box.value:
            box.value = ""  # Input.Changed re-applies the (now empty) filter
            self.table.focus()
            return
        if self.focused is box:
            self.table.focus()
            return
        self.app.pop_screen()
