"""A queue of tasks for an external agent: the tasks `run` would select, each opened as a session
of the agent's participant when its turn comes, on the org `run` would route it to.

`TaskQueue.next_task` opens, for one lease holder (an MCP client), the first task of the queue
that has no finished attempt of this participant with these settings and whose lease the holder
gets (`storage/leases.py`: no other client on any server of the database works it), resuming an
attempt left in progress as `run` does (the same `SessionService.find_attempt` and
`SessionService.start`), and hands back its `ToolEnv`; each holder has its own open task. With
`QueueOptions.trials` K the queue holds each task K times, in `run`'s order
(`session.runner.attempts_of`: trial 1 of every task first), each trial its own session with its
own resume key. The participant is kind `agent` with strategy `mcp`, named by
`mcp_participant_name` (`--as`, else the MCP client's name and version; never an SDK's default
name). The queue holds one Store (the caller's) and one org per route; use it from one thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from crmarena_tui.agents.result_pages import ResultPages
from crmarena_tui.agents.tool_env import STRATEGY, ToolEnv
from crmarena_tui.storage.leases import LeaseBook, attempt_key, record_client

if TYPE_CHECKING:
    from crmarena_tui.agents.base import UserSimulator
    from crmarena_tui.orgs.base import Org
    from crmarena_tui.session.org_pool import OrgPool
    from crmarena_tui.session.service import SessionService
    from crmarena_tui.storage.models import Participant, SessionSpec
    from crmarena_tui.storage.store import Store
    from crmarena_tui.tasks.model import Task

TaskState = Literal["done", "in_progress", "left"]


class LeaseLost(ValueError):
    """The caller's lease lapsed and another holder works its attempt now."""


class WorkersBusy(ValueError):
    """The pool holds as many leases as it may (`mcp --workers N`)."""


# what MCP SDKs call a client that does not name itself (the Python SDK: `mcp`; FastMCP's client)
SDK_DEFAULT_NAMES = frozenset({"mcp", "fastmcp", "mcp-client", "mcp client", ""})


def is_sdk_default(client: str | None) -> bool:
    """Whether `client` (the clientInfo name of the MCP handshake) is an SDK's default name,
    which any agent built on that SDK shares (the Agents SDK and LangChain's adapters are both
    `mcp/0.1.0`): no name for a participant."""
    return (client or "").strip().lower() in SDK_DEFAULT_NAMES


def mcp_participant_name(as_name: str | None, client: str | None, version: str | None) -> str:
    """Who an external agent is in the sessions database: `--as NAME`, else the client's name
    and version from the MCP handshake (`claude-code/2.1.0`). Raises `ValueError` for a client
    known only by its SDK's default name (`mcp/0.1.0`) and no `--as`: different agents would
    merge into one participant."""
    if as_name and as_name.strip():
        return as_name.strip()
    if is_sdk_default(client):
        named = f"{(client or '').strip() or 'no name'}"
        raise ValueError(
            f"this client introduces itself as {named!r}, the default name of its MCP SDK, "
            "which other agents share: start the server with --as NAME to name your agent"
        )
    name = (client or "").strip()
    return f"{name}/{version.strip()}" if version and version.strip() else name


@dataclass(slots=True)
class QueueOptions:
    """How the queue's sessions run (the `mcp` command's options)."""

    org: str | None = None  # an `--org` value; None: each task's own org (session/org_resolve.py)
    lenient: bool = False
    user_model: str | None = None  # who plays the user in chat tasks (`SessionService.user_spec`)
    user_api_base: str | None = None
    aided: bool = False
    privacy_aware: bool = False
    show_grade: bool = False
    max_turns: int = 20
    max_user_turns: int = 10
    trials: int = 1  # attempts per task (`mcp --trials K`): not a setting, each trial's own key
    result_chars: int | None = None  # page and cap large results (agents/result_pages.py)

    def settings(self) -> dict[str, Any]:
        """The participant's settings: what tells its runs apart (part of the resume key)."""
        return {
            "strategy": STRATEGY,
            "aided": self.aided,
            "privacy_aware": self.privacy_aware,
            "max_turns": self.max_turns,
            "max_user_turns": self.max_user_turns,
        }


