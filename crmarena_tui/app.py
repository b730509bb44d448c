"""The Textual app for human play: task browser -> workspace -> result.

The app holds what every screen shares (options, tasks, the sessions store, open orgs) and runs the
app-wide workers: loading tasks, opening the store, building the demo org. Heavy modules (datasets,
the org engine, storage) are imported inside workers, after the first frame.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from crmarena_tui.messages import (
    NameNeeded,
    OpenTask,
    OrgProgress,
    ParticipantReady,
    StatusesLoaded,
    TasksLoaded,
)
from crmarena_tui.screens.task_browser import TaskBrowser

if TYPE_CHECKING:
    from crmarena_tui.tasks.model import Task


@dataclass(frozen=True)
class PlayOptions:
    """What `crmarena-tui play` was asked for."""

    tasks: str = "demo"
    org: str | None = None
    participant: str | None = None
    db: Path | None = None
    aided: bool = False
    blind: bool = True
    user_model: str | None = None  # interactive tasks: a model plays the user ('scripted': not)
    lenient: bool = (
        False  # `--lenient`: local orgs answer what Salesforce refuses (else the setting)
    )
    clock: Callable[[], float] = field(default=time.monotonic, compare=False)  # the on-screen clock
    wall_clock: Callable[[], float] = field(default=time.time, compare=False)  # event timestamps


class CrmArenaApp(App):
    """CRMArena-Pro for a human participant."""

    TITLE = "crmarena-tui"
    CSS_PATH = "app.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(
        self, options: PlayOptions | None = None, org_factory: Callable[[str], Any] | None = None
    ) -> None:
        """`org_factory(org_type)` replaces `--org` resolution (embedding, tests)."""
        super().__init__()
        self.options = options or PlayOptions()
        self.org_factory = org_factory
        self.tasks: list[Task] = []
        self.statuses: dict[str, Any] = {}
        self.store: Any | None = None
        self.participant: Any | None = None
        self.participant_name: str | None = self.options.participant
        self.browser = TaskBrowser()
        self._orgs: dict[tuple[str | None, str], Any] = {}
        self._org_notes: set[str] = set()
        self._org_lock = threading.Lock()
        self._org_pool: ThreadPoolExecutor | None = None
        self._store_lock = threading.RLock()
        self._store_opened = threading.Event()
        self._participant_known = threading.Event()
        self.hidden_labels: bool | None = None  # research screens: None until settings are read

    # -- start-up -------------------------------------------------------------------------------

    def get_default_screen(self) -> Screen:
        return self.browser

    def on_mount(self) -> None:
        # The workers import modules and hold the GIL while doing so: start them once the first
        # frame is on the screen, and one after the other: the task rows first, then the store,
        # then the rest once the rows are drawn (`_after_tasks_shown`).
        self.call_after_refresh(self.load_tasks)

    @work(thread=True, exclusive=True, exit_on_error=False, group="tasks")
    def load_tasks(self) -> None:
        from crmarena_tui.tasks.loaders import load_tasks

        source = self.options.tasks
        try:
            if source in ("demo", "demo:small"):  # computed from the demo orgs: build them first
                self._build_missing_demo_orgs(["b2b", "b2c"])
            tasks = load_tasks(source)
        except Exception as exc:  # a bad file or an offline hub: say so on the screen
            self.post_message(TasksLoaded(source, [], error=str(exc)))
            return
        self.post_message(TasksLoaded(source, tasks))

    @on(TasksLoaded)
    def _tasks_loaded(self, event: TasksLoaded) -> None:
        if event.error:
            self.browser.show_load_error(event.error)
            self.notify(event.error, title="Cannot load tasks", severity="error", timeout=15)
        else:
            self.tasks = event.tasks
            self.browser.show_tasks(self.tasks, self.statuses)
        self.open_store()  # shares the GIL with drawing the rows only for that one frame
        self.call_after_refresh(self._after_tasks_shown)

    def _after_tasks_shown(self) -> None:
        if self.tasks:
            self.prepare_demo_orgs()
        # Start-up built a large, long-lived heap (modules, tasks): move it out of the collector's
        # way, or every few screen opens pay a 100 ms full collection over it.
        gc.collect()
        gc.freeze()

    @work(thread=True, exclusive=True, exit_on_error=False, group="store")
    def open_store(self) -> None:
        """Open the sessions database and, when the name is known, the participant."""
        from crmarena_tui.config import load_settings
        from crmarena_tui.storage import Store

        settings = load_settings()
        path = self.options.db or settings.db_path()
        try:
            with self._store_lock:
                self.store = Store(path)
        finally:
            self._store_opened.set()
        name = self.options.participant or settings.participant
        if name:
            self._set_participant(name)
        else:
            self.post_message(NameNeeded())

    def _set_participant(self, name: str) -> None:
        """Blocking (worker thread): the participant row, then the statuses."""
        with self._store_lock:
            assert self.store is not None
            self.participant = self.store.participant("human", name)
        self._participant_known.set()
        self.post_message(ParticipantReady(name))
        self._post_statuses()

    @on(NameNeeded)
    def _ask_name(self) -> None:
        from crmarena_tui.screens.name_dialog import NameDialog

        self.push_screen(NameDialog(), self._name_given)

    def _name_given(self, name: str | None) -> None:
        if name:
            self.save_participant(name)

    @work(thread=True, exclusive=True, exit_on_error=False, group="participant")
    def save_participant(self, name: str) -> None:
        """Remember the name in the config file, then open the participant."""
        from crmarena_tui.widgets.config_file import remember_participant

        remember_participant(name)
        self._set_participant(name)

    @on(ParticipantReady)
    def _participant_ready(self, event: ParticipantReady) -> None:
        self.participant_name = event.name
        self.browser.show_participant(event.name)

    def _post_statuses(self) -> None:
        from crmarena_tui.widgets.task_status import statuses_for

        with self._store_lock:
            statuses = statuses_for(self.store, self.participant)
        self.post_message(StatusesLoaded(statuses))

    @work(thread=True, exclusive=True, exit_on_error=False, group="statuses")
    def refresh_statuses(self) -> None:
        if self.store is not None and self.participant is not None:
            self._post_statuses()

    @on(StatusesLoaded)
    def _statuses_loaded(self, event: StatusesLoaded) -> None:
        self.statuses = event.statuses
        self.browser.show_statuses(self.statuses)

    # -- orgs -----------------------------------------------------------------------------------

    def prepare_demo_orgs(self) -> None:
        """On first run, build the demo org(s) the tasks need, in a worker, with progress."""
        from crmarena_tui.orgs.resolve import org_kind

        if org_kind(self.options.org) != "demo" or self.org_factory is not None:
            return
        if self.options.org and ":" in self.options.org:
            needed = [self.options.org.split(":", 1)[1]]
        else:
            from crmarena_tui.orgs.task_origin import is_demo_task

            needed = sorted(
                {t.org_type for t in self.tasks if t.org_type in ("b2b", "b2c") and is_demo_task(t)}
            )
        if needed:
            self.build_demo_orgs(needed)

    @work(thread=True, exclusive=True, exit_on_error=False, group="demo-org")
    def build_demo_orgs(self, org_types: list[str]) -> None:
        self._build_missing_demo_orgs(org_types)

    def _build_missing_demo_orgs(self, org_types: list[str]) -> None:
        """Blocking: build the demo orgs not built yet, posting progress (first run only)."""
        from crmarena_tui import locations
        from crmarena_tui.demo.generator import GENERATOR_VERSION, ensure_demo_org, org_meta

        for org_type in org_types:
            if (
                org_meta(locations.demo_org_path(org_type)).get("generator_version")
                == GENERATOR_VERSION
            ):
                continue

            def report(fraction: float, text: str = "", org_type: str = org_type) -> None:
                self.post_message(OrgProgress(org_type, min(fraction, 0.999), text))

            report(0.0, "starting")
            ensure_demo_org(org_type, progress=report)
            self.post_message(OrgProgress(org_type, 1.0, "done"))

    def org_for(self, task: Task, session: Any = None) -> Any:
        """Blocking (worker threads only): the org `task` runs on (`session`: the session being
        re-run or forked), opened once; orgs/resolve.py decides which, and why, in one place."""
        from crmarena_tui.config import load_settings
        from crmarena_tui.orgs.resolve import open_org, task_route
        from crmarena_tui.orgs.strictness import lenient_wanted

        spec: str | None = None
        if self.org_factory is None:
            route = task_route(
                task, self.options.org, session_org=getattr(session, "org_ref", None)
            )
            spec = route.spec
            if route.note and route.note not in self._org_notes:
                self._org_notes.add(route.note)
                self.call_from_thread(self.notify, route.note, title="Org", timeout=12)
        key = (spec, task.org_type)
        with self._org_lock:
            org = self._orgs.get(key)
            if org is None:
                if self.org_factory is not None:
                    org = self.org_factory(task.org_type)
                else:
                    lenient = lenient_wanted(self.options.lenient, load_settings())
                    org = open_org(spec, org_type=task.org_type, lenient=lenient)
                self._orgs[key] = org
            return org

    def org_call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Blocking (worker threads only): run `fn(*args)` on the one org thread.

        Org backends may keep a connection per thread; funnelling every org call through one
        long-lived thread keeps that to one connection however long the session runs."""
        if self._org_pool is None:
            self._org_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="org")
        return self._org_pool.submit(fn, *args).result()

    def on_unmount(self) -> None:
        if self._org_pool is not None:
            self._org_pool.shutdown(wait=False, cancel_futures=True)
        for org in self._orgs.values():
            close = getattr(org, "close", None)
            if close is not None:
                with suppress(Exception):  # closing at exit must never raise into Textual
                    close()

    @on(OrgProgress)
    def _org_progress(self, event: OrgProgress) -> None:
        self.browser.show_org_progress(event.org_type, event.fraction, event.text)

    # -- episodes (called from workers) ---------------------------------------------------------

    def start_episode(self, task: Task) -> Any:
        """Blocking: start or resume this participant's session on `task`."""
        from crmarena_tui.episode import Episode

        if not self._store_opened.wait(60) or self.store is None:
            raise RuntimeError("the sessions database is not open")
        if not self._participant_known.wait(600) or self.participant is None:
            raise RuntimeError("no participant name was given")
        org = self.org_for(task)
        user = self.user_simulator() if task.interactive else None
        return Episode.start(
            self.store,
            task,
            org,
            self.participant,
            user=user,
            aided=self.options.aided,
            blind=self.options.blind,
            resume=True,
            clock=self.options.wall_clock,
        )

    def user_simulator(self) -> Any:
        """The simulated user: `--user-model`, else the configured user model, else the
        scripted user (offline)."""
        from crmarena_tui.config import load_settings

        settings = load_settings()
        model = self.options.user_model or settings.user_model
        if model and model != "scripted":
            from crmarena_tui.agents.user_llm import make_user

            return make_user(model, settings=settings)
        from crmarena_tui.agents.user_scripted import ScriptedUser

        return ScriptedUser()

    def log_browse(self, episode: Any, request: Any) -> None:
        """Record-browser steps go into the session log (not counted as queries)."""
        episode.record(
            "system",
            {
                "event": "browse",
                "kind": request.kind,
                "object": request.object_name,
                "offset": request.offset,
                "record_id": request.record_id,
            },
            actor="human",
        )

    @work(thread=True, exit_on_error=False, group="background")
    def in_background(self, fn: Callable[[], Any], what: str) -> None:
        """Run a short blocking call (a pause, a resume) off the event loop."""
        fn()

    # -- research screens (trajectory viewer, sessions, compare, report) -----------------------

    def sessions_store(self) -> Any:
        """Blocking (worker threads only): the sessions database, once it is open."""
        if not self._store_opened.wait(60) or self.store is None:
            raise RuntimeError("the sessions database is not open")
        return self.store

    def named_participant(self) -> Any:
        """Blocking (worker threads only): the human participant, once their name is known."""
        self.sessions_store()
        if not self._participant_known.wait(600) or self.participant is None:
            raise RuntimeError("no participant name was given")
        return self.participant

    # -- navigation -----------------------------------------------------------------------------

    @on(OpenTask)
    def _open_task(self, event: OpenTask) -> None:
        self.open_task(event.task)

    def open_task(self, task: Task) -> None:
        from crmarena_tui.screens.workspace import Workspace

        self.push_screen(Workspace(task))

    def run_agent(self, task: Task | None, from_screen: Screen | None = None) -> None:
        """Ask which agent to run on `task`, then watch it live (screens/agent_run_screen.py)."""
        from crmarena_tui.screens.agent_run_screen import open_agent_run

        open_agent_run(self, task, from_screen)

    def open_next_task(self, after: Task, *, replace: bool = False) -> None:
        """Open the task after `after` in the browser's current list (wrapping), or go back."""
        from crmarena_tui.screens.workspace import Workspace

        task = self.browser.next_after(after)
        if task is None:
            self.pop_screen()
            self.notify("No more tasks in the current list.")
            return
        if replace:
            self.switch_screen(Workspace(task))
        else:
            self.push_screen(Workspace(task))

    # -- command palette ------------------------------------------------------------------------

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Textual's commands, then every binding the footer shows for the current screen."""
        yield from super().get_system_commands(screen)
        seen = {"Quit"}
        for active in screen.active_bindings.values():
            binding = active.binding
            if not binding.show or not binding.description or binding.description in seen:
                continue
            seen.add(binding.description)
            key = self.get_key_display(binding)
            yield SystemCommand(
                binding.description,
                f"{binding.description} (key: {key})",
                partial(self._run_bound, binding.action, active.node),
            )
        if "Run agent" not in seen and callable(getattr(screen, "action_run_agent", None)):
            yield SystemCommand(
                "Run agent",
                "Run an agent on this task and watch it live (key: ctrl+g)",
                partial(self._run_bound, "run_agent", screen),
            )

    async def _run_bound(self, action: str, node: Any) -> None:
        await self.run_action(action, node)

    # -- failures -------------------------------------------------------------------------------

    @on(Worker.StateChanged)
    def _worker_state(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.report_worker_error(event.worker)

    def report_worker_error(self, worker: Worker) -> None:
        """The one place a failed worker is shown: a notification naming what failed."""
        error = worker.error
        what = worker.group if worker.group != "default" else worker.name
        message = f"{type(error).__name__}: {error}" if error is not None else "unknown error"
        self.notify(message, title=f"{what} failed", severity="error", timeout=12)
