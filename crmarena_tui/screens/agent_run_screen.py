"""Watch an agent work a task live: its steps stream in as they happen (thought, query,
observation, messages, grade). Pause, single-step, resume, stop (the session stays in progress and
`r` resumes it), or take over as a human from the current step (a fork of the agent's session,
opened in the workspace with its history). When the agent submits, the result screen shows.

The agent runs in its own session, as an agent participant, in one worker thread driven by an
`AgentDriver`; the driver's callbacks post messages, and the handlers here update the widgets.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Static

from crmarena_tui.screens.base_screen import BaseScreen
from crmarena_tui.session.agent_driver import AgentDriver, AgentRunConfig, DriverState, StepReport
from crmarena_tui.tasks.catalog import BY_NAME
from crmarena_tui.widgets.agent_step_log import AgentStepLog, escape, history_markup
from crmarena_tui.widgets.key_footer import KeyFooter

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.worker import Worker

    from crmarena_tui.agents.agent import Agent
    from crmarena_tui.agents.base import UserSimulator
    from crmarena_tui.app.app import CrmArenaApp
    from crmarena_tui.graders import Grade
    from crmarena_tui.session.episode import Episode
    from crmarena_tui.session.service import SessionService
    from crmarena_tui.storage.models import Event
    from crmarena_tui.tasks.model import Task

STATE_TEXT = {
    "idle": "starting…",
    "running": "[b green]running[/]",
    "paused": "[b yellow]paused[/] · s: one step · r: resume",
    "stopped": "[b]stopped[/] · the session stays in progress · r: resume · t: take over",
    "finished": "[b]finished[/]",
    "failed": "[b red]stopped by an error[/] · the session stays in progress · r: try again",
}


class AgentRunScreen(BaseScreen):
    """One agent on one task, live."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "pause", "Pause", id="agent-run.pause"),
        Binding("s", "step", "Step", id="agent-run.step"),
        Binding("r", "resume", "Resume", id="agent-run.resume"),
        Binding("x", "stop", "Stop", id="agent-run.stop"),
        Binding("t", "take_over", "Take over", id="agent-run.take-over"),
        Binding("escape", "back", "Back", id="agent-run.back"),
    ]

    @dataclass
    class Ready(Message):
        """The agent's session is open (new or resumed); `instruction` is the hidden
        (query, persona) of an interactive task, for a human playing the user."""

        episode: Episode
        agent: Agent
        earlier: list[Event]
        instruction: tuple[str, str] | None = None

    @dataclass
    class Stepped(Message):
        report: StepReport
        driver: AgentDriver

    @dataclass
    class StateChanged(Message):
        state: DriverState
        driver: AgentDriver

    @dataclass
    class Finished(Message):
        """The agent submitted: what the result screen shows."""

        grade: Grade
        ground_truth: list[str]
        active_seconds: float
        query_count: int

    class Loading(Message):
        """The model client (litellm) is being loaded before the session opens."""

    @dataclass
    class TakenOver(Message):
        """The human's fork of the agent's session (None: the agent had done nothing)."""

        episode: Episode | None

    def __init__(self, task: Task, config: AgentRunConfig) -> None:
        super().__init__()
        self.task_row = task
        self.config = config
        self.episode: Episode | None = None
        self.agent: Agent | None = None
        self.driver = self._new_driver(paused=config.start_paused)
        self.steps_shown = 0
        self._handing_over = False
        self._unpaced = threading.Event()  # set: no more waiting between steps (`config.pace`)

    # -- layout ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="ar-top"):
            yield Static(self._title(), id="ar-title")
            yield Static(STATE_TEXT["idle"], id="ar-state")
        with Horizontal(id="ar-body"):
            yield Vertical(id="ar-left")
            yield AgentStepLog(id="ar-steps")
        yield KeyFooter()

    def _title(self) -> str:
        task, entry = self.task_row, BY_NAME.get(self.task_row.task)
        who = "reference agent" if self.config.agent == "reference" else self.config.agent
        return (
            f"[b]{escape(who)}[/] on {entry.label if entry else task.task} [dim]#{task.idx} · "
            f"{task.org_type}{' · interactive' if task.interactive else ''}[/]"
        )

    @property
    def step_log(self) -> AgentStepLog:
        return self.query_one("#ar-steps", AgentStepLog)

    def on_mount(self) -> None:
        self.query_one("#ar-body").loading = True
        self.start_run()

    def on_unmount(self) -> None:
        self._unpaced.set()
        self.driver.stop()  # the worker ends after the step in flight; the session stays open

    # -- the worker -----------------------------------------------------------------------------

    def make_user(self, service: SessionService) -> UserSimulator:
        """The user simulator of an interactive task (a subclass lets a human play it)."""
        return self.config.make_user(service)

    @work(thread=True, exclusive=True, exit_on_error=False, group="agent")
    def start_run(self) -> None:
        """Open the agent's session (resuming a stopped one), then drive the agent."""
        from crmarena_tui.orgs.strictness import lenient_wanted

        task, arena = self.task_row, self.arena
        service = arena.service
        lenient = lenient_wanted(arena.options.lenient, arena.settings)
        self.config.check(service, task, lenient=lenient)  # the protocol's refusals, said plainly
        agent = self.config.make_agent(service)
        store = arena.sessions_store()
        org = arena.org_for(task)
        user = self.make_user(service) if task.interactive else None
        service.load_model_client(agent, user, on_loading=lambda: self.post_message(self.Loading()))
        episode = service.start_agent(
            store, task, org, agent, user=user, aided=self.config.aided, resume=True
        )
        instruction = None
        if task.interactive:  # the simulated user's private brief: never given to the agent
            hidden = store.session(episode.session_id).task()
            instruction = (hidden.query, hidden.persona)
        self.post_message(self.Ready(episode, agent, episode.events, instruction))
        self._run_driver(self.driver, agent, episode)

    @work(thread=True, exclusive=True, exit_on_error=False, group="agent")
    def drive(self, driver: AgentDriver, agent: Agent, episode: Episode) -> None:
        """Run the agent again on the open session (after a stop or an error)."""
        self._run_driver(driver, agent, episode)

    def _new_driver(self, *, paused: bool) -> AgentDriver:
        driver = AgentDriver(paused=paused)
        driver.on_state = lambda state: self.post_message(self.StateChanged(state, driver))
        return driver

    def _run_driver(self, driver: AgentDriver, agent: Agent, episode: Episode) -> None:
        """Worker thread: drive `agent`, posting each step (and the grade once it submits)."""

        def stepped(report: StepReport) -> None:
            self.post_message(self.Stepped(report, driver))
            if self.config.pace > 0 and not report.submitted:  # a pace to watch it by
                self._unpaced.wait(self.config.pace)
            if report.submitted and report.step.grade is not None:
                self.post_message(
                    self.Finished(
                        report.step.grade,
                        episode.ground_truth(),
                        episode.active_seconds,
                        episode.query_count,
                    )
                )

        driver.on_step = stepped
        driver.run(agent, episode)

    def worker_failed(self, worker: Worker) -> None:
        if worker.group == "agent":
            self.driver.stop()  # it never ran: nothing to pause or resume
            self.query_one("#ar-body").loading = False
            self._show_state(f"[red]the agent could not run: {escape(str(worker.error))}[/]")
            self.refresh_bindings()
        elif worker.group == "takeover":
            self._handing_over = False
            self._show_state(self.state_text(self.driver.state))
            self.refresh_bindings()

    # -- handlers -------------------------------------------------------------------------------

    @on(Loading)
    def _loading(self, event: Loading) -> None:
        self._show_state("loading the model client…")

    @on(Ready)
    def _ready(self, event: Ready) -> None:
        self.episode, self.agent = event.episode, event.agent
        self.query_one("#ar-body").loading = False
        self.show_ready(event)
        self.refresh_bindings()

    def show_ready(self, event: Ready) -> None:
        """The session is open: show what the agent sees, and what it did before a resume."""
        from crmarena_tui.widgets.task_panel import TaskPanel

        episode = event.episode
        self.query_one("#ar-left").mount(
            Static(
                "[b]What the agent is given[/] [dim](no ground truth"
                f"{'; the request comes from the user' if episode.interactive else ''})[/]",
                id="ar-task-title",
            ),
            TaskPanel(episode.task, aided=self.config.aided, id="ar-task"),
        )
        self.step_log.add_note(
            f"[b]Session {episode.session_id}[/] · agent [b]{escape(event.agent.name)}[/]"
        )
        earlier = history_markup(event.earlier)
        if earlier:
            self.step_log.add_note(f"Resumed; earlier in this session:\n{earlier}")

    @on(Stepped)
    def _stepped(self, event: Stepped) -> None:
        if event.driver is not self.driver:
            return  # a stale run
        self.steps_shown += 1
        self.show_step(event.report)

    def show_step(self, report: StepReport) -> None:
        self.step_log.add_report(report)

    @on(StateChanged)
    def _state_changed(self, event: StateChanged) -> None:
        if event.driver is not self.driver:
            return
        if not self._handing_over:
            self._show_state(self.state_text(event.state))
        if event.state == "failed":
            self.notify(
                self.driver.error or "the agent stopped",
                title="The agent stopped",
                severity="error",
                timeout=12,
            )
            self.step_log.add_note(
                f"[red]{escape(self.driver.error or 'the agent stopped')}[/]\n"
                "The session stays in progress: r runs the agent again."
            )
        self.refresh_bindings()

    @on(Finished)
    def _finished(self, event: Finished) -> None:
        from crmarena_tui.screens.result_screen import ResultScreen

        self.arena.refresh_statuses()
        self.app.push_screen(
            ResultScreen(
                self.task_row,
                event.grade,
                event.ground_truth,
                event.active_seconds,
                event.query_count,
                session_id=self.episode.session_id if self.episode is not None else None,
            )
        )

    def state_text(self, state: DriverState) -> str:
        return STATE_TEXT.get(state, state)

    def _show_state(self, markup: str) -> None:
        self.query_one("#ar-state", Static).update(markup)

    # -- controls -------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Greys out the controls that do nothing in the current state."""
        state = self.driver.state
        open_session = (
            self.episode is not None and not self._handing_over and not self.episode.finished
        )
        enabled = {
            "pause": state in ("idle", "running") and not self.driver.stop_requested,
            "step": open_session and state in ("paused", "stopped", "failed"),
            "resume": open_session and state in ("paused", "stopped", "failed"),
            "stop": state in ("idle", "running", "paused") and not self.driver.stop_requested,
            "take_over": open_session,
        }.get(action, True)
        return True if enabled else None

    def action_pause(self) -> None:
        self.driver.pause()
        if self.driver.state == "running":
            self._show_state("[yellow]pausing after this step…[/]")

    def action_step(self) -> None:
        if self.driver.ended:
            self._restart(paused=True)
        self.driver.step()

    def action_resume(self) -> None:
        if self.driver.ended:
            self._restart(paused=False)
        else:
            self.driver.resume()

    def _restart(self, *, paused: bool) -> None:
        if self.episode is None or self.episode.finished:
            return
        self.driver = self._new_driver(paused=paused)
        self._unpaced.clear()
        self.step_log.add_note("Running the agent again on the same session.")
        self.drive(self.driver, self.agent, self.episode)

    def action_stop(self) -> None:
        self._unpaced.set()
        self.driver.stop()
        self._show_state("[yellow]stopping after this step…[/]")
        self.refresh_bindings()

    def action_take_over(self) -> None:
        if self.episode is None or self.episode.finished or self._handing_over:
            return
        self._handing_over = True
        self._unpaced.set()
        self._show_state("[yellow]handing over after this step…[/]")
        self.refresh_bindings()
        self.hand_over()

    @work(thread=True, exclusive=True, exit_on_error=False, group="takeover")
    def hand_over(self) -> None:
        """Stop the agent after its step in flight and fork its session for the human."""
        from crmarena_tui.session.episode import EpisodeError

        assert self.episode is not None
        participant = self.arena.named_participant()
        user = self.arena.user_simulator() if self.task_row.interactive else None
        try:
            forked = self.arena.service.take_over(self.driver, self.episode, participant, user=user)
        except EpisodeError:
            if self.episode.finished:
                raise
            forked = None  # nothing done yet: the human simply starts the task
        self.post_message(self.TakenOver(forked))

    @on(TakenOver)
    def _taken_over(self, event: TakenOver) -> None:
        from crmarena_tui.screens.workspace import Workspace

        self.arena.refresh_statuses()
        self.app.switch_screen(Workspace(self.task_row, episode=event.episode))

    def action_back(self) -> None:
        self._unpaced.set()
        self.driver.stop()
        self.app.pop_screen()


