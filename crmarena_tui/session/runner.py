"""The batch runner behind `crmarena-tui run`: one agent over many tasks, resumable, in threads.

Each task gets at most one session per (participant, task, settings): a submitted (or abandoned)
one is skipped and its grade counted, an in-progress one is resumed where its event log stops,
otherwise a new session starts. Workers are threads (model calls wait on the network), each with
its own database connection (WAL; see `RunOptions.durability`) and org instances. `stop()` (or Ctrl-C inside `run()`) lets every
worker finish its current step and leaves unfinished sessions `in_progress` for the next run.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from crmarena_tui.agents.agent import Agent, AgentStep
from crmarena_tui.tasks.model import Task

if TYPE_CHECKING:
    from crmarena_tui.agents.base import UserSimulator
    from crmarena_tui.graders import Judge
    from crmarena_tui.orgs.base import Org
    from crmarena_tui.session.agent_driver import StepReport
    from crmarena_tui.session.service import SessionService
    from crmarena_tui.settings.config import Settings
    from crmarena_tui.storage.models import GradeRow
    from crmarena_tui.storage.store import Store

Outcome = Literal["submitted", "skipped", "unfinished", "failed", "not_started"]


@dataclass(slots=True)
class RunOptions:
    agent: str
    strategy: str = "react"
    api_base: str | None = None
    org: str | None = None  # None: the demo org of each task's org type
    lenient: bool = False  # local orgs answer what Salesforce refuses (`--lenient`)
    user_model: str | None = None  # None or "scripted": the scripted user
    user_api_base: str | None = None
    aided: bool = False
    privacy_aware: bool = False
    concurrency: int = 1
    pace: float = 0.0  # seconds each agent waits after a step before the next (`run --pace`)
    # "normal": WAL without an fsync per event. A killed process loses nothing; only an OS crash
    # or power cut can drop the last few events, and the session then resumes from what remains.
    # "full" fsyncs every event (about 5 ms each here: 4-5 per agent step).
    durability: Literal["normal", "full"] = "normal"


@dataclass(slots=True)
class TaskResult:
    task: Task
    outcome: Outcome
    session_id: int | None = None
    reward: float | None = None
    steps: int = 0
    resumed: bool = False
    error: str | None = None
    seconds: float = 0.0
    end_reason: str | None = None  # why an episode ended unconfirmed ("Max turns reached", ...)


@dataclass(slots=True)
class RunReport:
    agent: str
    results: list[TaskResult] = field(default_factory=list)
    interrupted: bool = False

    @property
    def complete(self) -> bool:
        """Every task has a submitted session (new or from an earlier run)."""
        return not self.interrupted and all(
            r.outcome in ("submitted", "skipped") for r in self.results
        )

    def summary(self) -> dict[str, Any]:
        """Reward by task type (graded sessions only) and overall, with outcome counts."""
        by_type: dict[str, list[float]] = {}
        for r in self.results:
            by_type.setdefault(r.task.task, [])
            if r.reward is not None:
                by_type[r.task.task].append(r.reward)
        rows = {
            t: {"n": len(v), "mean": (sum(v) / len(v)) if v else None}
            for t, v in sorted(by_type.items())
        }
        graded = [x for v in by_type.values() for x in v]
        counts: dict[str, int] = {}
        for r in self.results:
            key = "resumed" if r.resumed and r.outcome == "submitted" else r.outcome
            counts[key] = counts.get(key, 0) + 1
        return {
            "agent": self.agent,
            "tasks": len(self.results),
            "interrupted": self.interrupted,
            "by_task": rows,
            "overall": {"n": len(graded), "mean": (sum(graded) / len(graded)) if graded else None},
            "outcomes": counts,
            "failures": [{"task": r.task.key, "error": r.error} for r in self.results if r.error],
            "end_reasons": dict(
                sorted(Counter(r.end_reason for r in self.results if r.end_reason).items())
            ),
        }


AgentFactory = Callable[[], Agent]
OrgFactory = Callable[[Task], "Org"]
UserFactory = Callable[[], "UserSimulator"]


class BatchRunner:
    def __init__(
        self,
        db_path: Path,
        tasks: list[Task],
        options: RunOptions,
        *,
        agent_factory: AgentFactory | None = None,
        org_factory: OrgFactory | None = None,
        user_factory: UserFactory | None = None,
        service: SessionService | None = None,
        judge: Judge | None = None,
        settings: Settings | None = None,
        on_result: Callable[[TaskResult], None] | None = None,
        on_step: Callable[[Task, AgentStep], None] | None = None,
        on_stopping: Callable[[], None] | None = None,
        on_loading: Callable[[bool], None] | None = None,
        wait: Callable[[float], object] | None = None,
    ) -> None:
        """`service` sets up every session (its settings, judge); without one, a service is made
        from `settings` (default: loaded now) and `judge` (default: the settings' judge_model).
        `on_loading(True)` and `on_loading(False)` bracket the loading of the model client
        before any session opens (`_load_model_client`), when the run needs it. `wait(seconds)`
        is how an agent waits between its steps under `options.pace` (default: until the run is
        stopped or the seconds pass; a test injects its own clock)."""
        self.db_path = Path(db_path)
        self.tasks = list(tasks)
        self.options = options
        if service is None:
            from crmarena_tui.session.service import SessionService
            from crmarena_tui.settings.config import load_settings

            service = SessionService(settings or load_settings(), judge=judge)
        self.service = service
        self.agent_factory = agent_factory or self._make_agent
        self.org_factory = org_factory or self._open_org
        self.user_factory = user_factory or self._make_user
        self.on_result = on_result
        self.on_step = on_step
        self.on_stopping = on_stopping
        self.on_loading = on_loading
        self._stop = threading.Event()
        self._wait = wait or self._stop.wait
        self._results: list[TaskResult | None] = [None] * len(self.tasks)
        self._queue: queue.Queue[tuple[int, Task]] = queue.Queue()
        self._callback_lock = threading.Lock()
        self._worker_errors: list[Exception] = []

    # -- defaults -------------------------------------------------------------------------------
    def _make_agent(self) -> Agent:
        o = self.options
        return self.service.agent(
            o.agent,
            strategy=o.strategy,
            api_base=o.api_base,
            aided=o.aided,
            privacy_aware=o.privacy_aware,
        )

    def _open_org(self, task: Task) -> Org:
        from crmarena_tui.orgs.resolve import open_task_org

        return open_task_org(task, self.options.org, lenient=self.options.lenient)[0]

    def _make_user(self) -> UserSimulator:
        return self.service.agent_user(
            self.options.user_model,
            api_base=self.options.user_api_base,
            protocol=self.service.protocol_for(self.options.agent),
        )

    # -- running --------------------------------------------------------------------------------
    def stop(self) -> None:
        """Finish the current steps and stop; unfinished sessions stay resumable."""
        self._stop.set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def run(self) -> RunReport:
        from crmarena_tui.storage import Store

        Store(self.db_path).close()  # create/migrate once, before the workers open it together
        self._load_model_client()
        for item in enumerate(self.tasks):
            self._queue.put(item)
        count = max(1, min(self.options.concurrency, len(self.tasks) or 1))
        finished = [threading.Event() for _ in range(count)]
        workers = [
            threading.Thread(
                target=self._worker, args=(done,), name=f"crmarena-run-{i}", daemon=True
            )
            for i, done in enumerate(finished)
        ]
        for w in workers:
            w.start()
        interrupted = False
        try:
            self._join(finished)
        except KeyboardInterrupt:
            interrupted = True
            self.stop()
            if self.on_stopping is not None:
                self.on_stopping()
            self._join(finished)  # a second Ctrl-C propagates and abandons the wait
        if self._worker_errors:
            raise self._worker_errors[0]
        report = RunReport(agent=self.options.agent, interrupted=interrupted or self.stopping)
        report.results = [
            r or TaskResult(task=t, outcome="not_started")
            for r, t in zip(self._results, self.tasks, strict=True)
        ]
        return report

    def _load_model_client(self) -> None:
        """Load litellm now if the agent, the simulated user or the judge calls it, so no
        session's clock counts its import: a session opens just before its first model call."""
        tell = self.on_loading or (lambda loading: None)
        told = False

        def loading() -> None:
            nonlocal told
            told = True
            tell(True)

        try:
            agent = self.agent_factory()
            user = self.user_factory() if any(t.interactive for t in self.tasks) else None
            self.service.load_model_client(agent, user, on_loading=loading)
        except Exception:  # noqa: BLE001 - each task then reports what cannot be made or called
            pass
        finally:
            if told:
                tell(False)

    @staticmethod
    def _join(finished: list[threading.Event]) -> None:
        # Each worker sets its own event when it ends. Not Thread.join/is_alive: a Ctrl-C that
        # lands inside Thread.join can leave a live thread reported as stopped, and its task's
        # result would then be missed.
        for done in finished:
            while not done.wait(0.1):
                pass

    def _worker(self, finished: threading.Event) -> None:
        try:
            self._work()
        finally:
            finished.set()

    def _work(self) -> None:
        from crmarena_tui.storage import Store

        orgs: dict[str, Org] = {}
        try:
            with Store(self.db_path, durability=self.options.durability) as store:
                while not self._stop.is_set():
                    try:
                        index, task = self._queue.get_nowait()
                    except queue.Empty:
                        return
                    result = self._run_one(store, orgs, task)
                    self._results[index] = result
                    if self.on_result is not None:
                        with self._callback_lock:
                            self.on_result(result)
        except Exception as exc:  # noqa: BLE001 - reported by run() in the calling thread
            self._worker_errors.append(exc)
            self.stop()
        finally:
            for org in orgs.values():
                close = getattr(org, "close", None)
                if callable(close):
                    close()

    def _run_one(self, store: Store, orgs: dict[str, Org], task: Task) -> TaskResult:
        from crmarena_tui.session.agent_driver import AgentDriver

        started = time.perf_counter()
        result = TaskResult(task=task, outcome="failed")
        episode = None
        try:
            agent = self.agent_factory()
            settings = agent.settings()
            protocol = self.service.protocol_for(agent.name)
            participant = self.service.agent_participant(store, agent)
            org_key = f"{task.org_type}|{task.source}"  # one route per source and org type
            org = orgs.get(org_key)
            if org is None:
                org = orgs[org_key] = self.org_factory(task)
            user = self.user_factory() if task.interactive else None
            spec = self.service.spec(
                task,
                org,
                participant,
                aided=self.options.aided,
                settings=settings,
                protocol=protocol,
            )
            found = self.service.find_attempt(store, spec, user=user)  # the key `start` resumes by
            if found is not None and found.status != "in_progress":
                grade = store.grade(found.id)
                if grade is None and found.status == "submitted":  # killed before its grade
                    self.service.open(store, found.id, org).regrade()
                    grade = store.grade(found.id)
                result.outcome, result.session_id = "skipped", found.id
                result.reward = grade.reward if grade is not None else None
                result.end_reason = _end_reason(grade)
                return result
            episode = self.service.start(store, spec, user=user)
            result.session_id, result.resumed = episode.session_id, found is not None
            driver = AgentDriver(pause_clock=False, record_errors=False)

            def stepped(report: StepReport) -> None:
                step = report.step
                result.steps += 1
                if self.on_step is not None:
                    self.on_step(task, step)
                if step.done or self._stop.is_set():
                    if step.end_reason in ("api_error", "query_error"):
                        result.error = step.text
                    driver.stop()
                elif self.options.pace > 0:  # a presenter steps through it (`run --pace`)
                    self._wait(self.options.pace)

            driver.on_step = stepped
            driver.run(agent, episode)
            if driver.exception is not None:
                raise driver.exception
            if episode.status == "submitted":
                grade = episode.latest_grade()
                result.outcome = "submitted"
                result.reward = grade.reward if grade is not None else None
                result.end_reason = _end_reason(grade)
            else:
                result.outcome = "unfinished"
        except Exception as exc:  # noqa: BLE001 - one broken task must not end the batch
            result.outcome = "failed"
            result.error = f"{type(exc).__name__}: {exc}"
            if episode is not None and not episode.finished:
                with contextlib.suppress(Exception):  # the database itself may be the problem
                    episode.record(
                        "system", {"event": "runner_error", "error": result.error}, actor="system"
                    )
        finally:
            result.seconds = time.perf_counter() - started
        return result


def _end_reason(grade: GradeRow | None) -> str | None:
    """The end reason a grade records for an episode that ended unconfirmed, else None."""
    reason = grade.metrics.get("end_reason") if grade is not None else None
    return str(reason) if reason and grade is not None and grade.extraction == "ended" else None
