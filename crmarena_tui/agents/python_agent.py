"""A researcher's own agent in Python: `run --agent FILE.py:NAME`, `--agent package.module:NAME`,
or an agent installed under the entry-point group `crmarena_tui.agents` (`crmarena-tui agents`).

NAME is a callable (a class, a function) returning an object with `solve(task, env)`:

- `task` (`AgentTask`): `idx`, `query` (the request; in a chat task the simulated user's opening
  message, the rest being revealed as the agent asks), `prompt` (the system prompt a model agent is
  given under the session's protocol: role, tools, schema, `metadata.required`), `interactive`,
  `session_id`; with `run --model-proxy`, `model_base_url` and `model_key` (an OpenAI-compatible
  client pointed at them has its calls recorded in the session). Never the answer.
- `env` (`agents/tool_env.py` `ToolEnv`, the same tools the MCP server serves, with the same
  meaning and return values): `execute_soql(text)`, `execute_sosl(text)`, `describe_object(name)`,
  `respond(text)`, `report_usage(model=..., prompt_tokens=..., completion_tokens=..., cost=...)`.

`PythonAgent` makes such an object an `Agent` the driver runs like any other (`run` with resume,
`--concurrency`, progress, summary, `ctrl+c`; the app's `ctrl+g`): `solve` runs in a thread of its
own, and every action it takes (`execute_soql`, `execute_sosl`, `respond`) waits for the driver's
next step, so the driver pauses, single-steps and stops it between actions as it does a model
agent. A stopped run raises `AgentStopped` inside the agent's pending call; its session stays in
progress and is resumed next time (a new `solve` on the same session, its events kept). An
exception raised by `solve` fails the session's run, recorded as the driver records errors.
"""

from __future__ import annotations

import importlib
import importlib.util
import queue
import re
import sys
import threading
from collections.abc import Callable, Generator
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crmarena_tui.agents.step import AgentStep
from crmarena_tui.agents.tool_env import ToolEnv

if TYPE_CHECKING:
    from crmarena_tui.agents.agent_schema import AgentSchema, SchemaSources
    from crmarena_tui.agents.python_proxy import PythonProxy

GROUP = "crmarena_tui.agents"
STRATEGY = "python"
_MODULE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


class AgentSpecError(ValueError):
    """An `--agent` naming Python code that cannot be loaded (one line, for the user)."""


class AgentStopped(Exception):  # noqa: N818 - what the agent's pending call raises
    """The run was stopped (`ctrl+c`, the app's stop): the agent's pending call does not run."""


@dataclass(frozen=True, slots=True)
class AgentTask:
    """What a Python agent is given for a task (never the answer)."""

    idx: int
    query: str
    prompt: str
    interactive: bool
    session_id: int
    # with `run --model-proxy`: an OpenAI-compatible base URL and key whose calls are recorded
    # in this session (agents/python_proxy.py); None without it
    model_base_url: str | None = None
    model_key: str | None = None


def installed_agents() -> dict[str, str]:
    """The agents installed under the entry-point group: name -> `module:attr`."""
    return {ep.name: ep.value for ep in entry_points(group=GROUP)}


def is_python_spec(spec: str) -> bool:
    """Whether `--agent spec` names Python code rather than a model: `FILE.py:NAME`, an
    importable `package.module:NAME`, or an installed agent's name. A model name such as
    `ollama/llama3:8b` is none of these."""
    if spec in installed_agents():
        return True
    left, colon, name = spec.rpartition(":")
    if not colon or not name.isidentifier():
        return False
    if left.endswith(".py"):
        return True
    if not _MODULE.fullmatch(left):
        return False
    try:
        return importlib.util.find_spec(left.split(".")[0]) is not None
    except (ImportError, ValueError):
        return False


def load_factory(spec: str) -> Callable[[], Any]:
    """The callable `spec` names (raises `AgentSpecError` saying what is wrong)."""
    installed = installed_agents()
    target = installed.get(spec, spec)
    left, _, name = target.rpartition(":")
    if left.endswith(".py"):
        module = _load_file(Path(left))
    else:
        try:
            module = importlib.import_module(left)
        except ImportError as exc:
            raise AgentSpecError(f"--agent {spec}: cannot import {left} ({exc})") from None
        except Exception as exc:  # noqa: BLE001 - the agent's own module failed to load
            raise AgentSpecError(f"--agent {spec}: importing {left} raised {exc!r}") from None
    factory = getattr(module, name, None)
    if not callable(factory):
        raise AgentSpecError(f"--agent {spec}: {left} has no callable named {name!r}")
    return factory


def configured_spec(spec: str) -> str:
    """`spec` as the participant records it: a file named by its file name, not the path it was
    given by (`./a/agent.py:Agent` and `/home/x/a/agent.py:Agent` are one participant)."""
    left, colon, name = spec.rpartition(":")
    if colon and left.endswith(".py"):
        return f"{Path(left).name}:{name}"
    return spec


def _load_file(path: Path) -> Any:
    if not path.is_file():
        raise AgentSpecError(f"--agent: no such file: {path}")
    module_name = f"crmarena_tui_agent_{abs(hash(str(path.resolve())))}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise AgentSpecError(f"--agent: {path} cannot be loaded as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    folder = str(path.resolve().parent)  # the agent's siblings are importable from it
    if folder not in sys.path:
        sys.path.append(folder)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - the agent's own file failed to load
        del sys.modules[module_name]
        raise AgentSpecError(f"--agent: loading {path} raised {exc!r}") from None
    return module


