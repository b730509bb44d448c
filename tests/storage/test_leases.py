"""Task leases (storage/leases.py): one holder per attempt, decided in the database, taken over
when the holder's lease lapses (on an injected clock, never a sleep) or its process is gone; the
MCP queue and `run` both work under them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from crmarena_tui.demo.sources import load_tasks
from crmarena_tui.session.runner import BatchRunner, RunOptions, attempts_of
from crmarena_tui.session.service import SessionService
from crmarena_tui.session.task_queue import (
    LeaseLost,
    TaskQueue,
    WorkersBusy,
    mcp_participant_name,
)
from crmarena_tui.settings.config import load_settings
from crmarena_tui.storage import Store
from crmarena_tui.storage import schema as schema_mod
from crmarena_tui.storage.leases import LeaseBook, attempt_key
from tests.support.storage_support import holder_of


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture()
def store(tmp_path: Path):
    with Store(tmp_path / "l.db") as s:
        yield s


def test_the_leases_table_is_schema_16(store: Store) -> None:
    assert schema_mod.MIGRATIONS[15].__name__ == "v16_leases"
    assert store.schema_version == schema_mod.SCHEMA_VERSION >= 16
    assert store.read("SELECT COUNT(*) FROM leases") == [(0,)]


def test_one_holder_per_attempt_until_its_lease_lapses(store: Store) -> None:
    clock = Clock()
    book = LeaseBook(store, pool="p", timeout=10, clock=clock)
    assert book.take("a1", "A") and book.take("a1", "A")  # taking again is renewing
    assert not book.take("a1", "B")
    assert book.take("a2", "B")
    assert book.held_in() == 2
    clock.now += 9
    assert book.renew("a1", "A")  # a heartbeat: ten more seconds from now
    clock.now += 9
    assert not book.take("a1", "B")
    clock.now += 2  # A silent for 11 s: its lease lapsed
    assert holder_of(book, "a1") is None
    assert book.take("a1", "B")
    assert not book.renew("a1", "A")  # A is told it holds it no more
    book.release("a1", "A")  # a stale holder cannot release another's lease
    assert holder_of(book, "a1") == "B"
    book.release("a1", "B")
    assert book.take("a1", "C")


def test_a_heartbeat_renews_the_leases_of_its_holders_only(store: Store) -> None:
    clock = Clock()
    book = LeaseBook(store, timeout=10, clock=clock)
    assert book.take("a1", "A") and book.take("a2", "B")
    clock.now += 9
    book.renew_holders(["A"])  # a run's heartbeat for its live workers
    clock.now += 2
    assert holder_of(book, "a1") is not None and holder_of(book, "a2") is None


def test_a_lease_of_a_process_gone_from_this_machine_is_taken_at_once(store: Store) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    dead = LeaseBook(store, timeout=1000)
    dead.pid = int(done.stdout)
    assert dead.take("a1", "killed-run")
    alive = LeaseBook(store, timeout=1000)
    assert alive.take("a1", "B")  # no wait for the 1000 s
    assert not LeaseBook(store, timeout=1000).take("a1", "C")  # B's process is alive


def _queue(tmp_path: Path, count: int = 3, **kw) -> tuple[TaskQueue, Clock]:
    tasks = [t for t in load_tasks("demo:small") if t.task == "handle_time"][:count]
    clock = Clock()
    store = Store(tmp_path / "q.db")
    service = SessionService(load_settings(protocol="workbench"))
    book = LeaseBook(store, pool="server", timeout=10, clock=clock)
    return TaskQueue(store, tasks, service, leases=book, **kw), clock


def test_two_clients_of_one_queue_work_two_tasks_and_a_vanished_ones_resumes(
    tmp_path: Path,
) -> None:
    queue, clock = _queue(tmp_path)
    try:
        a = queue.next_task("agent", "A", {"client": "a"})
        b = queue.next_task("agent", "B", {"client": "b"})
        assert a is not None and b is not None
        assert a.task_brief().number == 1 and b.task_brief().number == 2
        assert a.execute_soql("SELECT Id FROM User LIMIT 1").startswith("[{")
        assert queue.next_task("agent", "A") is a  # its task while it is open
        clock.now += 11  # A and B vanish
        c = queue.next_task("agent", "C")
        assert c is not None and c.task_brief().number == 1 and c.task_brief().resumed
        assert c.task_brief().session_id == a.task_brief().session_id
        kinds = [e.kind for e in store_events(queue, c.task_brief().session_id)]
        assert kinds[:2] == ["query", "observation"]  # A's steps are kept
        session = queue.store.session(c.task_brief().session_id)
        assert session.settings["mcp_client"] == {"client": "a"}  # its first holder's
        with pytest.raises(LeaseLost, match=r"^task 1 \(session 1\) is no longer yours"):
            queue.env_of("A")
        assert queue.leases.session_for("C") == c.task_brief().session_id
        assert queue.leases.session_for("A") is None
        assert queue.leases.holder_for(c.task_brief().session_id) == "C"
        clock.now += 11
        assert queue.leases.session_for("C") is None  # lapsed in turn
    finally:
        queue.store.close()


def store_events(queue: TaskQueue, session_id: int):
    return queue.store.events(session_id)


def test_workers_bounds_the_leases_a_server_holds(tmp_path: Path) -> None:
    queue, _ = _queue(tmp_path, workers=1)
    try:
        assert queue.next_task("agent", "A") is not None
        with pytest.raises(WorkersBusy, match=r"--workers 1"):
            queue.next_task("agent", "B")
        env = queue.next_task("agent", "A")
        assert env is not None
        env.respond("None")  # A finishes: its finished task holds no worker's place
        assert queue.next_task("agent", "B") is not None
        with pytest.raises(WorkersBusy):
            queue.next_task("agent", "A")
    finally:
        queue.store.close()


def test_a_queue_with_every_task_held_elsewhere_says_so(tmp_path: Path) -> None:
    queue, _ = _queue(tmp_path, count=1)
    try:
        assert queue.next_task("agent", "A") is not None
        assert queue.next_task("agent", "B") is None
        assert queue.unfinished("agent") == 1
    finally:
        queue.store.close()


@pytest.mark.parametrize("client", ["mcp", "fastmcp", "FastMCP", "", None])
def test_an_sdks_default_name_is_no_participant(client: str | None) -> None:
    with pytest.raises(ValueError, match="--as NAME"):
        mcp_participant_name(None, client, "0.1.0")
    assert mcp_participant_name("my-graph", client, "0.1.0") == "my-graph"
    assert mcp_participant_name(None, "claude-code", "2.1") == "claude-code/2.1"


def test_run_leaves_an_attempt_another_holds_and_works_the_rest(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    tasks = [t for t in load_tasks("demo:small") if t.task == "handle_time"][:2]
    runner = BatchRunner(db, tasks, RunOptions(agent="reference", concurrency=2))
    with Store(db) as store:
        agent = runner.agent_factory()
        participant = runner.service.agent_participant(store, agent)
        org = runner.org_factory(tasks[0])
        spec = runner.service.spec(
            tasks[0],
            org,
            participant,
            settings=agent.settings(),
            protocol=runner.service.protocol_for(agent.name),
        )
        key = attempt_key(
            participant.id, tasks[0].source, tasks[0].idx, runner.service.resume_key(spec)
        )
        assert LeaseBook(store).take(key, "another-run")  # a live process holds it
    report = runner.run()
    outcomes = {r.task.key: r.outcome for r in report.results}
    assert outcomes == {tasks[0].key: "held", tasks[1].key: "submitted"}
    with Store(db) as store:
        assert len(store.sessions()) == 1
    assert attempts_of(tasks) == [(tasks[0], 1), (tasks[1], 1)]


def test_a_second_store_does_not_reopen_the_file_while_one_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Closing any descriptor on the database file drops this process's POSIX locks, those of
    its open SQLite connections included: two `run` processes on one database then wrote at
    once and corrupted it. A file this process has opened is not read again by hand."""
    db = tmp_path / "w.db"
    first = Store(db)
    opened: list[str] = []
    real_open = Path.open

    def watched(self: Path, *args, **kwargs):
        if self.name == db.name:
            opened.append(str(self))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", watched)
    try:
        with first.transaction():
            Store(db).close()  # a worker's store, opened while another writes
    finally:
        first.close()
    assert opened == []


