"""Storage figures: durable appends per second, and what durability costs.

Run: python benchmarks/bench_storage.py [--n 500]

Prints appends/s for `Store.append_event` with synchronous=FULL (the default: fsync per commit) and
NORMAL (survives a killed process, may lose the last commits on power loss), each as a ratio
against a baseline measured in the same run: plain sqlite3 inserts, one transaction per insert,
synchronous=NORMAL, no Store. Also: reading a session's events back, two processes appending at
once, and the time to open a Store in a fresh process (imports included).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from crmarena_tui.orgs.detached_org import DetachedOrg  # noqa: E402
from crmarena_tui.storage import Store  # noqa: E402
from crmarena_tui.storage.models import SessionSpec  # noqa: E402
from crmarena_tui.tasks.model import Task  # noqa: E402

PAYLOAD = {
    "observation": json.dumps(
        [{"Id": f"500Wt00000DD{i:06d}", "Subject": "x" * 40} for i in range(10)]
    ),
    "total_size": 10,
    "elapsed_ms": 3.2,
}
TASK = Task(idx=1, task="handle_time", query="q", answer=["x"], reward_metric="exact_match")


def session_in(path: Path, durability: str) -> tuple[Store, int]:
    store = Store(path, durability=durability)  # type: ignore[arg-type]
    participant = store.participant("agent", "bench")
    session = store.create_session(
        SessionSpec(TASK, DetachedOrg("local", "bench", "b2b"), participant)
    )
    return store, session.id


def rate_store(path: Path, durability: str, n: int) -> float:
    store, session_id = session_in(path, durability)
    started = time.perf_counter()
    for _ in range(n):
        store.append_event(session_id, "system", "observation", PAYLOAD)
    elapsed = time.perf_counter() - started
    store.close()
    return n / elapsed


def rate_baseline(path: Path, n: int) -> float:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("CREATE TABLE e (session_id INTEGER, seq INTEGER, ts TEXT, payload TEXT)")
    body = json.dumps(PAYLOAD)
    started = time.perf_counter()
    for i in range(n):
        conn.execute("INSERT INTO e VALUES (1, ?, '2024-01-01T00:00:00Z', ?)", (i, body))
    elapsed = time.perf_counter() - started
    conn.close()
    return n / elapsed


WRITER = """
import sys
from crmarena_tui.storage import Store
store = Store(sys.argv[1]); sid = int(sys.argv[2]); n = int(sys.argv[3])
sys.stdin.readline()
for i in range(n):
    store.append_event(sid, "agent", "note", {"i": i})
"""


def rate_two_processes(path: Path, n: int) -> float:
    store, session_id = session_in(path, "full")
    store.close()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), str(session_id), str(n)],
            stdin=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ]
    time.sleep(1.5)  # let both import and open
    started = time.perf_counter()
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    for p in procs:
        p.wait()
    elapsed = time.perf_counter() - started
    with Store(path) as check:
        assert len(check.events(session_id)) == 2 * n
    return 2 * n / elapsed


def open_seconds(path: Path) -> float:
    code = (
        "import time; t=time.perf_counter(); from crmarena_tui.storage import Store; "
        f"Store({str(path)!r}).close(); print(time.perf_counter()-t)"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    runs = [
        float(subprocess.check_output([sys.executable, "-c", code], env=env, text=True))
        for _ in range(3)
    ]
    return min(runs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=500)
    n = parser.parse_args().n
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        base = rate_baseline(d / "base.db", n)
        full = rate_store(d / "full.db", "full", n)
        normal = rate_store(d / "normal.db", "normal", n)
        store, sid = session_in(d / "read.db", "normal")
        for _ in range(2000):
            store.append_event(sid, "system", "observation", PAYLOAD)
        started = time.perf_counter()
        events = store.events(sid)
        read_ms = (time.perf_counter() - started) * 1000
        store.close()
        two = rate_two_processes(d / "two.db", n // 2)
        opened = open_seconds(d / "full.db")
    print(f"appends of a {len(json.dumps(PAYLOAD))}-byte observation event, n={n} each")
    print(f"  baseline: raw sqlite3 insert, WAL, synchronous=NORMAL  {base:9.0f} /s   1.00x")
    print(
        f"  Store.append_event, synchronous=NORMAL                 {normal:9.0f} /s   {normal / base:.2f}x"
    )
    print(
        f"  Store.append_event, synchronous=FULL (default)         {full:9.0f} /s   {full / base:.2f}x"
    )
    print(f"  FULL vs NORMAL                                         {full / normal:.2f}x")
    print(
        f"  two processes appending to one session (FULL), total   {two:9.0f} /s   {two / full:.2f}x of one"
    )
    print(
        f"read back {len(events)} events: {read_ms:.1f} ms ({len(events) / read_ms * 1000:.0f} events/s)"
    )
    print(f"open a Store in a fresh process (imports included): {opened * 1000:.0f} ms")


if __name__ == "__main__":
    main()
