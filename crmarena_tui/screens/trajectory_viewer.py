"""Step through any session (human or agent, imported or live): a step list beside the step's
detail, search, next error, labels and notes, fork from a step, re-run a step's query.

All database and org work runs in workers; handlers only update widgets. An in-progress session
is tailed every half second (`TAIL_SECONDS`) while it is open, so a live run can be watched as it
goes, wherever it runs: the app's own agent, `run`, or an external agent through `crmarena-tui mcp`
in another process (the new events are read from the database).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import ContentSwitcher, Input, Static

from crmarena_tui.reports.trajectory import Trajectory, load_trajectory
from crmarena_tui.screens.viewer_fork import ViewerFork
from crmarena_tui.storage.end_reason import end_reason
from crmarena_tui.widgets.step_detail import StepDetail
from crmarena_tui.widgets.step_keys import KeyBar
from crmarena_tui.widgets.step_list import Step, StepList, build_steps
from crmarena_tui.widgets.step_records import StepRecords
from crmarena_tui.widgets.task_detail import TaskDetail

if TYPE_CHECKING:
    from textual.timer import Timer
    from textual.worker import Worker

    from crmarena_tui.orgs.base import Org
    from crmarena_tui.storage.models import Event, GradeRow, Session

TABS = (
    ("tv-detail", "Step", "ctrl+d"),
    ("tv-task", "Task", "t"),
    ("tv-records-pane", "Records", "ctrl+b"),
)
TAB_BAR = {  # a light tab bar: TabbedContent costs a third of the viewer's first frame
    shown: " ".join(
        f"[b reverse] {name} [/]" if tab == shown else f"[dim] {name} ({key}) [/]"
        for tab, name, key in TABS
    )
    for shown, _, _ in TABS
}
TAIL_SECONDS = 0.5  # how often an in-progress session is read again (new steps within a second)
USER_LABELS = {None: "user", "upstream": "simulated user (upstream's)", "human": "human user"}


class TrajectoryViewer(ViewerFork):
    """One session, step by step. `session_id`, or the latest session of `task_key` by you."""

    AUTO_FOCUS = "#tv-steps"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("h", "step(-1)", "Prev", id="viewer.prev-step"),
        Binding("l", "step(1)", "Next", id="viewer.next-step"),
        Binding("0", "jump(0)", "First", id="viewer.first-step"),
        Binding("dollar_sign", "jump(-1)", "Last", id="viewer.last-step"),
        Binding("e", "next_error", "Next error", id="viewer.next-error"),
        Binding("g", "next_hit", "Next hit", id="viewer.next-hit"),
        Binding("slash", "search", "Search", id="viewer.search"),
        Binding("m", "label_step", "Label", id="viewer.label-step"),
        Binding("M", "label_session", "Label session", id="viewer.label-session"),
        Binding("n", "note", "Note", id="viewer.note"),
        Binding("N", "note_session", "Session note", id="viewer.note-session"),
        Binding("f", "fork", "Fork", id="viewer.fork"),
        Binding("r", "rerun", "Re-run", id="viewer.rerun"),
        Binding("b", "toggle_hidden", "Others' labels", id="viewer.toggle-hidden"),
        Binding("t", "tab('tv-task')", "Task", id="viewer.task-tab"),
        Binding("ctrl+j", "toggle_json", "Table/text", id="viewer.toggle-json"),
        Binding("ctrl+b", "tab('tv-records-pane')", "Records", id="viewer.records-tab"),
        Binding("ctrl+d", "tab('tv-detail')", "Step detail", id="viewer.detail-tab"),
        Binding("escape", "back", "Back", id="viewer.back"),
    ]

    @dataclass
    class Loaded(Message):
        data: Trajectory

    @dataclass
    class Tail(Message):
        events: list[Event]
        session: Session  # as stored now (its status, and once ended its time)
        grade: GradeRow | None = None  # read once the session has ended

        @property
        def status(self) -> str:
            return self.session.status

    def __init__(
        self,
        session_id: int | None = None,
        *,
        focus_seq: int | None = None,
        task_key: tuple[str, int] | None = None,
        hits: frozenset[int] = frozenset(),
    ) -> None:
        super().__init__()
        self.session_id = session_id
        self.hits = hits  # events a search across trajectories matched (`g` goes to the next)
        self.focus_seq = focus_seq if focus_seq is not None or not hits else min(hits)
        self.task_key = task_key
        self.data: Trajectory | None = None
        self.steps: list[Step] = []
        self.search_text = ""
        self.ready = False
        self.tail_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static("[dim]opening session…[/]", id="tv-top")
        yield Static("", id="tv-ended")
        with Horizontal(id="tv-body"):
            yield StepList(id="tv-steps")
            with Vertical(id="tv-right"):
                yield Static(TAB_BAR["tv-detail"], id="tv-tabbar")
                with ContentSwitcher(id="tv-tabs", initial="tv-detail"):
                    yield StepDetail(id="tv-detail")
                    yield TaskDetail(id="tv-task")
                    with Vertical(id="tv-records-pane"):
                        yield Static(
                            "[dim]r on a query step re-runs it against the current org "
                            "and shows the records here.[/]",
                            id="tv-records-hint",
                        )
        yield Input(
            placeholder="search the steps' text · enter: next match · escape: close", id="tv-search"
        )
        yield Static("", id="tv-status")
        yield KeyBar(id="tv-keys")

    @property
    def step_list(self) -> StepList:
        return self.query_one("#tv-steps", StepList)

    @property
    def detail(self) -> StepDetail:
        return self.query_one("#tv-detail", StepDetail)

    async def records(self) -> StepRecords:
        """The record browser, mounted the first time it is needed (it is not cheap to mount)."""
        found = self.query("#tv-records")
        if found:
            return found.only_one(StepRecords)
        browser = StepRecords(self._org, id="tv-records")
        self.query_one("#tv-records-hint").display = False
        await self.query_one("#tv-records-pane", Vertical).mount(browser)
        return browser

    def _org(self) -> Org:
        """Blocking (worker threads): the current org for this session's task, on the task's
        date (relative dates in a re-run query mean what they meant to the session)."""
        from crmarena_tui.orgs.dated_org import DatedOrg

        assert self.data is not None
        task = self.data.session.task()
        return DatedOrg(self.arena.org_for(task, self.data.session), task.today())

    @property
    def current(self) -> Step | None:
        return self.step_list.current

    def on_mount(self) -> None:
        self.query_one("#tv-search").display = False
        self.load()

    # -- loading --------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, exit_on_error=False, group="viewer-load")
    def load(self) -> None:
        arena = self.arena
        store = arena.sessions_store()
        me = arena.participant_name or ""
        session_id = self.session_id
        if session_id is None and self.task_key is not None:
            participant = arena.named_participant()
            found = store.sessions(
                participant_id=participant.id,
                task_source=self.task_key[0],
                task_idx=self.task_key[1],
            )
            if not found:
                raise LookupError(
                    f"you have no session on task {self.task_key[0]}#{self.task_key[1]}"
                )
            session_id = found[-1].id
        assert session_id is not None
        data = load_trajectory(store, session_id, arena.settings, me, arena.hidden_labels)
        self.post_message(self.Loaded(data))

    @on(Loaded)
    def _loaded(self, event: Loaded) -> None:
        data = self.data = event.data
        self.session_id = data.session.id
        if self.arena.hidden_labels is None:
            self.arena.hidden_labels = data.hidden
        self.steps = build_steps(data.events)
        start = 0
        if self.focus_seq is not None:
            start = next(
                (s.index for s in self.steps if any(ev.seq == self.focus_seq for ev in s.events)), 0
            )
        self.step_list.set_steps(self.steps, start)
        if self.hits:
            self.step_list.set_matches({s.index for s in self.steps if self._is_hit(s)})
        self.detail.user_label = USER_LABELS.get(data.session.user_simulator) or (
            f"simulated user ({data.session.user_simulator})"
        )
        self.detail.grades_hidden = self.step_list.rewards_hidden = not data.may_show_gold
        self._show_top()
        self._show_task()
        self._refresh_marks()
        self._show_current()
        self.ready = True
        if data.session.status == "in_progress":
            self.tail_timer = self.set_interval(TAIL_SECONDS, self._poll)

    def _poll(self) -> None:
        if self.data is None:
            return
        if self.data.session.status != "in_progress":
            self._stop_tailing()
            return
        self.tail(self.data.events[-1].seq if self.data.events else 0)

    def _stop_tailing(self) -> None:
        if self.tail_timer is not None:
            self.tail_timer.stop()
            self.tail_timer = None

    @work(thread=True, exclusive=True, exit_on_error=False, group="viewer-tail")
    def tail(self, after_seq: int) -> None:
        store = self.arena.sessions_store()
        assert self.session_id is not None
        new = store.events(self.session_id, after_seq=after_seq)
        session = store.session(self.session_id)
        if new or session.status != "in_progress":
            grade = store.grade(self.session_id) if session.status != "in_progress" else None
            self.post_message(self.Tail(new, session, grade))

    @on(Tail)
    def _tailed(self, event: Tail) -> None:
        data = self.data
        if data is None:
            return
        last = data.events[-1].seq if data.events else 0
        fresh = [ev for ev in event.events if ev.seq > last]
        following = self.step_list.cursor >= len(self.steps) - 1
        data.events.extend(fresh)
        data.session = event.session
        if event.grade is not None:
            data.grade = event.grade
        data.ended = end_reason(data.session, data.events, data.grade)
        self.steps = build_steps(data.events)
        cursor = len(self.steps) - 1 if following else self.step_list.cursor
        self.step_list.set_steps(self.steps, cursor)
        self._show_top()
        self._refresh_marks()
        self._show_current()  # the step shown may have got its result meanwhile
        if event.status != "in_progress":
            self._stop_tailing()
            self._show_task()

    def worker_failed(self, worker: Worker) -> None:
        if worker.group == "viewer-load":
            self.query_one("#tv-top", Static).update(
                f"[b red]cannot open the session: {escape(str(worker.error))}[/]"
            )
        elif worker.group == "viewer-fork":
            self._status("[red]the fork stopped with an error (see the notification)[/]")

    # -- display --------------------------------------------------------------------------------

    def _show_top(self) -> None:
        assert self.data is not None
        top, ended = self.data.header(len(self.steps), self.hidden)
        self.query_one("#tv-top", Static).update(top)
        self.query_one("#tv-ended", Static).update(ended)

    def _show_task(self) -> None:
        data = self.data
        assert data is not None
        grade = data.grade.model_dump() if data.grade is not None else None
        self.query_one("#tv-task", TaskDetail).show(
            data.session.task_json, ended=data.ended, grade=grade, hidden_by=data.open_attempt
        )

    def describe_binding(self, action: str) -> str | None:
        """The key bar's label for a binding whose meaning is a state (`b`: which one is on)."""
        if action == "toggle_hidden":
            return "Others' labels: hidden" if self.hidden else "Others' labels: shown"
        return None

    def _refresh_marks(self) -> None:
        assert self.data is not None
        self.step_list.set_marks(self.data.marks(self.steps, self.hidden))
        self._show_session_labels()

    def _show_session_labels(self) -> None:
        if self.data is None:
            return
        labels = [a for a in self.data.labels(self.hidden) if a.event_seq is None]
        notes = self.data.notes(None, self.hidden)
        bits = [
            f"⚑ {escape(a.label)} [dim]({escape(a.annotator)})[/]"
            + (f" {escape(a.note)}" if a.note else "")
            for a in labels
        ]
        bits += [f"✎ {escape(n.note)} [dim]({escape(n.annotator)})[/]" for n in notes]
        self._status(
            ("[b]Session:[/] " + " · ".join(bits))
            if bits
            else "[dim]No session labels (M: label the session)[/]"
        )

    def _status(self, text: str) -> None:
        self.query_one("#tv-status", Static).update(text)

    def _show_current(self) -> None:
        step, data = self.current, self.data
        assert data is not None
        seqs = [ev.seq for ev in step.events] if step else []
        labels = data.step_labels(seqs, self.hidden) if step else []
        notes = data.notes(seqs, self.hidden) if step else []
        self.detail.show(step, len(self.steps), labels, notes)

    @on(StepList.Highlighted)
    def _highlighted(self, event: StepList.Highlighted) -> None:
        if self.ready:
            self._show_current()

    # -- moving ---------------------------------------------------------------------------------

    def action_step(self, delta: int) -> None:
        self.step_list.action_cursor(delta)

    def action_jump(self, where: int) -> None:
        self.step_list.action_jump(where)

    def action_next_error(self) -> None:
        if not self.step_list.next_where(lambda step: step.has_error):
            self.notify("No errors in this session.")

    def _is_hit(self, step: Step) -> bool:
        return any(ev.seq in self.hits for ev in step.events)

    def action_next_hit(self) -> None:
        """`g`: the next step a search across trajectories matched (the sessions list's `?`)."""
        if not self.hits:
            self.notify("Open this session from a search (? in the sessions list) first.")
        elif not self.step_list.next_where(self._is_hit):
            self.notify("No step of this session matches the search.")

    def action_tab(self, tab: str) -> None:
        self.query_one("#tv-tabs", ContentSwitcher).current = tab
        self.query_one("#tv-tabbar", Static).update(TAB_BAR[tab])

    def action_toggle_json(self) -> None:
        self.detail.toggle_json()

    # -- search ---------------------------------------------------------------------------------

    def action_search(self) -> None:
        box = self.query_one("#tv-search", Input)
        box.display = True
        box.focus()
        box.select_all()

    def matches(self, text: str) -> list[int]:
        needle = text.casefold().strip()
        return [s.index for s in self.steps if needle and needle in s.haystack]

    @on(Input.Changed, "#tv-search")
    def _search_changed(self, event: Input.Changed) -> None:
        self.search_text = event.value
        found = self.matches(event.value)
        self.step_list.set_matches(set(found))
        if event.value.strip():
            self._status(
                f"{len(found)} step{'s' if len(found) != 1 else ''} match "
                f"“{escape(event.value.strip())}”"
            )

    @on(Input.Submitted, "#tv-search")
    def _search_next(self, event: Input.Submitted) -> None:
        event.stop()
        found = self.matches(event.value)
        if not found:
            self.notify(f"No step mentions “{event.value.strip()}”.", severity="warning")
            return
        cursor = self.step_list.cursor
        target = next((i for i in found if i > cursor), found[0])
        self.step_list.move_to(target)
        self._status(f"match {found.index(target) + 1} of {len(found)} · / then enter: next")
        self._close_search()

    def _close_search(self) -> None:
        self.query_one("#tv-search", Input).display = False
        self.step_list.focus()

    def action_back(self) -> None:
        if self.query_one("#tv-search", Input).display:
            self._close_search()
            return
        self.app.pop_screen()

    # -- re-run ---------------------------------------------------------------------------------

    async def action_rerun(self) -> None:
        step = self.current
        if step is None or self.data is None:
            return
        if step.kind not in ("query", "search"):
            self.notify("Only a query or search step can be re-run.", severity="warning")
            return
        self._status(f"[dim]re-running step {step.index + 1}…[/]")
        (await self.records()).rerun(step.index + 1, step.anchor.text)

    @on(StepRecords.Shown)
    def _reran(self, event: StepRecords.Shown) -> None:
        self.action_tab("tv-records-pane")
        result = event.result
        if result.ok:
            n = len(result.records)
            self._status(
                f"step {event.step} re-run against the current org: {n} "
                f"record{'s' if n != 1 else ''} · enter on an Id opens it · backspace "
                f"goes back"
            )
        else:
            self._status(f"[red]step {event.step} re-run: {escape(result.error or '')}[/]")
