"""Watch an agent work a task live: its steps stream in as they happen (thought, query,
observation, messages, grade). Pause, single-step, resume, stop (the session stays in progress and
`r` resumes it), or take over as a human from the current step (a fork of the agent's session,
opened in the workspace with its history). When the agent submits, the result screen shows.

The agent runs in its own session, as an agent participant, in one worker thread driven by an
`AgentDriver`: the screen's `AgentRun` part (screens/agent_run.py) owns them; the driver's
callbacks post messages, and the handlers here update the widgets.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar, cast

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from crmarena_tui.screens.agent_run import AgentRun
from crmarena_tui.screens.base_screen import BaseScreen
from crmarena_tui.session.agent_driver import AgentDriver, AgentRunConfig
from crmarena_tui.widgets.agent_step_log import AgentStepLog, escape, history_markup
from crmarena_tui.widgets.key_footer import KeyFooter

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

    from crmarena_tui.agents.agent import Agent
    from crmarena_tui.screens.arena import Arena
    from crmarena_tui.screens.user_play_screen import UserPlayScreen
    from crmarena_tui.session.episode import Episode
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
    """One agent on one task, live: the step log and the controls over its `AgentRun`."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "pause", "Pause", id="agent-run.pause"),
        Binding("s", "step", "Step", id="agent-run.step"),
        Binding("r", "resume", "Resume", id="agent-run.resume"),
        Binding("x", "stop", "Stop", id="agent-run.stop"),
        Binding("t", "take_over", "Take over", id="agent-run.take-over"),
        Binding("escape", "back", "Back", id="agent-run.back"),
    ]

    def __init__(self, task: Task, config: AgentRunConfig) -> None:
        super().__init__()
        self.task_row = task
        self.config = config
        self.agent_run = AgentRun(task, config, id="ar-run")
        self.steps_shown = 0

    @property
    def driver(self) -> AgentDriver:
        return self.agent_run.driver

    @property
    def episode(self) -> Episode | None:
        return self.agent_run.episode

    @property
    def agent(self) -> Agent | None:
        return self.agent_run.agent

    # -- layout ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="ar-top"):
            yield Static(self.agent_run.title(), id="ar-title")
            yield Static(STATE_TEXT["idle"], id="ar-state")
        with Horizontal(id="ar-body"):
            yield Vertical(id="ar-left")
            yield AgentStepLog(id="ar-steps")
        yield KeyFooter()
        yield self.agent_run

    @property
    def step_log(self) -> AgentStepLog:
        return self.query_one("#ar-steps", AgentStepLog)

    def on_mount(self) -> None:
        self.query_one("#ar-body").loading = True
        self.agent_run.start()

    def on_unmount(self) -> None:
        self.agent_run.stop()  # the worker ends after the step in flight; the session stays open

    # -- what the run says ----------------------------------------------------------------------

    @on(AgentRun.Failed)
    def _failed(self, event: AgentRun.Failed) -> None:
        if event.group == "agent":
            self.query_one("#ar-body").loading = False
            self._show_state(f"[red]the agent could not run: {escape(str(event.error))}[/]")
        elif event.group == "takeover":
            self._show_state(STATE_TEXT.get(self.driver.state, self.driver.state))
        self.refresh_bindings()

    @on(AgentRun.Loading)
    def _loading(self, event: AgentRun.Loading) -> None:
        self._show_state("loading the model client…")

    @on(AgentRun.Ready)
    def _ready(self, event: AgentRun.Ready) -> None:
        """The session is open: show what the agent sees, and what it did before a resume."""
        from crmarena_tui.widgets.task_panel import TaskPanel

        self.query_one("#ar-body").loading = False
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
        self.refresh_bindings()

    @on(AgentRun.Stepped)
    def _stepped(self, event: AgentRun.Stepped) -> None:
        if event.driver is not self.driver:
            return  # a stale run
        self.steps_shown += 1
        self.step_log.add_report(event.report)

    @on(AgentRun.StateChanged)
    def _state_changed(self, event: AgentRun.StateChanged) -> None:
        if event.driver is not self.driver:
            return
        if not self.agent_run.handing_over:
            self._show_state(STATE_TEXT.get(event.state, event.state))
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

    @on(AgentRun.Finished)
    def _finished(self, event: AgentRun.Finished) -> None:
        self.arena.refresh_statuses()
        self.app.push_screen(self.agent_run.result_screen(event))

    def _show_state(self, markup: str) -> None:
        self.query_one("#ar-state", Static).update(markup)

    # -- controls -------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Greys out the controls that do nothing in the current state."""
        state, open_session = self.driver.state, self.agent_run.open_session
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
        if self.agent_run.restart(paused=paused):
            self.step_log.add_note("Running the agent again on the same session.")

    def action_stop(self) -> None:
        self.agent_run.stop()
        self._show_state("[yellow]stopping after this step…[/]")
        self.refresh_bindings()

    def action_take_over(self) -> None:
        if self.agent_run.take_over():
            self._show_state("[yellow]handing over after this step…[/]")
            self.refresh_bindings()

    @on(AgentRun.TakenOver)
    def _taken_over(self, event: AgentRun.TakenOver) -> None:
        from crmarena_tui.screens.workspace import Workspace

        self.arena.refresh_statuses()
        self.app.switch_screen(Workspace(self.task_row, episode=event.episode))

    def action_back(self) -> None:
        self.agent_run.stop()
        self.app.pop_screen()


def open_agent_run(app: App, task: Task | None, from_screen: Screen | None = None) -> None:
    """Ask how to run an agent on `task` (the setup dialog), then open the live view.

    From a workspace, the human's session there is paused and the workspace is replaced."""
    from crmarena_tui.screens.agent_setup_dialog import AgentSetupDialog, default_config

    if task is None:
        app.notify("Pick a task first.", severity="warning")
        return
    arena = cast("Arena", app)
    settings, options = arena.settings, arena.options
    defaults = replace(default_config(settings, aided=options.aided), pace=options.pace)
    user_model = options.user_model or settings.user_model
    if user_model:
        defaults = replace(defaults, user=user_model)

    def chosen(config: AgentRunConfig | None) -> None:
        if config is None:
            return
        screen: AgentRunScreen | UserPlayScreen
        if task.interactive and config.human_user:
            from crmarena_tui.screens.user_play_screen import UserPlayScreen

            screen = UserPlayScreen(task, config)
        else:
            screen = AgentRunScreen(task, config)
        if from_screen is not None and from_screen is app.screen:
            episode = getattr(from_screen, "episode", None)
            if episode is not None and not episode.finished:
                arena.in_background(episode.pause, "pause")
            app.switch_screen(screen)
        else:
            app.push_screen(screen)

    dialog = AgentSetupDialog(task, defaults, user_model=user_model, protocol=settings.protocol)
    app.push_screen(dialog, chosen)
