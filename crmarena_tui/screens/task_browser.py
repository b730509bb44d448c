"""The start screen: every task of the source, facets, your status per task, a type-ahead filter."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.markup import escape
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Label, Select
from textual.widgets.input import Selection

from crmarena_tui.screens.base_screen import BaseScreen
from crmarena_tui.screens.empty_states import no_match
from crmarena_tui.tasks.blind import BlindView
from crmarena_tui.tasks.catalog import TASK_TYPES
from crmarena_tui.tasks.index import Facets, TaskIndex, TaskStatus
from crmarena_tui.tasks.table import TaskTable
from crmarena_tui.widgets.filter_input import FilterInput
from crmarena_tui.widgets.key_footer import KeyFooter
from crmarena_tui.widgets.later import later
from crmarena_tui.widgets.task_list import TaskList

if TYPE_CHECKING:
    from textual.widgets import ProgressBar

    from crmarena_tui.tasks.model import Task
    from crmarena_tui.tasks.table import TaskHead, TaskRow

FACETS: tuple[tuple[str, str, list[tuple[str, str]]], ...] = (
    ("task_type", "any type", [(t.label, t.name) for t in TASK_TYPES]),
    ("org_type", "any org", [("B2B", "b2b"), ("B2C", "b2c"), ("original", "original")]),
    ("mode", "any mode", [("single-turn", "single"), ("interactive", "interactive")]),
    (
        "metric",
        "any metric",
        [
            ("exact match", "exact_match"),
            ("fuzzy match", "fuzzy_match"),
            ("privacy rejection", "privacy_rejection"),
        ],
    ),
    (
        "status",
        "any status",
        [("not started", "new"), ("started", "in progress"), ("submitted", "submitted")],
    ),
)
BLIND_FACETS = ("org_type", "mode", "status")  # blind mode offers no type or metric facet
FILTER_HINT = "/ filter: type words (type, org, metric, query text)…"
BLIND_FILTER_HINT = "/ filter: type words (org, chat or single, query text, #number)…"


READY_NOTICE_SECONDS = 4.0


def _clear_if(label: Label, text: str) -> None:
    if label.content == text:
        label.update("")


class TaskBrowser(BaseScreen):
    """Browse and filter tasks; `enter` opens one in the workspace."""

    @dataclass
    class OpenTask(Message):
        """The participant chose a task to work on (the app opens it, or says why not)."""

        task: Task

    AUTO_FOCUS = "#tasks"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_filter", "Filter", id="browser.focus-filter"),
        Binding("escape", "clear_filter", "Clear filter", id="browser.clear-filter"),
        Binding("f5", "reload_statuses", "Refresh", id="browser.reload-statuses"),
        Binding("f3", "sessions", "Sessions", id="browser.sessions"),
        Binding("f4", "all_sessions", "All sessions", id="browser.all-sessions"),
        Binding("f9", "report", "Report", id="browser.report"),
        Binding("ctrl+g", "run_agent", "Run agent", id="browser.run-agent"),
        Binding("f7", "study", "Study", id="browser.study"),
    ]
    RESEARCH = frozenset({"sessions", "all_sessions", "report", "run_agent"})

    def __init__(self) -> None:
        super().__init__()
        self.index = TaskIndex(())
        self.facets = Facets()
        self.view = BlindView()
        self.reading_rest = False  # the list holds a file's first rows; the rest is being read
        self._count_text = ""  # what the count line shows (`_say`)
        self._waiting: str | None = "loading tasks…"  # what it says until the first rows come
        self.no_org: dict[str, str] = {}  # task key -> why no org here can answer it

    def compose(self) -> ComposeResult:
        arena = self.arena
        if arena.options.tasks in ("demo", "demo:small") and not arena.tasks:
            # a demo set not built yet (a machine's first run) is made from the demo orgs, once
            self._waiting = "first run (~15 s):"  # the org and tasks progress follows it
        with Horizontal(id="browser-bar"):
            yield Label("CRMArena-Pro", id="browser-title")
            yield FilterInput(  # (a key repaints the input alone while its text fits)
                placeholder=FILTER_HINT,
                id="filter",
                select_on_focus=False,
            )
            yield Label("", id="participant")
        yield Horizontal(id="facets")  # the Selects (~60 ms) mount once the task rows are drawn
        yield TaskList(id="tasks")
        with Horizontal(id="browser-status"):
            yield Label(self._waiting or "", id="count")
            yield Label("", id="org-status")  # the org build's bar mounts after it when needed
            yield Label("", id="db-status")
        yield KeyFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """In a study: the participant's study screen, and none of the research screens (other
        participants' sessions and grades, agents); outside one the study screen is in the
        command palette ("Studies")."""
        if self.arena.options.study:
            return False if action in self.RESEARCH else super().check_action(action, parameters)
        return False if action == "study" else super().check_action(action, parameters)

    def on_mount(self) -> None:
        self.task_list.focus()
        if rows := self.arena.shown_tasks():  # read before the first frame (built
            self.show_tasks(rows, self.arena.statuses, self.arena.blind_view)  # demo sets)

    def _mount_facets(self) -> None:
        facets = self.query_one("#facets", Horizontal)
        if facets.children:
            return
        facets.mount_all(
            Select(
                options,
                prompt=blank,
                id=f"facet-{name.replace('_', '-')}",
                classes="facet",
                compact=True,
            )
            for name, blank, options in FACETS
            if not self.view.enabled or name in BLIND_FACETS
        )

    def _ensure_focus(self) -> None:
        """The list has the focus unless the participant put it elsewhere."""
        if self.focused is None and self.is_current:
            self.task_list.focus()

    def on_screen_resume(self) -> None:
        """Back from a task: its status may have changed, and the list has the focus (a filter
        left focused would take the next `/` or query as text)."""
        if self.index.tasks:
            self.arena.refresh_statuses()
        if self.query("#tasks"):
            self.task_list.focus()

    # -- data from the app ----------------------------------------------------------------------

    @property
    def task_list(self) -> TaskList:
        return self.query_one("#tasks", TaskList)

    def show_tasks(
        self,
        tasks: Sequence[TaskRow],
        statuses: dict[str, TaskStatus],
        view: BlindView | None = None,
    ) -> None:
        """List `tasks`; a blind `view` orders and numbers them and hides types and metrics. A
        `partial` table (a file's first rows) says the rest is loading; when the rest comes the
        cursor stays on its row (the first rows come first in both, so its place is the same)."""
        cursor = self.task_list.cursor if self.reading_rest else 0
        self._waiting = None
        self.reading_rest = isinstance(tasks, TaskTable) and tasks.partial
        self.view = view or BlindView()
        ordered = self.view.arrange(tasks)
        self.index = TaskIndex(ordered, statuses, self.view)
        self.task_list.set_tasks(ordered, statuses, self.view)
        self.mark_orgless(ordered)
        self.query_one("#filter", Input).placeholder = (
            BLIND_FILTER_HINT if self.view.enabled else FILTER_HINT
        )
        self.apply_filter()
        self.task_list.move_to(cursor)
        self.call_after_refresh(self._ensure_focus)
        self.call_after_refresh(self._mount_facets)

    def mark_orgless(self, tasks: Sequence[TaskRow]) -> None:
        """Mark the tasks no org on this machine can answer (`task_orgs`): "no org" in the
        list, their count in the status line; opening one says what to run instead."""
        from crmarena_tui.session.task_orgs import tasks_without_org

        configured = "factory" if self.arena.org_factory else self.arena.options.org
        self.no_org = tasks_without_org(tasks, configured)
        self.task_list.set_no_org(frozenset(self.no_org))

    def refuse_orgless(self, task: TaskHead) -> bool:
        """True (and the reason said) when no org here can answer `task`."""
        why = self.no_org.get(task.key)
        if why:
            self.notify(why, title="No org for this task", severity="error", timeout=20)
        return bool(why)

    def show_statuses(self, statuses: dict[str, TaskStatus]) -> None:
        self.index.set_statuses(statuses)
        if not self.query("#tasks"):  # not composed yet (a screen went on top first): the app
            return  # hands its statuses to show_tasks, which runs once the list exists
        self.task_list.set_statuses(statuses)
        if self.facets.status:
            self.apply_filter()
        self._queue_done()

    def _queue_done(self) -> None:
        """A study's queue with every task done: say so where the count is."""
        tasks = self.index.tasks
        if (
            self.view.queue
            and tasks
            and all(self.index.status(t).state == "submitted" for t in tasks)
        ):
            self._say(f"[b]All {len(tasks)} tasks done — thank you.[/] ctrl+q quits.")

    def show_load_error(self, error: str) -> None:
        self._waiting = f"[b red]Cannot load tasks:[/] {error}"  # (a filter keeps it shown)
        self._say(self._waiting)
        self.call_after_refresh(self._mount_facets)

    def show_participant(self, name: str) -> None:
        blind = " [dim](blind)[/]" if self.view.enabled else ""
        self.query_one("#participant", Label).update(f"as [b]{escape(name)}[/]{blind}")

    def show_db(self, path: str, origin: str) -> None:
        """Name the sessions database when an environment variable or the config file chose
        it (`ctrl+p` → About always names it): a database chosen elsewhere must not go
        unnoticed."""
        if origin not in ("default", "--db"):
            shown = path if len(path) <= 48 else "…" + path[-47:]
            self.query_one("#db-status", Label).update(
                f"sessions: {escape(shown)} (from {escape(origin)})"
            )

    def _org_progress_bar(self) -> ProgressBar:
        """The org build's bar, mounted on first use: most starts build no org."""
        from textual.widgets import ProgressBar

        if bars := list(self.query("#org-progress").results(ProgressBar)):
            return bars[0]
        bar = ProgressBar(total=1.0, show_eta=False, id="org-progress")
        self.query_one("#browser-status", Horizontal).mount(bar, after="#org-status")
        return bar

    def show_org_progress(
        self, org_type: str, fraction: float, text: str, *, making_tasks: bool = False
    ) -> None:
        """A demo org's build (first run), or (`making_tasks`) the demo tasks made after it."""
        label = self.query_one("#org-status", Label)
        if fraction >= 1.0:
            for bar in self.query("#org-progress"):
                bar.display = False
            ready = "demo tasks made" if making_tasks else f"demo {org_type} org ready"
            label.update(ready)
            # the notice goes after a moment, unless something else is shown by then
            later(self, READY_NOTICE_SECONDS, lambda: _clear_if(label, ready))
            return
        bar = self._org_progress_bar()
        bar.display = True
        bar.update(progress=fraction)
        if making_tasks:
            label.update(text)
            return
        label.update(
            f"building demo {org_type} org: {text}" if text else f"building demo {org_type} org"
        )

    def next_after(self, task: Task) -> Task | None:
        """The task after `task` in the list as filtered now (wrapping), None if no other."""
        visible = self.task_list.visible_tasks()
        keys = [t.key for t in visible]
        if task.key in keys:
            pos = keys.index(task.key)
            ordered = visible[pos + 1 :] + visible[:pos]
        else:
            ordered = visible
        ordered = [t for t in ordered if t.key not in self.no_org]  # none that cannot open
        return ordered[0].full() if ordered else None

    # -- filtering ------------------------------------------------------------------------------

    def apply_filter(self) -> None:
        text = self.query_one("#filter", Input).value
        rows = self.index.filter(text, self.facets)
        faceted = any(_facet_dict(self.facets).values())
        self.task_list.empty_text = Text.from_markup(
            no_match("task", text, faceted=faceted, total=len(self.index.tasks))
        ).plain
        self.task_list.show(rows)
        self._say(self._count(len(rows)))
        self._queue_done()

    def _say(self, text: str) -> None:
        """The count line: updated only when its text changes (an update lays the whole screen
        out, even to the same text: a filter key that leaves the count would do it every time)."""
        if text != self._count_text:
            self._count_text = text
            self.query_one("#count", Label).update(text)

    def _count(self, shown: int) -> str:
        """How many tasks the list shows, of how many (while a file loads: of its first rows;
        before any row came, that they are coming: a filter typed meanwhile finds none yet)."""
        if self._waiting is not None:
            return self._waiting
        total = len(self.index.tasks)
        if self.reading_rest:
            return f"{shown:,} of the first {total:,} tasks · loading the rest…"
        count = f"{shown:,} of {total:,} tasks" if shown != total else f"{total:,} tasks"
        if self.no_org:
            count += (
                f" · [b $error]{len(self.no_org):,} with no org here[/] (enter on one says "
                "what to run)"
            )
        return count

    @on(Input.Changed, "#filter")
    def _filter_changed(self) -> None:
        self.apply_filter()

    @on(Select.Changed, ".facet")
    def _facet_changed(self, event: Select.Changed) -> None:
        name = (event.select.id or "").removeprefix("facet-").replace("-", "_")
        value = "" if event.select.is_blank() else str(event.value)
        self.facets = Facets(**{**_facet_dict(self.facets), name: value})
        self.apply_filter()

    @on(Input.Submitted, "#filter")
    def _open_first(self) -> None:
        row = self.task_list.current_row
        if row is not None and not self.refuse_orgless(row):
            task = self.task_list.current
            if task is not None:
                self.post_message(self.OpenTask(task))

    @on(TaskList.Chosen)
    def _open_chosen(self, event: TaskList.Chosen) -> None:
        if not self.refuse_orgless(event.task):
            self.post_message(self.OpenTask(event.task))

    def on_key(self, event: events.Key) -> None:
        """Down from the filter goes to the list; typing in the list goes to the filter."""
        focused = self.focused
        filt = self.query_one("#filter", Input)
        if focused is filt and event.key == "down" and self.task_list.row_count:
            self.set_focus(self.task_list)
            event.stop()
        elif isinstance(focused, TaskList) and event.is_printable and event.character != "/":
            self.set_focus(filt)
            filt.insert_text_at_cursor(event.character or "")
            event.stop()

    # -- actions --------------------------------------------------------------------------------

    def action_focus_filter(self) -> None:
        """`/`: the filter, its old text selected (typing replaces it; an arrow key keeps it)."""
        filt = self.query_one("#filter", Input)
        self.set_focus(filt)
        filt.selection = Selection(0, len(filt.value))

    def action_clear_filter(self) -> None:
        filt = self.query_one("#filter", Input)
        filt.value = ""
        self.set_focus(filt)

    def action_reload_statuses(self) -> None:
        self.arena.refresh_statuses()

    def action_run_agent(self) -> None:
        """Run an agent on the highlighted task and watch it live (not on one no org answers)."""
        row = self.task_list.current_row
        if row is not None and self.refuse_orgless(row):
            return
        self.arena.run_agent(self.task_list.current)

    # -- research screens -----------------------------------------------------------------------

    def action_sessions(self) -> None:
        """Every session of the highlighted task: view one, compare two or three."""
        from crmarena_tui.screens.sessions_screen import SessionsScreen
        from crmarena_tui.tasks.catalog import BY_NAME

        task = self.task_list.current
        if task is None:
            return
        if self.view.enabled and not self.arena.submitted(task):
            from crmarena_tui.tasks.blind import BLIND_REFUSAL

            self.notify(BLIND_REFUSAL.format(what="its sessions list"), severity="warning")
            return
        entry = BY_NAME.get(task.task)
        title = f"{entry.label if entry else task.task} #{task.idx} ({task.source})"
        self.app.push_screen(SessionsScreen((task.source, task.idx), title=title))

    def action_all_sessions(self) -> None:
        from crmarena_tui.screens.sessions_screen import SessionsScreen

        self.app.push_screen(SessionsScreen())

    def action_report(self) -> None:
        from crmarena_tui.screens.report_screen import ReportScreen

        self.app.push_screen(ReportScreen())

    def action_study(self) -> None:
        self.arena.open_study()


def _facet_dict(facets: Facets) -> dict[str, str]:
    return {name: getattr(facets, name) for name, _, _ in FACETS}