def test_a_busy_holders_renewals_are_written_once_in_a_twentieth_of_the_timeout(
    store: Store,
) -> None:
    """Every call renews its caller's lease, but a lease written moments ago is not written
    again (each write is an fsync the queue's other clients wait behind); it never lapses
    while its holder keeps calling."""
    clock = Clock()
    book = LeaseBook(store, timeout=20, clock=clock)

    def expiry() -> float:
        return store.read("SELECT expires_at FROM leases WHERE attempt = 'a1'")[0][0]

    assert book.take("a1", "A")
    written = expiry()
    clock.now += 0.5
    assert book.renew("a1", "A")
    book.renew_holders(["A"])
    assert expiry() == written  # within a twentieth (1 s): nothing written
    for _ in range(40):  # a call every 0.5 s for 20 s: the lease never lapses
        clock.now += 0.5
        assert book.renew("a1", "A")
        assert not book.take("a1", "B")
    assert expiry() > clock.now + 18


def test_a_task_finished_while_another_server_looks_is_not_opened_again(tmp_path: Path) -> None:
    """Server B finds task 1 not started; before B leases it, server A opens, answers and lets
    go of it: B must not open task 1 a second time (two sessions, two grades), but move on."""
    queue_a, clock = _queue(tmp_path, count=2)
    store_b = Store(tmp_path / "q.db")
    book_b = LeaseBook(store_b, pool="b", timeout=10, clock=clock)
    queue_b = TaskQueue(store_b, queue_a.tasks, queue_a.service, leases=book_b)
    take = book_b.take

    def racing(attempt: str, holder: str) -> bool:
        if not store_b.sessions():  # A works task 1 from start to end meanwhile
            a = queue_a.next_task("agent", "A")
            assert a is not None and a.task_brief().number == 1
            a.respond("None")
            queue_a.release("A")
        return take(attempt, holder)

    book_b.take = racing  # type: ignore[method-assign]
    try:
        b = queue_b.next_task("agent", "B")
        assert b is not None and b.task_brief().number == 2
        assert sorted(s.task_idx for s in store_b.sessions()) == sorted(
            t.idx for t in queue_a.tasks
        )
    finally:
        store_b.close()
        queue_a.store.close()
