"""A queue of tasks for an external agent: the tasks `run` would select, each opened as a session
of the agent's participant when its turn comes, on the org `run` would route it to.

`TaskQueue.next_task` opens the first task of the queue that has no finished attempt of this
participant with these settings (resuming an attempt left in progress, as `run` does: the same
`SessionService.find_attempt` and `SessionService.start`), and hands back its `ToolEnv`. With
`QueueOptions.trials` K the queue holds each task K times, in `run`'s order
(`session.runner.attempts_of`: trial 1 of every task first), each trial its own session with its
own resume key. The participant is kind `agent` with strategy `mcp`, named by
`mcp_participant_name` (`--as`, else the MCP client's name and version). The queue holds one Store
(the caller's) and one org per route; use it from one thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from crmarena_tui.agents.tool_env import STRATEGY, ToolEnv

if TYPE_CHECKING:
    from crmarena_tui.agents.base import UserSimulator
    from crmarena_tui.orgs.base import Org
    from crmarena_tui.orgs.pool import OrgPool
    from crmarena_tui.session.service import SessionService
    from crmarena_tui.storage.models import Participant, SessionSpec
    from crmarena_tui.storage.store import Store
    from crmarena_tui.tasks.model import Task

TaskState = Literal["done", "in_progress", "left"]
DEFAULT_CLIENT = "mcp-client"


def mcp_participant_name(as_name: str | None, client: str | None, version: str | None) -> str:
    """Who an external agent is in the sessions database: `--as NAME`, else the client's name
    and version from the MCP handshake (`claude-code/2.1.0`), else `mcp-client`."""
    if as_name and as_name.strip():
        return as_name.strip()
    name = (client or "").strip() or DEFAULT_CLIENT
    return f"{name}/{version.strip()}" if version and version.strip() else name


@dataclass(slots=True)
class QueueOptions:
    """How the queue's sessions run (the `mcp` command's options)."""

    org: str | None = None  # an `--org` value; None: each task's own org (orgs/resolve.py)
    lenient: bool = False
    user_model: str | None = None  # who plays the user in chat tasks (`SessionService.user_spec`)
    user_api_base: str | None = None
    aided: bool = False
    privacy_aware: bool = False
    show_grade: bool = False
    max_turns: int = 20
    max_user_turns: int = 10
    trials: int = 1  # attempts per task (`mcp --trials K`): not a setting, each trial's own key

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
    ) -> None:
        from crmarena_tui.orgs.pool import OrgPool
        from crmarena_tui.session.runner import attempts_of

        self.store = store
        self.tasks = list(tasks)
        self.service = service
        self.options = options or QueueOptions()
        self.attempts = attempts_of(self.tasks, self.options.trials)  # (task, trial) in order
        self.orgs = orgs or OrgPool(self.options.org)
        self.user_factory = user_factory or self._make_user
        self.participant: Participant | None = None
        self.current: ToolEnv | None = None
        self._done: set[int] = set()  # positions known to be finished

    @property
    def protocol(self) -> Any:
        return self.service.protocol

    def join(self, name: str) -> Participant:
        """The participant the queue's sessions belong to (made once, on the first task)."""
        if self.participant is None:
            self.participant = self.store.participant(
                "agent", name, model=None, settings=self.options.settings()
            )
        return self.participant

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

    def state(self, position: int) -> TaskState:
        """`done` (a finished attempt), `in_progress` or `left`, for the attempt at `position`
        (from 0, in `attempts`) and the queue's participant."""
        if position in self._done:
            return "done"
        if self.participant is None:
            return "left"
        task, trial = self.attempts[position]
        user = self.user_factory() if task.interactive else None
        spec = self._spec(task, self.participant, trial)
        found = self.service.find_attempt(self.store, spec, user=user)
        if found is None:
            return "left"
        if found.status == "in_progress":
            return "in_progress"
        self._done.add(position)
        return "done"

    def counts(self) -> dict[TaskState, int]:
        out: dict[TaskState, int] = {"done": 0, "in_progress": 0, "left": 0}
        for position in range(len(self.attempts)):
            out[self.state(position)] += 1
        return out

    def next_task(self, name: str) -> ToolEnv | None:
        """The current task while it is open, else the next unfinished one opened as a session
        of participant `name` (resumed when it was left in progress); None when every task of
        the queue is done."""
        if self.current is not None and not self.current.finished:
            return self.current
        participant = self.join(name)
        for position, (task, trial) in enumerate(self.attempts):
            state = self.state(position)
            if state == "done":
                continue
            user = self.user_factory() if task.interactive else None
            spec = self._spec(task, participant, trial)
            episode = self.service.start(self.store, spec, user=user)
            o = self.options
            env = ToolEnv(
                episode,
                number=position + 1,
                total=len(self.attempts),
                trials=o.trials,
                resumed=state == "in_progress",
                aided=o.aided,
                privacy_aware=o.privacy_aware,
                show_grade=o.show_grade,
                max_turns=o.max_turns,
                max_user_turns=o.max_user_turns,
                schema=self.service.schemas.for_org(episode.org, episode.protocol),
            )
            if env.settle():  # it was decided before an interruption: the next one
                self._done.add(position)
                continue
            self.current = env
            return env
        self.current = None
        return None

    def close(self) -> None:
        self.orgs.close()
