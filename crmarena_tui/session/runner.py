"""The batch runner behind `crmarena-tui run`: one agent over many tasks, resumable, in threads.

Each task gets at most one session per (participant, task, settings, trial): a submitted (or
abandoned) one is skipped and its grade counted, an in-progress one is resumed where its event log
stops, otherwise a new session starts. With `RunOptions.trials` K each task is worked K times, K
distinct attempts (trial 1 to K; the trial is part of the resume key), trials as the outer loop:
trial 1 of every task, then trial 2 of every task, ... (`attempts_of`), so a run stopped early
has covered every task before it repeats one.

Workers are threads (model calls wait on the network), each with its own database connection
(WAL; see `RunOptions.durability`) and org instances; they take attempts in that order.
`stop()` (or Ctrl-C inside `run()`) lets every worker finish its current step and leaves
unfinished sessions `in_progress` for the next run.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from crmarena_tui.agents.agent import Agent, AgentStep
from crmarena_tui.errors import storage_fault
from crmarena_tui.session.run_report import RunReport, TaskResult
from crmarena_tui.tasks.model import Task

if TYPE_CHECKING:
    from crmarena_tui.agents.base import UserSimulator
    from crmarena_tui.graders import Judge
    from crmarena_tui.orgs.base import Org
    from crmarena_tui.session.agent_driver import StepReport
    from crmarena_tui.session.service import SessionService
    from crmarena_tui.settings.config import Settings
    from crmarena_tui.storage.leases import LeaseBook
    from crmarena_tui.storage.models import GradeRow
    from crmarena_tui.storage.store import Store


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
    trials: int = 1  # attempts per task (`run --trials K`): trial 1 to K, each its own session


def attempts_of(tasks: list[Task], trials: int = 1) -> list[tuple[Task, int]]:
    """(task, trial) in the order a run works them: trial 1 of every task, then trial 2 of every
    task, ... (tau-bench's order). A run stopped midway has then covered every task before it
    repeats one, so its partial figures are over all the tasks; trials already stored are
    skipped when it is started again, so `--trials 5` after `--trials 3` adds trials 4 and 5."""
    return [(task, trial) for trial in range(1, max(1, trials) + 1) for task in tasks]


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
        self.attempts = attempts_of(self.tasks, options.trials)
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
        self._results: list[TaskResult | None] = [None] * len(self.attempts)
        self._queue: queue.Queue[tuple[int, Task, int]] = queue.Queue()
        self.run_id = uuid.uuid4().hex[:12]  # this run's lease holders: `run:<id>:<worker>`
        self._holders: set[str] = set()  # the workers holding a lease now (the heartbeat's)
        self._requeued: set[int] = set()  # attempts put back once because another held them
        self.lease_timeout = float(getattr(self.service.settings, "lease_timeout", 120.0))
        self._callback_lock = threading.Lock()
        self._worker_errors: list[Exception] = []
        self._prepared = False  # the database opened and checked (`prepare`)

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
        from crmarena_tui.session.org_resolve import open_task_org

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

    def prepare(self) -> None:
        """Open the sessions database once, before anything runs: create or migrate it, and
        refuse a damaged one (`DamagedDatabase`, whatever its size: it gets no more writes).
        `run` does it unless done; a command calls it first, before it draws its progress."""
        from crmarena_tui.storage import Store

        if not self._prepared:
            with Store(self.db_path) as store:  # before the workers open it
                store.check_damage()
            self._prepared = True

    def run(self) -> RunReport:
        self.prepare()
        self._load_model_client()
        for index, (task, trial) in enumerate(self.attempts):
            self._queue.put((index, task, trial))
        count = max(1, min(self.options.concurrency, len(self.attempts) or 1))
        finished = [threading.Event() for _ in range(count)]
        workers = [
            threading.Thread(
                target=self._worker, args=(done, i), name=f"crmarena-run-{i}", daemon=True
            )
            for i, done in enumerate(finished)
        ]
        for w in workers:
            w.start()
        beat_stop = threading.Event()
        beat = threading.Thread(target=self._heartbeat, args=(beat_stop,), daemon=True)
        beat.start()
        interrupted = False
        try:
            self._join(finished)
        except KeyboardInterrupt:
            interrupted = True
            self.stop()
            if self.on_stopping is not None:
                self.on_stopping()
            self._join(finished)  # a second Ctrl-C propagates and abandons the wait
        finally:
            beat_stop.set()
        if self._worker_errors:
            raise self._worker_errors[0]
        report = RunReport(
            agent=self.options.agent,
            interrupted=interrupted or self.stopping,
            trials=max(1, self.options.trials),
        )
        report.results = [
            r or TaskResult(task=t, outcome="not_started", trial=trial)
            for r, (t, trial) in zip(self._results, self.attempts, strict=True)
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

    def _heartbeat(self, stop: threading.Event) -> None:
        """Renew the leases of this run's workers while it runs (a model call may outlast the
        lease timeout); a killed run renews nothing, and its attempts go to another after it."""
        from crmarena_tui.storage import Store
        from crmarena_tui.storage.leases import LeaseBook

        with contextlib.suppress(Exception), Store(self.db_path) as store:
            book = LeaseBook(store, timeout=self.lease_timeout)
            while not stop.wait(self.lease_timeout / 3):
                with contextlib.suppress(Exception):  # a busy database: the next beat renews
                    book.renew_holders(sorted(list(self._holders)))

    def _worker(self, finished: threading.Event, number: int = 0) -> None:
        try:
            self._work(f"run:{self.run_id}:{number}")
        finally:
            finished.set()

    def _work(self, holder: str) -> None:
        from crmarena_tui.storage import Store
        from crmarena_tui.storage.leases import LeaseBook

        orgs: dict[str, Org] = {}
        try:
            with Store(self.db_path, durability=self.options.durability) as store:
                leases = LeaseBook(store, pool=f"run:{self.run_id}", timeout=self.lease_timeout)
                while not self._stop.is_set():
                    try:
                        index, task, trial = self._queue.get_nowait()
                    except queue.Empty:
                        return
                    result = self._run_one(store, orgs, task, trial, leases, holder)
                    if result.outcome == "held" and index not in self._requeued:
                        self._requeued.add(index)  # try it again once the others are done
                        self._queue.put((index, task, trial))
                        continue
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

    def _run_one(
        self,
        store: Store,
        orgs: dict[str, Org],
        task: Task,
        trial: int = 1,
        leases: LeaseBook | None = None,
        holder: str = "",
    ) -> TaskResult:
        """One attempt, worked under its lease in `leases` (held by `holder`): an attempt
        another holder works is left to it (outcome `held`)."""
        from crmarena_tui.session.agent_driver import AgentDriver
        from crmarena_tui.storage.leases import attempt_key

        started = time.perf_counter()
        result = TaskResult(task=task, outcome="failed", trial=trial)
        episode = None
        attempt: str | None = None
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
                trial=trial,
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
            if leases is not None:
                key = self.service.resume_key(spec, user)
                attempt = attempt_key(participant.id, task.source, task.idx, key)
                if not leases.take(attempt, holder):
                    result.outcome = "held"
                    return result
                self._holders.add(holder)
            episode = self.service.start(store, spec, user=user)
            if attempt is not None and leases is not None:
                leases.attach(attempt, holder, episode.session_id)
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
            if storage_fault(exc):  # ... but a full disk or a read-only file ends every task
                self.stop()
                raise
            result.outcome = "failed"
            result.error = f"{type(exc).__name__}: {exc}"
            if episode is not None and not episode.finished:
                with contextlib.suppress(Exception):  # the database itself may be the problem
                    episode.record(
                        "system", {"event": "runner_error", "error": result.error}, actor="system"
                    )
        finally:
            result.seconds = time.perf_counter() - started
            if attempt is not None and leases is not None:
                self._holders.discard(holder)
                with contextlib.suppress(Exception):
                    leases.release(attempt, holder)
        return result


def _end_reason(grade: GradeRow | None) -> str | None:
    """The end reason a grade records for an episode that ended unconfirmed, else None."""
    reason = grade.metrics.get("end_reason") if grade is not None else None
    return str(reason) if reason and grade is not None and grade.extraction == "ended" else None