def open_agent_run(app: CrmArenaApp, task: Task | None, from_screen: Screen | None = None) -> None:
    """Ask how to run an agent on `task` (the setup dialog), then open the live view.

    From a workspace, the human's session there is paused and the workspace is replaced."""
    from crmarena_tui.screens.agent_setup_dialog import AgentSetupDialog, default_config

    if task is None:
        app.notify("Pick a task first.", severity="warning")
        return
    settings = app.settings
    defaults = replace(default_config(settings, aided=app.options.aided), pace=app.options.pace)
    user_model = app.options.user_model or settings.user_model
    if user_model:
        defaults = replace(defaults, user=user_model)

    def chosen(config: AgentRunConfig | None) -> None:
        if config is None:
            return
        screen: AgentRunScreen
        if task.interactive and config.human_user:
            from crmarena_tui.screens.user_play_screen import UserPlayScreen

            screen = UserPlayScreen(task, config)
        else:
            screen = AgentRunScreen(task, config)
        if from_screen is not None and from_screen is app.screen:
            episode = getattr(from_screen, "episode", None)
            if episode is not None and not episode.finished:
                app.in_background(episode.pause, "pause")
            app.switch_screen(screen)
        else:
            app.push_screen(screen)

    dialog = AgentSetupDialog(task, defaults, user_model=user_model, protocol=settings.protocol)
    app.push_screen(dialog, chosen)
