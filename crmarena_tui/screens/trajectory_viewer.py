"""Step through any session (human or agent, imported or live): a step list beside the step's
detail, search, next error, labels and notes, fork from a step, re-run a step's query.

One screen composed of parts (screens/screen_part.py), each owning its workers and state and
talking to the screen by messages: `ViewerFeed` (screens/viewer_feed.py: the session, loaded,
then tailed while in progress), `ViewerAnnotations` (viewer_annotations.py: labels and notes) and
`ViewerFork` (viewer_fork.py: forking); `ViewerSearch` (viewer_search.py: `/` and the search
jumps, `g`) has no worker and is plain logic over the feed's steps. The screen holds the widgets:
it maps the keys to the parts, and redraws when a part's message says something changed. All
database and org work runs in workers; handlers only update widgets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import ContentSwitcher, Input, Static

from crmarena_tui.screens.base_screen import BaseScreen
from crmarena_tui.screens.screen_part import ScreenPart
from crmarena_tui.screens.viewer_annotations import ViewerAnnotations
from crmarena_tui.screens.viewer_feed import ViewerFeed
from crmarena_tui.screens.viewer_fork import ViewerFork
from crmarena_tui.screens.viewer_search import ViewerSearch
from crmarena_tui.widgets.step_detail import StepDetail
from crmarena_tui.widgets.step_keys import KeyBar
from crmarena_tui.widgets.step_list import Step, StepList
from crmarena_tui.widgets.step_records import StepRecords
from crmarena_tui.widgets.task_detail import TaskDetail

if TYPE_CHECKING:
    from crmarena_tui.orgs.base import Org
    from crmarena_tui.reports.trajectory import Trajectory

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
USER_LABELS = {None: "user", "upstream": "simulated user (upstream's)", "human": "human user"}


class TrajectoryViewer(BaseScreen):
    """One session, step by step. `session_id`, or the latest session of `task_key` by you;
    `start_step` (from 1, a link's `SESSION:STEP`) is the step shown first."""

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

    def __init__(
        self,
        session_id: int | None = None,
        *,
        focus_seq: int | None = None,
        task_key: tuple[str, int] | None = None,
        hits: frozenset[int] = frozenset(),
        start_step: int | None = None,
    ) -> None:
        super().__init__()
        self.start_step = start_step
        self.feed = ViewerFeed(session_id, task_key, id="tv-feed")
        self.annotations = ViewerAnnotations(self.feed, id="tv-annotations")
        self.forks = ViewerFork(self.feed, id="tv-fork")
        self.search = ViewerSearch(self.feed, hits)  # `hits`: the events a search matched
        self.focus_seq = self.search.first_seq(focus_seq)
        self.ready = False

    def compose(self) -> ComposeResult:
        yield Static("[dim]opening session…[/]", id="tv-top")
        yield Static("", id="tv-ended")
        yield Static("", id="tv-provenance")
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
        yield from (self.feed, self.annotations, self.forks)  # the parts: no look of their own

    @property
    def session_id(self) -> int | None:
        return self.feed.session_id

    @property
    def data(self) -> Trajectory | None:
        return self.feed.data

    @property
    def steps(self) -> list[Step]:
        return self.feed.steps

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
        """Blocking (worker threads): the current org for this session's task, on the session's
        org clock (relative dates in a re-run query mean what they meant to the session)."""
        from crmarena_tui.orgs.dated_org import DatedOrg
        from crmarena_tui.session.org_clock import session_day

        assert self.data is not None
        session = self.data.session
        return DatedOrg(self.arena.org_for(session.task(), session), session_day(session))

    @property
    def current(self) -> Step | None:
        return self.step_list.current

    def on_mount(self) -> None:
        self.query_one("#tv-search").display = False
        self.feed.load()

    # -- what the parts say ---------------------------------------------------------------------

    @on(ViewerFeed.Loaded)
    def _loaded(self, event: ViewerFeed.Loaded) -> None:
        data = event.data
        start = 0
        if self.start_step is not None:
            start = min(self.start_step, len(self.steps)) - 1 if self.steps else 0
        elif self.focus_seq is not None:
            start = next(
                (s.index for s in self.steps if any(ev.seq == self.focus_seq for ev in s.events)), 0
            )
        self.step_list.set_steps(self.steps, start)
        if self.search.hits:
            self.step_list.set_matches(self.search.hit_steps())
        self.detail.user_label = USER_LABELS.get(data.session.user_simulator) or (
            f"simulated user ({data.session.user_simulator})"
        )
        self.detail.grades_hidden = self.step_list.rewards_hidden = not data.may_show_gold
        self._show_top()
        self._show_task()
        self._refresh_marks()
        self._show_current()
        self.ready = True

    @on(ViewerFeed.Grew)
    def _tailed(self, event: ViewerFeed.Grew) -> None:
        following = self.step_list.cursor >= event.steps_before - 1
        cursor = len(self.steps) - 1 if following else self.step_list.cursor
        self.step_list.set_steps(self.steps, cursor)
        self._show_top()
        self._refresh_marks()
        self._show_current()  # the step shown may have got its result meanwhile
        if event.status != "in_progress":
            self._show_task()

    @on(ViewerAnnotations.Annotated)
    def _annotated(self, event: ViewerAnnotations.Annotated) -> None:
        self._refresh_marks()
        self._show_current()

    @on(ViewerFork.Progress)
    def _fork_progress(self, event: ViewerFork.Progress) -> None:
        self._status(f"[dim]{event.text}[/]")

    @on(ViewerFork.Forked)
    def _forked(self, event: ViewerFork.Forked) -> None:
        self._status(f"forked: session {event.episode.session_id}")

    @on(ScreenPart.Failed)
    def _part_failed(self, event: ScreenPart.Failed) -> None:
        if event.group == "viewer-load":
            self.query_one("#tv-top", Static).update(
                f"[b red]cannot open the session: {escape(str(event.error))}[/]"
            )
        elif event.group == "viewer-fork":
            self._status("[red]the fork stopped with an error (see the notification)[/]")

    # -- display --------------------------------------------------------------------------------

    def _show_top(self) -> None:
        assert self.data is not None
        top, ended = self.data.header(len(self.steps), self.annotations.hidden)
        self.query_one("#tv-top", Static).update(top)
        self.query_one("#tv-ended", Static).update(ended)
        self.query_one("#tv-provenance", Static).update(self.data.provenance())

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
            return "Others' labels: hidden" if self.annotations.hidden else "Others' labels: shown"
        return None

    def _refresh_marks(self) -> None:
        assert self.data is not None
        self.step_list.set_marks(self.data.marks(self.steps, self.annotations.hidden))
        self._status(self.annotations.session_line())

    def _status(self, text: str) -> None:
        self.query_one("#tv-status", Static).update(text)

    def _show_current(self) -> None:
        step, data = self.current, self.data
        assert data is not None
        seqs = [ev.seq for ev in step.events] if step else []
        hidden = self.annotations.hidden
        labels = data.step_labels(seqs, hidden) if step else []
        notes = data.notes(seqs, hidden) if step else []
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

    def action_next_hit(self) -> None:
        """`g`: the next step a search across trajectories matched (the sessions list's `?`)."""
        if not self.search.hits:
            self.notify("Open this session from a search (? in the sessions list) first.")
        elif not self.step_list.next_where(self.search.is_hit):
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

    @on(Input.Changed, "#tv-search")
    def _search_changed(self, event: Input.Changed) -> None:
        found, said = self.search.typed(event.value)
        self.step_list.set_matches(set(found))
        if said is not None:
            self._status(said)

    @on(Input.Submitted, "#tv-search")
    def _search_next(self, event: Input.Submitted) -> None:
        event.stop()
        found = self.search.next_match(event.value, self.step_list.cursor)
        if found is None:
            self.notify(f"No step mentions “{event.value.strip()}”.", severity="warning")
            return
        target, said = found
        self.step_list.move_to(target)
        self._status(said)
        self._close_search()

    def _close_search(self) -> None:
        self.query_one("#tv-search", Input).display = False
        self.step_list.focus()

    def action_back(self) -> None:
        if self.query_one("#tv-search", Input).display:
            self._close_search()
            return
        self.app.pop_screen()

    # -- labels, notes, forks: the parts' keys --------------------------------------------------

    def action_label_step(self) -> None:
        if self.current is not None:
            self.annotations.label(self.current)

    def action_label_session(self) -> None:
        self.annotations.label(None)

    def action_note(self) -> None:
        if self.current is not None:
            self.annotations.note(self.current)

    def action_note_session(self) -> None:
        self.annotations.note(None)

    def action_toggle_hidden(self) -> None:
        self.annotations.toggle_hidden()
        self.refresh_bindings()  # the key bar names the state now on
        if self.data is not None:
            self._show_top()
            self._refresh_marks()
            self._show_current()

    def action_fork(self) -> None:
        if self.current is not None:
            self.forks.ask(self.current)

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
