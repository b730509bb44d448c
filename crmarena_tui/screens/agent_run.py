"""An agent's run on one task, as a part of the screen that shows it (the live run screen, or the
screen where a human plays the user): the agent's session, the `AgentDriver` and the worker that
drives it, the take-over's fork. A part (screens/screen_part.py): no look of its own; what happens
goes to the screen as messages, and the screen's controls call it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on, work
from textual.message import Message

from crmarena_tui.screens.screen_part import ScreenPart
from crmarena_tui.session.agent_driver import AgentDriver, AgentRunConfig, DriverState, StepReport
from crmarena_tui.tasks.catalog import BY_NAME
from crmarena_tui.widgets.agent_step_log import escape

if TYPE_CHECKING:
    from textual.worker import Worker

    from crmarena_tui.agents.agent import Agent
    from crmarena_tui.agents.base import UserSimulator
    from crmarena_tui.graders import Grade
    from crmarena_tui.screens.result_screen import ResultScreen
    from crmarena_tui.session.episode import Episode
    from crmarena_tui.session.service import SessionService
    from crmarena_tui.storage.models import Event
    from crmarena_tui.tasks.model import Task


class AgentRun(ScreenPart):
    """One agent on one task: open (or resume) its session, drive it, hand it over."""

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

    def __init__(
        self,
        task: Task,
        config: AgentRunConfig,
        *,
        make_user: Callable[[SessionService], UserSimulator] | None = None,
        id: str | None = None,
    ) -> None:
        """`make_user`: who plays the user of an interactive task (default: the config's
        simulator; a human's `HumanUser` when a person plays it)."""
        super().__init__(id=id)
        self.task_row = task
        self.config = config
        self.make_user = make_user or config.make_user
        self.episode: Episode | None = None
        self.agent: Agent | None = None
        self.driver = self._new_driver(paused=config.start_paused)
        self.handing_over = False
        self._unpaced = threading.Event()  # set: no more waiting between steps (`config.pace`)

    @property
    def open_session(self) -> bool:
        """The session is open and not being handed over: the agent can run on."""
        episode = self.episode
        return episode is not None and not self.handing_over and not episode.finished

    def title(self) -> str:
        """Who runs on what: the agent, the task's type, its number and org."""
        task, entry = self.task_row, BY_NAME.get(self.task_row.task)
        who = "reference agent" if self.config.agent == "reference" else self.config.agent
        return (
            f"[b]{escape(who)}[/] on {entry.label if entry else task.task} [dim]#{task.idx} · "
            f"{task.org_type}{' · interactive' if task.interactive else ''}[/]"
        )

    def result_screen(self, event: Finished) -> ResultScreen:
        """The agent submitted: the result screen of its session."""
        from crmarena_tui.screens.result_screen import ResultScreen

        return ResultScreen(
            self.task_row,
            event.grade,
            event.ground_truth,
            event.active_seconds,
            event.query_count,
            session_id=self.episode.session_id if self.episode is not None else None,
        )

    # -- the worker -----------------------------------------------------------------------------

    @work(thread=True, exclusive=True, exit_on_error=False, group="agent")
    def start(self) -> None:
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

    @on(Ready)
    def _ready(self, event: Ready) -> None:  # then on to the screen
        self.episode, self.agent = event.episode, event.agent

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
        # (then `ScreenPart.Failed` goes to the screen: `group` "agent" or "takeover")
        if worker.group == "agent":
            self.driver.stop()  # it never ran: nothing to pause or resume
        elif worker.group == "takeover":
            self.handing_over = False

    # -- controls -------------------------------------------------------------------------------

    def restart(self, *, paused: bool) -> bool:
        """Run the agent again on the same session with a new driver (False: nothing to run)."""
        if self.episode is None or self.episode.finished or self.agent is None:
            return False
        self.driver = self._new_driver(paused=paused)
        self._unpaced.clear()
        self.drive(self.driver, self.agent, self.episode)
        return True

    def stop(self) -> None:
        """Stop after the step in flight (no more pacing); the session stays in progress."""
        self._unpaced.set()
        self.driver.stop()

    def take_over(self) -> bool:
        """Stop the agent and fork its session for the human (False: nothing to take over)."""
        if self.episode is None or self.episode.finished or self.handing_over:
            return False
        self.handing_over = True
        self._unpaced.set()
        self.hand_over()
        return True

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
