"""The Textual app for human play: task browser -> workspace -> result.

The app composes the screens and holds what every screen shares (options, tasks, the sessions
store, open orgs): the services a screen may ask for are typed in screens/arena.py (`Arena`), so no
screen imports the app. It runs the app-wide workers: loading tasks, opening the store (their steps
in app/startup.py), building the demo org. Heavy modules (datasets, the org engine, storage) are
imported inside workers, after the first frame.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from textual import events, on, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from crmarena_tui.app import key_gate, startup, startup_gc, study
from crmarena_tui.app.demo_setup import TASKS_STEP, build_missing_demo_orgs, needed_demo_orgs
from crmarena_tui.app.demo_wait import DemoBuilds
from crmarena_tui.app.keymap import apply_keymap, keymap_for
from crmarena_tui.app.messages import (
    NameNeeded,
    OrgProgress,
    ParticipantReady,
    SettingsLoaded,
    StatusesLoaded,
    StoreOpened,
    TasksLoaded,
)
from crmarena_tui.demo.sources import ready_table
from crmarena_tui.screens.play_options import PlayOptions as PlayOptions
from crmarena_tui.screens.task_browser import TaskBrowser
from crmarena_tui.session.org_pool import OrgPool
from crmarena_tui.tasks.blind import BLIND_REFUSAL, BlindView
from crmarena_tui.tasks.table import TaskTable
from crmarena_tui.widgets.control_pictures import ControlPictures

T = TypeVar("T")
NO_NEXT_TASK = "No next task: the list as filtered holds no other. escape goes back to the tasks."

if TYPE_CHECKING:
    from textual.filter import LineFilter

    from crmarena_tui.agents.base import UserSimulator
    from crmarena_tui.graders import Judge
    from crmarena_tui.orgs.base import Org
    from crmarena_tui.screens.arena import Arena
    from crmarena_tui.session.episode import Episode
    from crmarena_tui.session.service import SessionService
    from crmarena_tui.session.session_hold import SessionHold
    from crmarena_tui.settings.config import Settings
    from crmarena_tui.storage.models import Participant, Session
    from crmarena_tui.storage.store import Store
    from crmarena_tui.studies.mode import NextStep, StudyMode
    from crmarena_tui.tasks.index import TaskStatus
    from crmarena_tui.tasks.model import Task
    from crmarena_tui.tasks.table import TaskRow


class CrmArenaApp(App):
    """CRMArena-Pro for a human participant."""

    TITLE = "crmarena-tui"
    STORE_FIRST = False  # `view`: the sessions database opens at once, the task rows after it
    CSS_PATH = "app.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", priority=True, id="app.quit"),
    ]

    def __init__(
        self,
        options: PlayOptions | None = None,
        org_factory: Callable[[str], Org] | None = None,
        *,
        settings: Settings | None = None,
        judge: Judge | None = None,
    ) -> None:
        """`org_factory(org_type)` replaces `--org` resolution (embedding, tests); `settings`
        (default: loaded in a worker on first use) and `judge` make the `SessionService`."""
        super().__init__()
        self.options = options or PlayOptions()
        self.org_factory = org_factory
        self._settings = settings
        self._judge = judge
        self._service: SessionService | None = None
        self._settings_lock = threading.Lock()
        self.tasks = TaskTable()  # the browser's rows; a row's Task is built when opened
        self.statuses: dict[str, TaskStatus] = {}
        self.store: Store | None = None
        self.participant: Participant | None = None
        self.participant_name: str | None = self.options.participant
        self.browser = TaskBrowser()
        self.orgs = OrgPool(self.options.org, org_factory)
        self._org_notes: set[str] = set()
        self.demo_builds = DemoBuilds()  # first run: a screen needing an org waits for its build
        self.store_lock = threading.RLock()  # (app/startup.py opens the store and participant)
        self.store_opened = threading.Event()
        self.participant_known = threading.Event()
        self.hidden_labels: bool | None = self.options.hidden_labels  # None: the setting decides
        self.blind_view = BlindView(enabled=bool(self.options.blind))  # decided before compose
        self.db_path: Path | None = None  # the sessions database, once open
        self.db_origin = ""  # what chose it: --db, CRMARENA_TUI_DB, the config file, default
        self.last_input = self.options.clock()  # the workspace's idle auto-pause reads it
        self.study: StudyMode | None = None  # `--study`: the participant's seat, once known
        self.key_gate = key_gate.KeyGate(self)  # keys in order, held while their screen opens
        self._control_pictures = ControlPictures()
        self._hold: SessionHold | None = None  # the attempt this process works, once opened

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.InputEvent):  # a key or the mouse: not idle
            self.last_input = self.options.clock()
        if not self.key_gate.take(event):  # a key or paste held is handed on later, in order
            await super().on_event(event)

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters, then no control character of the data drawn (`ControlPictures`)."""
        return [*super().get_line_filters(), self._control_pictures]

    def idle_seconds(self) -> float:
        """Seconds since the last key or mouse input (by the injectable `options.clock`)."""
        return self.options.clock() - self.last_input

    # -- settings and the session service (blocking on first use: call from workers) ----------

    @property
    def settings(self) -> Settings:
        """The settings, loaded once for the app's life (environment, then the config file)."""
        with self._settings_lock:
            if self._settings is None:
                from crmarena_tui.settings.config import load_settings

                self._settings = load_settings(
                    protocol=self.options.protocol, org_today=self.options.org_today
                )
            return self._settings

    @property
    def service(self) -> SessionService:
        """Sets up every session the app opens: play, agent runs, forks, take-overs."""
        settings = self.settings
        with self._settings_lock:
            if self._service is None:
                from crmarena_tui.session.service import SessionService

                self._service = SessionService(
                    settings, judge=self._judge, clock=self.options.wall_clock
                )
            return self._service

    # -- start-up -------------------------------------------------------------------------------

    def get_default_screen(self) -> Screen:
        self.blind_view = BlindView.decide(self.options.blind, self.options.participant)
        in_order = not (self.blind_view.enabled or self.options.study)  # (else first rows move)
        self.tasks = ready_table(self.options.tasks, first_of_file=in_order)  # first frame's rows
        return self.browser

    def on_mount(self) -> None:
        # The workers import modules and hold the GIL while doing so: start them once the first
        # frame is on the screen, and one after the other: the task rows first, then the store,
        # then the rest once the rows are drawn (`_after_tasks_shown`); `view`: the store first.
        if self.is_web:  # `serve`: the keys a browser keeps have others (app/keymap.py)
            self.set_keymap(keymap_for({}, web=True))
        self.call_after_refresh(self.open_store if self.STORE_FIRST else self.load_tasks)
        study.ask_for_seat(self)  # a study without `--as`: the join screen first

    @work(thread=True, exclusive=True, exit_on_error=False, group="tasks")
    def load_tasks(self) -> None:
        startup.load_task_rows(self)

    @property
    def blind(self) -> bool:
        """Blind mode: no type, metric, idx, gold or other's answer before a submit."""
        return self.blind_view.enabled

    @on(TasksLoaded)
    def _tasks_loaded(self, event: TasksLoaded) -> None:
        if event.tasks is not self.tasks:  # (rows read before the first frame are listed)
            self.tasks = event.tasks
            self.browser.show_tasks(study.shown_tasks(self), self.statuses, self.blind_view)
        if event.error:
            self.browser.show_load_error(event.error)
            self.notify(event.error, title="Cannot load tasks", severity="error", timeout=15)
        if not event.checked:  # the first load (not a file's full check): the rest once drawn
            self.call_after_refresh(self._after_tasks_shown)

    def _after_tasks_shown(self) -> None:
        if not self.STORE_FIRST:  # not before: its imports would hold the GIL from drawing rows
            self.open_store()
        if self.tasks:
            self.prepare_demo_orgs()
        startup_gc.settle()  # the collector was off since `play` started (startup_gc.py)

    @work(thread=True, exclusive=True, exit_on_error=False, group="store")
    def open_store(self) -> None:
        """Open the sessions database and, when the name is known, the participant."""
        startup.open_store(self)

    @on(StoreOpened)
    def _store_opened_shown(self, event: StoreOpened) -> None:
        self.db_origin = event.origin
        self.browser.show_db(event.path, event.origin)
        if self.STORE_FIRST:  # `view`: the task rows (and demo orgs, first run) behind the store
            self.call_after_refresh(self.load_tasks)

    @on(SettingsLoaded)
    def _settings_loaded(self, event: SettingsLoaded) -> None:
        apply_keymap(self, keymap_for(event.keymap, web=self.is_web), event.unknown)

    def set_participant(self, name: str) -> None:
        """Blocking (worker thread): the participant row, then the statuses."""
        startup.set_participant(self, name)

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
        from crmarena_tui.settings.config_file import remember_participant

        remember_participant(name)
        self.set_participant(name)

    @on(ParticipantReady)
    def _participant_ready(self, event: ParticipantReady) -> None:
        self.participant_name = event.name
        self.browser.show_participant(event.name)
        if self.study or (self.blind and self.blind_view.seed != event.name):
            self.blind_view = study.view_for(self, event.name)  # the participant's order
            if self.tasks:
                self.browser.show_tasks(study.shown_tasks(self), self.statuses, self.blind_view)

    @work(thread=True, exclusive=True, exit_on_error=False, group="statuses")
    def refresh_statuses(self) -> None:
        if self.store is not None and self.participant is not None:
            startup.post_statuses(self)

    @on(StatusesLoaded)
    def _statuses_loaded(self, event: StatusesLoaded) -> None:
        self.statuses = event.statuses
        if self.screen_stack:  # not while the app is closing (its screens are gone)
            self.browser.show_statuses(self.statuses)
            study.point_at_next(self)

    # -- orgs -----------------------------------------------------------------------------------

    def prepare_demo_orgs(self) -> None:
        """On first run, build the demo org(s) the tasks need, in a worker, with progress."""
        if self.org_factory is None and (needed := needed_demo_orgs(self.options.org, self.tasks)):
            self.build_demo_orgs(needed)

    @work(thread=True, exclusive=True, exit_on_error=False, group="demo-org")
    def build_demo_orgs(self, org_types: list[str]) -> None:
        self._build_missing_demo_orgs(org_types)

    def _build_missing_demo_orgs(self, org_types: list[str]) -> None:
        """Blocking: build the demo orgs not built yet, posting progress (first run only)."""
        build_missing_demo_orgs(org_types, lambda *step: self.post_message(OrgProgress(*step)))

    def org_for(self, task: Task, session: Session | None = None) -> Org:
        """Blocking (workers): the org `task` (or the re-run `session`) runs on
        (session/org_resolve.py)."""
        from crmarena_tui.orgs.strictness import lenient_wanted

        if self.org_factory is None:  # a demo org being built: the user is told, this waits
            self.demo_builds.announce(task.org_type, self._notify_org)
        lenient = lenient_wanted(self.options.lenient, self.settings)
        session_org = session.org_ref if session is not None else None
        org, note = self.orgs.org_for(task, lenient=lenient, session_org=session_org)
        if note and note not in self._org_notes:
            self._org_notes.add(note)
            self.call_from_thread(self.notify, note, title="Org", timeout=12)
        return org

    def _notify_org(self, text: str) -> None:  # (either thread: `notify` is thread-safe)
        self.notify(text, title="Org", timeout=8)

    def org_call(self, fn: Callable[..., T], *args: Any) -> T:
        """Blocking (worker threads only): run `fn(*args)` on the one org thread."""
        return self.orgs.call(fn, *args)

    def on_unmount(self) -> None:
        self.orgs.close()
        if self._hold is not None:
            self._hold.close()

    def _handle_exception(self, error: Exception) -> None:  # play logs it once the terminal is back
        super()._handle_exception(error)
        self._exit_renderables.clear()  # (settings/crash_log.py: no traceback on the terminal)

    @on(OrgProgress)
    def _org_progress(self, event: OrgProgress) -> None:
        making_tasks = event.text.startswith(TASKS_STEP)
        if not making_tasks:  # (a screen waiting for the org hears of it: app/demo_wait.py)
            self.demo_builds.progress(event.org_type, event.fraction, self._notify_org)
        self.browser.show_org_progress(
            event.org_type, event.fraction, event.text, making_tasks=making_tasks
        )

    # -- episodes (called from workers) ---------------------------------------------------------

    def start_episode(self, task: Task) -> Episode:
        """Blocking: start or resume this participant's session on `task`."""
        store = self.sessions_store()
        participant = self.named_participant()
        org = self.org_for(task)
        user = self.user_simulator() if task.interactive else None
        aided, blind = self.options.aided, self.blind
        seat = self.study.session_options() if self.study is not None else {}
        spec = self.service.spec(task, org, participant, aided=aided, blind=blind, **seat)
        key = self.service.resume_key(spec, user)  # held by this process only (session_hold.py)
        hold = self._session_hold(store)
        return hold.start(spec, key, lambda: self.service.start(store, spec, user=user))

    def _session_hold(self, store: Store) -> SessionHold:
        with self.store_lock:
            if self._hold is None:
                from crmarena_tui.session.session_hold import SessionHold

                self._hold = SessionHold(store, timeout=self.settings.lease_timeout)
            return self._hold

    def user_simulator(self) -> UserSimulator:
        """The simulated user: `--user-model`, else the configured one, else the scripted user."""
        return self.service.user(self.options.user_model)

    @work(thread=True, exit_on_error=False, group="background")
    def in_background(self, fn: Callable[[], object], what: str) -> None:
        """Run a short blocking call (a pause, a resume) off the event loop."""
        fn()

    # -- research screens (trajectory viewer, sessions, compare, report) -----------------------

    def sessions_store(self) -> Store:
        """Blocking (worker threads only): the sessions database, once it is open."""
        if not self.store_opened.wait(60) or self.store is None:
            raise RuntimeError("the sessions database is not open")
        return self.store

    def revealed_tasks(self) -> set[tuple[str, int]] | None:
        """Blocking (workers): None unless blind; else the (source, idx) of the tasks submitted."""
        return study.revealed_tasks(self) if self.blind else None

    def named_participant(self) -> Participant:
        """Blocking (worker threads only): the human participant, once their name is known."""
        self.sessions_store()
        if not self.participant_known.wait(600) or self.participant is None:
            raise RuntimeError("no participant name was given")
        return self.participant

    def study_next_step(self) -> NextStep | None:
        """Blocking (the submit worker): in a study, what follows this submit (app/study.py)."""
        return study.next_step(self)

    def shown_tasks(self) -> Sequence[TaskRow]:
        """The browser's tasks: all of them, or in a study the participant's queue."""
        return study.shown_tasks(self)

    def open_study(self) -> None:
        """The study screen: a participant's queue, or the researcher's view (app/study.py)."""
        study.open_study_screen(self)

    # -- navigation -----------------------------------------------------------------------------

    @on(TaskBrowser.OpenTask)
    def _open_task(self, event: TaskBrowser.OpenTask) -> None:
        if refusal := study.refusal(self, event.task):  # a study: in queue order, once
            self.notify(refusal, severity="warning")
        else:
            self.open_task(event.task)

    def open_task(self, task: Task) -> None:
        from crmarena_tui.screens.workspace import Workspace

        self.push_screen(Workspace(task))

    def run_agent(self, task: Task | None, from_screen: Screen | None = None) -> None:
        """Ask which agent to run on `task`, then watch it live (screens/agent_run_screen.py)."""
        from crmarena_tui.screens.agent_run_screen import open_agent_run

        if self.options.study:
            self.notify(study.NOT_IN_A_STUDY.format(what="an agent's run"), severity="warning")
            return
        if task is not None and self.blind and not self.submitted(task):
            self.notify(BLIND_REFUSAL.format(what="an agent's run"), severity="warning")
            return
        open_agent_run(self, task, from_screen)

    def submitted(self, task: Task) -> bool:
        """True once this participant's own attempt at `task` is submitted (the status column)."""
        status = self.statuses.get(task.key)
        return status is not None and status.state == "submitted"

    def open_next_task(
        self, after: Task, *, replace: bool = False, task: Task | None = None
    ) -> None:
        """Open `task` (default: the one after `after` in the browser's list, wrapping); with no
        other task there the screen stays and says so."""
        from crmarena_tui.screens.workspace import Workspace

        task = task or self.browser.next_after(after)
        if task is None:
            self.notify(NO_NEXT_TASK, severity="warning")
            return
        workspace = Workspace(task, start_on_key=True)  # its clock starts with a key
        if replace:
            self.switch_screen(workspace)
        else:
            self.push_screen(workspace)

    # -- command palette ------------------------------------------------------------------------

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Textual's commands, every binding the footer shows, "Run agent" and "About"."""
        from crmarena_tui.app.commands import system_commands

        yield from super().get_system_commands(screen)
        yield from system_commands(self, screen)

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


def _an_arena(app: CrmArenaApp) -> Arena:  # (mypy checks the app gives what screens/arena.py asks)
    return app