class TaskQueue:
    """`tasks` in queue order (as `commands/run.select_tasks` gives them)."""

    def __init__(
        self,
        store: Store,
        tasks: list[Task],
        service: SessionService,
        options: QueueOptions | None = None,
        *,
        orgs: OrgPool | None = None,
        user_factory: Callable[[], UserSimulator] | None = None,
        leases: LeaseBook | None = None,
        workers: int | None = None,
    ) -> None:
        from crmarena_tui.session.org_pool import OrgPool
        from crmarena_tui.session.runner import attempts_of

        self.store = store
        self.tasks = list(tasks)
        self.service = service
        self.options = options or QueueOptions()
        self.attempts = attempts_of(self.tasks, self.options.trials)  # (task, trial) in order
        self.orgs = orgs or OrgPool(self.options.org)
        self.user_factory = user_factory or self._make_user
        self.leases = leases or LeaseBook(store)
        self.workers = workers  # how many leases the pool may hold at once (None: no limit)
        self.participants: dict[str, Participant] = {}
        self.current: dict[str, ToolEnv] = {}  # holder -> the task it works
        self._held: dict[str, str] = {}  # holder -> the attempt it holds the lease of
        self._done: set[tuple[int, int]] = set()  # (participant, position) known to be finished

    @property
    def protocol(self) -> Any:
        return self.service.protocol

    @property
    def participant(self) -> Participant | None:
        """The first participant to join (a server with `--as` has only that one)."""
        return next(iter(self.participants.values()), None)

    def join(self, name: str) -> Participant:
        """The participant named `name` the queue's sessions belong to (made at its first task:
        clients with different names on one server are different participants)."""
        participant = self.participants.get(name)
        if participant is None:
            participant = self.store.participant(
                "agent", name, model=None, settings=self.options.settings()
            )
            self.participants[name] = participant
        return participant

    def _make_user(self) -> UserSimulator:
        return self.service.agent_user(
            self.options.user_model, api_base=self.options.user_api_base, protocol=self.protocol
        )

    def _org(self, task: Task) -> Org:
        return self.orgs.org_for(task, lenient=self.options.lenient)[0]

    def describe(self) -> str:
        """The queue's size in words: `4 tasks`, or `4 tasks x 3 trials (12 attempts)`."""
        tasks = f"{len(self.tasks)} tasks"
        if self.options.trials <= 1:
            return tasks
        return f"{tasks} x {self.options.trials} trials ({len(self.attempts)} attempts)"

    def _spec(self, task: Task, participant: Participant, trial: int = 1) -> SessionSpec:
        """The session the queue's participant works `task` in, as its trial `trial` (the same
        for `state`'s look-up and `next_task`'s start, so both use one resume key)."""
        return self.service.spec(
            task,
            self._org(task),
            participant,
            aided=self.options.aided,
            settings=self.options.settings(),
            protocol=self.protocol,
            trial=trial,
        )

    def state(self, position: int, participant: Participant | None = None) -> TaskState:
        """`done` (a finished attempt), `in_progress` or `left`, for the attempt at `position`
        (from 0, in `attempts`) and `participant` (default: the first to join)."""
        participant = participant or next(iter(self.participants.values()), None)
        if participant is None:
            return "left"
        if (participant.id, position) in self._done:
            return "done"
        task, trial = self.attempts[position]
        user = self.user_factory() if task.interactive else None
        spec = self._spec(task, participant, trial)
        found = self.service.find_attempt(self.store, spec, user=user)
        if found is None:
            return "left"
        if found.status == "in_progress":
            return "in_progress"
        self._done.add((participant.id, position))
        return "done"

    def counts(self, participant: Participant | None = None) -> dict[TaskState, int]:
        out: dict[TaskState, int] = {"done": 0, "in_progress": 0, "left": 0}
        for position in range(len(self.attempts)):
            out[self.state(position, participant)] += 1
        return out

    def attempt(self, position: int, participant: Participant) -> str:
        """The lease key of the attempt at `position` by `participant`."""
        task, trial = self.attempts[position]
        user = self.user_factory() if task.interactive else None
        key = self.service.resume_key(self._spec(task, participant, trial), user)
        return attempt_key(participant.id, task.source, task.idx, key)

    def env_of(self, holder: str) -> ToolEnv | None:
        """The task `holder` works, or None before its first `next_task`. Raises `LeaseLost`
        when its lease lapsed and another holder took the attempt over (renewing it else)."""
        env = self.current.get(holder)
        if env is None:
            return None
        attempt = self._held[holder]
        if not env.finished and not self.leases.renew(attempt, holder):
            del self.current[holder], self._held[holder]
            brief = env.task_brief()
            raise LeaseLost(
                f"task {brief.number} (session {brief.session_id}) is no longer yours: your "
                f"lease lapsed after {self.leases.timeout:g} s without a call and another "
                "client works it now; call next_task"
            )
        return env

    def release(self, holder: str) -> None:
        """`holder` is gone (its MCP session ended): its attempt may be taken at once."""
        attempt = self._held.pop(holder, None)
        self.current.pop(holder, None)
        if attempt is not None:
            self.leases.release(attempt, holder)

    def next_task(
        self, name: str, holder: str = "", client: dict[str, Any] | None = None
    ) -> ToolEnv | None:
        """`holder`'s task while it is open, else the next unfinished attempt no one else holds
        a live lease on, leased to `holder` and opened as a session of participant `name`
        (resumed when it was left in progress, by this holder or one that vanished); None when
        every attempt is done or held by others. `client` (the MCP client's name and version,
        `--as`) is recorded in the session's settings (`mcp_client`) when it is opened. Raises `LeaseLost` as
        `env_of`, and `WorkersBusy` when the pool holds `workers` leases already."""
        env = self.env_of(holder)
        if env is not None and not env.finished:
            return env
        self.release(holder)
        if self.workers is not None and self.leases.held_in() >= self.workers:
            raise WorkersBusy(
                f"{self.workers} clients already work a task on this server (--workers "
                f"{self.workers}); call next_task again when one has finished"
            )
        participant = self.join(name)
        for position in range(len(self.attempts)):
            state = self.state(position, participant)
            if state == "done":
                continue
            attempt = self.attempt(position, participant)
            if not self.leases.take(attempt, holder):
                continue  # another client works it
            # read again under the lease: another server may have worked it to the end
            # between the look above and the lease (it would be opened a second time)
            state = self.state(position, participant)
            if state == "done":
                self.leases.release(attempt, holder)
                continue
            env = self._open(position, participant, resumed=state == "in_progress")
            if env is None:  # it was decided before an interruption: the next one
                self._done.add((participant.id, position))
                self.leases.release(attempt, holder)
                continue
            self.leases.attach(attempt, holder, env.episode.session_id)
            if client:
                record_client(self.store, env.episode.session_id, client)
            self.current[holder], self._held[holder] = env, attempt
            return env
        return None

    def _open(self, position: int, participant: Participant, *, resumed: bool) -> ToolEnv | None:
        """The attempt at `position` opened (or resumed) as a session; None when it was
        decided before an interruption (`ToolEnv.settle`)."""
        task, trial = self.attempts[position]
        user = self.user_factory() if task.interactive else None
        spec = self._spec(task, participant, trial)
        episode = self.service.start(self.store, spec, user=user)
        o = self.options
        env = ToolEnv(
            episode,
            number=position + 1,
            total=len(self.attempts),
            trials=o.trials,
            resumed=resumed,
            aided=o.aided,
            privacy_aware=o.privacy_aware,
            show_grade=o.show_grade,
            max_turns=o.max_turns,
            max_user_turns=o.max_user_turns,
            schema=self.service.schemas.for_org(episode.org, episode.protocol),
            pages=None if o.result_chars is None else ResultPages(o.result_chars),
        )
        return None if env.settle() else env

    def unfinished(self, name: str) -> int:
        """How many attempts of participant `name` have no finished session yet (held by
        other clients, when `next_task` found none to give)."""
        participant = self.join(name)
        return sum(
            self.state(position, participant) != "done" for position in range(len(self.attempts))
        )

    def close(self) -> None:
        self.orgs.close()