_GO, _STOP, _DONE = object(), object(), object()


class _SteppedEnv(ToolEnv):
    """The session's tools, each action waiting for the driver's next step and reported to it."""

    def __init__(self, episode: Any, *, to_agent: queue.Queue, to_driver: queue.Queue,
                 aided: bool, privacy_aware: bool,
                 schema: AgentSchema | None = None) -> None:  # fmt: skip
        super().__init__(episode, aided=aided, privacy_aware=privacy_aware, schema=schema)
        self._to_agent, self._to_driver = to_agent, to_driver
        self._turn = 0
        self._ending: AgentStep | None = None  # the step that ended the episode, with its grade

    def _submitted(self, step: AgentStep) -> str:
        self._ending = step
        return super()._submitted(step)

    def _end_text(self, step: AgentStep) -> str:
        self._ending = step
        return super()._end_text(step)

    def _act(self, action: str, text: str, call: Callable[[], str]) -> str:
        if self._to_agent.get() is _STOP:
            raise AgentStopped("the run was stopped")
        submitted_before = self.episode.finished
        seen = len(self.episode.events)
        observation = call()
        self._turn += 1
        finished = self.episode.finished and not submitted_before
        failed = any(e.kind == "error" for e in self.episode.events[seen:])
        ending = self._ending if finished else None
        self._to_driver.put(
            AgentStep(
                turn=self._turn,
                action="submit" if finished and action == "respond" else action,  # type: ignore[arg-type]
                text=text,
                observation=observation,
                ok=not failed,
                done=self.episode.finished,
                end_reason=(ending.end_reason or "submitted") if ending else None,
                grade=ending.grade if ending else None,
            )
        )
        return observation

    def execute_soql(self, query: str) -> str:
        return self._act("execute", query, lambda: super(_SteppedEnv, self).execute_soql(query))

    def execute_sosl(self, search: str) -> str:
        return self._act("execute", search, lambda: super(_SteppedEnv, self).execute_sosl(search))

    def respond(self, content: str, usage: dict[str, Any] | None = None) -> str:
        return self._act(
            "respond", content, lambda: super(_SteppedEnv, self).respond(content, usage)
        )


class PythonAgent:
    """An agent of the researcher's own, loaded from `spec`; one object per worker thread."""

    strategy = STRATEGY
    schemas: SchemaSources | None = None  # where the schema text comes from (None: the org's)
    proxy: PythonProxy | None = None  # the run's model proxy (`run --model-proxy`), if any

    def __init__(
        self,
        spec: str,
        *,
        aided: bool = False,
        privacy_aware: bool = False,
        schemas: SchemaSources | None = None,
    ) -> None:
        self.spec = spec
        self.schemas = schemas
        self.impl = load_factory(spec)()
        if not callable(getattr(self.impl, "solve", None)):
            raise AgentSpecError(f"--agent {spec}: what it returns has no solve(task, env) method")
        self.name = str(getattr(self.impl, "name", None) or spec.rpartition(":")[2] or spec)
        self.model = getattr(self.impl, "model", None)
        self.aided, self.privacy_aware = aided, privacy_aware

    def settings(self) -> dict[str, Any]:
        return {
            "strategy": STRATEGY,
            "agent": configured_spec(self.spec),
            "aided": self.aided,
            "privacy_aware": self.privacy_aware,
        }

    def steps(self, episode: Any) -> Generator[AgentStep, None, None]:
        to_agent: queue.Queue[object] = queue.Queue()
        to_driver: queue.Queue[object] = queue.Queue()
        env = _SteppedEnv(
            episode,
            to_agent=to_agent,
            to_driver=to_driver,
            aided=self.aided,
            privacy_aware=self.privacy_aware,
            schema=self.schemas.for_org(episode.org, episode.protocol) if self.schemas else None,
        )
        if env.settle():  # a chat the user had ended before an interruption: now submitted
            return
        brief = env.task_brief()
        base_url, key = self.proxy.open(episode) if self.proxy is not None else (None, None)
        task = AgentTask(
            idx=episode.task.idx,
            query=brief.request,
            prompt=brief.system_prompt,
            interactive=brief.interactive,
            session_id=episode.session_id,
            model_base_url=base_url,
            model_key=key,
        )

        def work() -> None:
            try:
                self.impl.solve(task, env)
            except AgentStopped:
                pass
            except BaseException as exc:  # noqa: BLE001 - handed to the driver's thread
                to_driver.put(exc)
                return
            to_driver.put(_DONE)

        thread = threading.Thread(target=work, name=f"agent-{episode.session_id}", daemon=True)
        thread.start()
        try:
            while True:
                to_agent.put(_GO)
                item = to_driver.get()
                if item is _DONE:
                    return
                if isinstance(item, BaseException):
                    raise item
                assert isinstance(item, AgentStep)
                yield item
                if item.done:
                    to_agent.put(_STOP)  # any further action is refused: the episode is over
                    self._finish(thread, to_driver)
                    return
        finally:
            if thread.is_alive():
                to_agent.put(_STOP)
                thread.join(timeout=5)
            if self.proxy is not None:
                self.proxy.close(episode)

    @staticmethod
    def _finish(thread: threading.Thread, to_driver: queue.Queue[object]) -> None:
        """Let `solve` return after the episode ended (its next action, if any, is stopped)."""
        thread.join(timeout=5)
        while not to_driver.empty():  # what it did after the end (no action) is of no matter
            to_driver.get_nowait()
