"""The one agent loop: drive an agent's step generator, under a human's or a batch's control.

The live run in the app, the batch runner (`session/runner.py`) and an agent continuing a fork all run
their agent through an `AgentDriver`; none iterates `agent.steps()` itself.

`AgentDriver.run(agent, episode)` blocks (call it from a worker thread) and advances
`agent.steps(episode)` one step at a time. Between steps it obeys the controls, which any thread
may call: `pause()`, `resume()`, `step()` (exactly one more step, then paused again) and `stop()`.
A step in flight (a model call, a query) always completes; the controls act at the next step
boundary. Each finished step is reported through `on_step`, each change of state through
`on_state`; both are called in the driving thread (a UI posts a message from them).

While the driver waits paused, the episode's clock is paused too (a `pause` event), so the time a
human spends watching a stopped agent is not counted as the agent's work. A stopped run leaves
the session `in_progress`: `Episode.start(..., resume=True)` or a new driver continues it.

`SessionService.take_over()` stops the driver and forks the agent's session at its last step into
a new session for a human; `fork_point` says which step. `HumanUser` is a `UserSimulator` whose
replies a human types: the agent's thread blocks on a queue that the UI fills. Nothing here
imports textual.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from crmarena_tui.agents.base import STOP

if TYPE_CHECKING:
    from crmarena_tui.agents.agent import Agent, AgentStep
    from crmarena_tui.agents.base import UserSimulator
    from crmarena_tui.session.episode import Episode
    from crmarena_tui.session.service import SessionService
    from crmarena_tui.storage.models import Event
    from crmarena_tui.tasks.model import Task

DriverState = Literal["idle", "running", "paused", "stopped", "finished", "failed"]
ENDED: frozenset[str] = frozenset({"stopped", "finished", "failed"})
HUMAN_USER = "human"
"""`AgentRunConfig.user` value: a human plays the user (`HumanUser`)."""


@dataclass(frozen=True, slots=True)
class AgentRunConfig:
    """How to run an agent on one task (what the app's setup dialog asks)."""

    agent: str = "reference"  # "reference", or a model name (see `llm.make_client`)
    strategy: str = "react"  # react | tool_call (model agents only)
    aided: bool = False
    privacy_aware: bool = False
    api_base: str | None = None  # None: the settings' api_base
    # interactive tasks: "scripted", a user model, HUMAN_USER, or None (the protocol's default)
    user: str | None = "scripted"
    start_paused: bool = False
    pace: float = 0.0  # the live view waits this many seconds after each step (demos)

    @property
    def human_user(self) -> bool:
        return self.user == HUMAN_USER

    def make_agent(self, service: SessionService) -> Agent:
        return service.agent(
            self.agent,
            strategy=self.strategy,
            api_base=self.api_base,
            aided=self.aided,
            privacy_aware=self.privacy_aware,
        )

    def make_user(self, service: SessionService, human: HumanUser | None = None) -> UserSimulator:
        """The simulated user for an interactive task (`human` when a human plays it)."""
        if self.human_user:
            return human or HumanUser()
        return service.agent_user(self.user, protocol=service.protocol_for(self.agent))

    def check(self, service: SessionService, task: Task, *, lenient: bool) -> None:
        """Raise `protocols.ProtocolRefused` when the protocol does not allow this run on `task`
        (on an org opened lenient or not)."""
        service.check_agent_run(
            self.agent,
            strategy=self.strategy,
            interactive=task.interactive,
            org_type=task.org_type,
            user=None if self.human_user else self.user,
            lenient=lenient,
        )


@dataclass(frozen=True, slots=True)
class StepReport:
    """One finished step: its 1-based `index` in this run, and the events it appended."""

    index: int
    step: AgentStep
    events: list[Event] = field(default_factory=list)
    submitted: bool = False


class AgentDriver:
    """Runs once. Controls are thread-safe; `run` is called by exactly one (worker) thread."""

    def __init__(
        self,
        *,
        on_step: Callable[[StepReport], object] | None = None,
        on_state: Callable[[DriverState], object] | None = None,
        paused: bool = False,
        pause_clock: bool = True,
        record_errors: bool = True,
    ) -> None:
        """`pause_clock`: the episode's clock stops while the driver waits paused and when it
        ends unfinished (a live run watched by a human). `record_errors`: an exception from the
        agent is logged in the session as a `driver_error` event (a caller that logs it itself,
        like the batch runner, turns this off); either way it ends the run `failed` and is kept
        in `exception`."""
        self.on_step = on_step
        self.on_state = on_state
        self.pause_clock = pause_clock
        self.record_errors = record_errors
        self._cond = threading.Condition()
        self._allowance: int | None = 0 if paused else None  # None: run freely; n: n more steps
        self._stop = False
        self._state: DriverState = "idle"
        self._waiting = False
        self._started = False
        self._done = threading.Event()
        self.steps_done = 0
        self.last_step_seq: int | None = None
        self.error: str | None = None
        self.exception: Exception | None = None

    # -- controls (any thread) ------------------------------------------------------------------

    @property
    def state(self) -> DriverState:
        return self._state

    @property
    def ended(self) -> bool:
        return self._state in ENDED

    @property
    def waiting(self) -> bool:
        """True while the driver waits at a step boundary (paused)."""
        return self._waiting

    @property
    def stop_requested(self) -> bool:
        return self._stop

    def pause(self) -> None:
        """Pause after the step in flight (if any)."""
        with self._cond:
            self._allowance = 0
            self._cond.notify_all()

    def resume(self) -> None:
        """Run freely again."""
        with self._cond:
            self._allowance = None
            self._waiting = False  # until the loop halts again
            self._cond.notify_all()

    def step(self) -> None:
        """Paused: run exactly one more step, then pause again (each call adds one step).
        Running: pause after the step in flight."""
        with self._cond:
            self._allowance = 0 if self._allowance is None else self._allowance + 1
            if self._allowance:
                self._waiting = False  # until the loop halts again
            self._cond.notify_all()

    def stop(self) -> None:
        """Stop at the next step boundary; the session stays in progress."""
        with self._cond:
            self._stop = True
            self._cond.notify_all()
            if not self._started:
                self._state = "stopped"
                self._done.set()

    def wait_halted(self, timeout: float | None = None) -> bool:
        """Block until the driver waits paused or has ended; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: self._waiting or self.ended, timeout)

    def wait_done(self, timeout: float | None = None) -> bool:
        """Block until `run` has returned (or the driver was stopped before it ran)."""
        return self._done.wait(timeout)

    # -- the loop (one worker thread) -----------------------------------------------------------

    def run(self, agent: Agent, episode: Episode) -> DriverState:
        """Drive `agent` through `episode` until it is done, stopped or fails; the end state."""
        with self._cond:
            if self._started or self._stop:
                self._done.set()
                return self._state if self._started else "stopped"
            self._started = True
        seen = len(episode.events)
        steps = agent.steps(episode)
        end: DriverState = "stopped"
        try:
            while self._ticket(episode):
                try:
                    step = next(steps)
                except StopIteration:
                    end = "finished" if episode.finished else "stopped"
                    break
                events = episode.events
                self.steps_done += 1
                if events:
                    self.last_step_seq = events[-1].seq
                report = StepReport(self.steps_done, step, events[seen:], episode.finished)
                seen = len(events)
                self._notify_step(report)
                if step.done:
                    end = "finished" if episode.finished else "failed"
                    if end == "failed":
                        self.error = step.text or step.end_reason or "the agent stopped"
                    break
        except Exception as exc:  # noqa: BLE001 - reported through the state, never raised
            if self._stop or isinstance(exc, UserLeft):
                end = "stopped"  # e.g. a human user left while the agent waited for a reply
            else:
                end = "failed"
                self.exception = exc
                self.error = f"{type(exc).__name__}: {exc}"
                if self.record_errors:
                    self._record(episode, {"event": "driver_error", "error": self.error})
        finally:
            steps.close()
            if self.pause_clock and not episode.finished:
                self._quietly(episode.pause)
            with self._cond:
                self._state = end
                self._waiting = False
                self._cond.notify_all()
            self._done.set()
        self._notify_state(end)
        return end

    def _ticket(self, episode: Episode) -> bool:
        """Wait at the boundary while paused; True when one more step may run."""
        clock_paused = False
        while True:
            with self._cond:
                if self._stop:
                    self._waiting = False
                    return False
                if self._allowance != 0:
                    if self._allowance is not None:
                        self._allowance -= 1
                    self._waiting = False
                    changed = self._state != "running"
                    self._state = "running"
                    break
                if clock_paused:
                    if not self._waiting:
                        self._waiting = True
                        self._state = "paused"
                        self._cond.notify_all()
                        announce = True
                    else:
                        self._cond.wait()
                        continue
                else:
                    announce = False
            if not clock_paused:  # the database, outside the lock, before saying "paused"
                clock_paused = True
                if self.pause_clock:
                    self._quietly(episode.pause)
            elif announce:
                self._notify_state("paused")
        if self.pause_clock and (clock_paused or episode.paused):  # e.g. a stopped run's pause
            self._quietly(episode.resume)
        if changed:
            self._notify_state("running")
        return True

    # -- callbacks ------------------------------------------------------------------------------

    def _notify_step(self, report: StepReport) -> None:
        if self.on_step is not None:
            self.on_step(report)

    def _notify_state(self, state: DriverState) -> None:
        if self.on_state is not None:
            self.on_state(state)

    @staticmethod
    def _quietly(fn: Callable[[], Any]) -> None:
        with contextlib.suppress(Exception):  # a closed session cannot be paused: no matter
            fn()

    def _record(self, episode: Episode, payload: dict[str, Any]) -> None:
        if not episode.finished:
            self._quietly(lambda: episode.record("system", payload, actor="system"))


def fork_point(episode: Episode, driver: AgentDriver | None = None) -> int | None:
    """The event a take-over continues from: the driver's last step, else the log's last event
    that is not a pause or resume; None when the log is empty."""
    if driver is not None and driver.last_step_seq is not None:
        return driver.last_step_seq
    for event in reversed(episode.events):
        if event.kind not in ("pause", "resume"):
            return event.seq
    return None


class UserLeft(RuntimeError):
    """The human playing the user left before replying."""


class HumanUser:
    """A `UserSimulator` played by a human: the agent's thread blocks until the human replies.

    `on_turn(kind, agent_message)` is called (in the agent's thread) when a reply is wanted:
    kind "opening" (no agent message yet) or "reply". The UI answers with `answer(text)`;
    `answer(STOP)` ends the dialogue; `leave()` makes any waiting call raise `UserLeft`.
    """

    name = HUMAN_USER

    def __init__(self, on_turn: Callable[[str, str], object] | None = None) -> None:
        self.on_turn = on_turn
        self._replies: queue.Queue[str | None] = queue.Queue()
        self._left = threading.Event()
        self._waiting = threading.Event()

    @property
    def waiting(self) -> bool:
        """True while the agent waits for the human's message."""
        return self._waiting.is_set()

    def answer(self, text: str) -> None:
        self._replies.put(text)

    def stop(self) -> None:
        """End the dialogue (the user says `###STOP###`)."""
        self.answer(STOP)

    def leave(self) -> None:
        self._left.set()
        self._replies.put(None)

    def opening(self, task: Task) -> str:
        return self._wait("opening", "")

    def reply(self, task: Task, history: list[dict[str, str]]) -> str:
        said = [m.get("content", "") for m in history if m.get("role") == "agent"]
        last = said[-1] if said else ""
        return self._wait("reply", last)

    def _wait(self, kind: str, agent_message: str) -> str:
        if self._left.is_set():
            raise UserLeft("the user has left the conversation")
        self._waiting.set()
        try:
            if self.on_turn is not None:
                self.on_turn(kind, agent_message)
            text = self._replies.get()
        finally:
            self._waiting.clear()
        if text is None or self._left.is_set():
            raise UserLeft("the user has left the conversation")
        return text


def run_to_end(
    agent: Agent,
    episode: Episode,
    *,
    on_step: Callable[[StepReport], object] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> AgentDriver:
    """Blocking: drive `agent` through `episode` in this thread until it is done, or until
    `should_stop()` (asked after each step) says so; the session then stays in progress.
    An exception from the agent is re-raised here (after it was logged in the session)."""
    driver = AgentDriver(pause_clock=False)

    def stepped(report: StepReport) -> None:
        if on_step is not None:
            on_step(report)
        if should_stop is not None and should_stop():
            driver.stop()

    driver.on_step = stepped
    driver.run(agent, episode)
    if driver.exception is not None:
        raise driver.exception
    return driver
