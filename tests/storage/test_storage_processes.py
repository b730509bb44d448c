"""Durability and concurrency of the Store across real processes.

The kill test SIGKILLs a writer at random moments: every event the writer reported as written
(printed after `append_event` returned) must be in the file, and the file must pass
`PRAGMA integrity_check`. The concurrency tests run two writer processes (and several threads)
against one session: nothing is lost and sequence numbers stay unique and gapless.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from crmarena_tui.storage import Store
from crmarena_tui.tasks.model import Task
from tests.support.spec_support import session_spec
from tests.support.storage_support import integrity

ROOT = Path(__file__).resolve().parents[2]

WRITER = textwrap.dedent("""
    import sys, time
    from crmarena_tui.storage import Store
    path, session_id, writer, count = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    store = Store(path)
    print("ready", flush=True)
    sys.stdin.readline()  # wait for the parent's go, so writers start together
    for i in range(count):
        if i == count // 2 and len(sys.argv) > 5:  # make sure the writers interleave
            deadline = time.monotonic() + 30
            while not any(e.payload["writer"] == sys.argv[5] for e in store.events(session_id)):
                assert time.monotonic() < deadline, "the other writer never wrote"
                time.sleep(0.005)
        event = store.append_event(session_id, "agent", "note", {"writer": writer, "i": i})
        print(event.seq, i, flush=True)
    store.close()
""")


def spawn(
    db: Path, session_id: int, writer: str, count: int, other: str | None = None
) -> subprocess.Popen:
    """A writer process; with `other`, it waits half way until `other` has written something."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = [str(db), str(session_id), writer, str(count), *([other] if other else [])]
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
    return proc


@pytest.fixture
def session(tmp_path: Path, sample_rows_path: Path) -> tuple[Path, int]:
    row = json.loads(sample_rows_path.read_text())[0]
    db = tmp_path / "sessions.db"
    with Store(db) as store:
        p = store.participant("agent", "writer")
        s = store.create_session(session_spec(p, Task(**row), "local", "o"))
    return db, s.id


def test_events_reported_written_survive_sigkill(session: tuple[Path, int]) -> None:
    db, session_id = session
    rng = random.Random(20240503)
    reported: set[int] = set()
    for round_ in range(5):
        proc = spawn(db, session_id, f"round{round_}", 100_000)
        proc.stdin.write("go\n")
        proc.stdin.flush()
        first = proc.stdout.readline()  # writing has begun
        time.sleep(rng.uniform(0.0, 0.3))
        os.kill(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        assert proc.returncode == -signal.SIGKILL
        lines = [first, *out.split("\n")[:-1]]  # the last piece may be a half-written line
        reported |= {int(line.split()[0]) for line in lines}
    with Store(db) as store:
        seqs = [e.seq for e in store.events(session_id)]
        assert integrity(store) == "ok"
    assert reported <= set(seqs)
    assert seqs == list(range(1, len(seqs) + 1))


def test_two_processes_append_concurrently_without_loss(session: tuple[Path, int]) -> None:
    db, session_id = session
    count = 150
    procs = [spawn(db, session_id, "a", count, "b"), spawn(db, session_id, "b", count, "a")]
    for proc in procs:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        assert len(out.splitlines()) == count
    with Store(db) as store:
        events = store.events(session_id)
        assert integrity(store) == "ok"
    assert [e.seq for e in events] == list(range(1, 2 * count + 1))
    for writer in ("a", "b"):
        assert sorted(e.payload["i"] for e in events if e.payload["writer"] == writer) == list(
            range(count)
        )
    writers = [e.payload["writer"] for e in events]
    switches = sum(1 for x, y in zip(writers, writers[1:], strict=False) if x != y)
    assert switches > 1


def test_threads_sharing_one_store_lose_nothing(session: tuple[Path, int]) -> None:
    db, session_id = session
    with Store(db) as store:

        def work(name: str) -> None:
            for i in range(40):
                store.append_event(session_id, "agent", "note", {"writer": name, "i": i})

        threads = [threading.Thread(target=work, args=(f"t{n}",)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        events = store.events(session_id)
    assert [e.seq for e in events] == list(range(1, 161))
    assert {(e.payload["writer"], e.payload["i"]) for e in events} == {
        (f"t{n}", i) for n in range(4) for i in range(40)
    }
