"""The reference agent over the demo set (`--size small`: 528 tasks, the default; `--size full`:
8,560), as `crmarena-tui run --agent reference`.

Runs the batch runner (Episode + LocalOrg + sessions database, WAL, default durability) over every
demo task and prints tasks/s, mean reward (all tasks; per type), steps and time per step. Baselines
from the same run, over exactly the queries the agent issued (read back from the sessions
database): (1) the same SOQL/SOSL through `LocalOrg` alone (the engine: parse, translate, run,
shape; no Episode, no event log), and (2) the same number of raw SQL reads: each query's translated
SQL executed on a plain sqlite3 connection (translation not timed; the second read a child
subquery needs is left out, so this floor is slightly low). The difference between the run
and (2) is this project's cost per step: agent, Episode, events, grading, runner.

    /tmp/probe/bin/python benchmarks/bench_reference_run.py [--size small|full] [--concurrency N]
        [--keep DB]

Target: the small set well under a minute.

`--index [--org b2b] [--single] [--tasks N] [--rounds N]`: what the search index costs a run,
the same tasks run once per way of indexing, in one process (CPU: `time.process_time`, every
thread), rounds interleaved and the best kept: `event` (each event indexed by the trigger as it
is written: this project until issue 40), `end` (each session indexed in one statement when it
ends: `search_index.index_session`, now), `pending` (nothing indexed, every session left to the
first search) and `none` (no index at all: the floor); the database's size (with its WAL) and
the first search's time (`search.run`, which catches up what is pending). Then the index alone,
without the agent's noise: the `none` run's sessions indexed afterwards, each event in its own
transaction, each session in one, or 2,000 sessions a transaction (a search's catch-up).

b2b single-turn demo tasks of the full set (`--index --org b2b --single --size full`, 2,140
tasks), 2026-12-03 on 2 shared cores. First run, one round, load 4.6-5.0:

    event     19.79 ms CPU a task (2.06x)   115.0 s (3.04x)   86.4 MB  first search  0.00 s
    end       15.20 ms CPU a task (1.58x)    55.3 s (1.46x)   84.7 MB  first search  0.00 s
    pending   10.29 ms CPU a task (1.07x)    50.7 s (1.34x)   37.3 MB  first search  7.02 s
    none       9.61 ms CPU a task (1.00x)    37.9 s (1.00x)   37.2 MB  first search  0.00 s

Second run, `--rounds 2`, load 2.8-3.4:

    event     12.80 ms CPU a task (1.47x)    36.6 s (1.82x)   87.3 MB  first search  0.00 s
    end       13.30 ms CPU a task (1.52x)    30.8 s (1.53x)   85.8 MB  first search  0.00 s
    pending    8.56 ms CPU a task (0.98x)    19.7 s (0.98x)   38.3 MB  first search  3.03 s
    none       8.73 ms CPU a task (1.00x)    20.1 s (1.00x)   38.2 MB  first search  0.00 s
    the index alone, over the 2,140 sessions of the `none` run, best of 2:
    event      4.23 ms CPU a session    16.2 s
    end        2.94 ms CPU a session    10.0 s
    search     0.96 ms CPU a session     3.1 s

Read with care: a whole run's CPU moves by a few ms a task between rounds on this machine (the
second run's `event` and `end` are within that noise of each other). The index alone is the
steadier figure: indexing a session at its end costs 30% less CPU and 38% less time than
indexing its events one by one, and the run's wall time fell in both runs (115 to 55 s, 37 to
31 s). A search's catch-up, 2,000 sessions a transaction, is 3x cheaper again (FTS5 writes and
merges a segment per transaction): batching ended sessions (e.g. the batch runner indexing every
few hundred) is the next cut. Leaving every session to the first search is cheapest for the
run but makes that search wait (3-7 s here, some 75 s after 100,000 sessions), past the
search's targets. The database's size is the index's own, whichever way it is written
(`pending` is measured before its first search; after it all hold 78-80 MB, 44 MB of them
FTS5's trigram segments: the agent's observations, query results, are most of the text).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from crmarena_tui.demo.generator import ensure_demo_org  # noqa: E402
from crmarena_tui.demo.tasks import demo_tasks  # noqa: E402
from crmarena_tui.orgs.local import LocalOrg  # noqa: E402
from crmarena_tui.orgs.soql.engine import compile_query, compile_search  # noqa: E402
from crmarena_tui.orgs.soql.sosl import sosl_match  # noqa: E402
from crmarena_tui.session.runner import BatchRunner, RunOptions  # noqa: E402


def agent_queries(db: Path, org_of: dict[int, str]) -> list[tuple[str, str]]:
    """(org type, text) of every query or search the agent ran, in order."""
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute(
            "SELECT s.task_idx, e.kind, e.payload FROM events e JOIN sessions s ON s.id = e.session_id "
            "WHERE e.kind IN ('query', 'search') AND e.actor = 'agent' ORDER BY e.session_id, e.seq"
        ).fetchall()
    finally:
        conn.close()
    return [(org_of[idx], json.loads(payload)["text"]) for idx, _, payload in rows]


def engine_time(queries: list[tuple[str, str]]) -> float:
    orgs = {t: LocalOrg(ensure_demo_org(t)) for t in ("b2b", "b2c")}
    try:
        start = time.perf_counter()
        for org_type, text in queries:
            org = orgs[org_type]
            result = org.search(text) if text.startswith("FIND") else org.query(text)
            assert result.ok, (text, result.error)
        return time.perf_counter() - start
    finally:
        for org in orgs.values():
            org.close()


def raw_sql_time(queries: list[tuple[str, str]]) -> tuple[float, int]:
    """Each query's translated SQL on a plain connection; (seconds, SQL statements run)."""
    orgs = {t: LocalOrg(ensure_demo_org(t)) for t in ("b2b", "b2c")}
    conns = {}
    for t, org in orgs.items():
        conns[t] = sqlite3.connect(f"file:{org.path}?mode=ro", uri=True)
        conns[t].create_function("sosl_match", -1, sosl_match, deterministic=True)
    plans = []
    for org_type, text in queries:
        org = orgs[org_type]
        if text.startswith("FIND"):
            plans += [(org_type, p) for p in compile_search(org._index, text, org.today).plans]
        else:
            plans.append((org_type, compile_query(org._index, text, org.today)))
    start = time.perf_counter()
    for org_type, plan in plans:
        conns[org_type].execute(plan.sql, plan.params).fetchall()
    elapsed = time.perf_counter() - start
    for conn in conns.values():
        conn.close()
    for org in orgs.values():
        org.close()
    return elapsed, len(plans)


def _indexed_run(
    tasks: list, mode: str, folder: Path, concurrency: int, k: int = 0
) -> tuple[float, ...]:
    """(CPU s, wall s, MB, first search s) of the run of `tasks` indexed the `mode` way."""
    from crmarena_tui.storage import Store, search, search_index

    db = folder / f"{mode}-{k}.db"
    real = search_index.defer_session, search_index.index_session
    if mode == "event":  # (no session pending: the trigger indexes each event)
        search_index.defer_session = lambda *_: None  # type: ignore[assignment]
    if mode in ("pending", "none"):
        search_index.index_session = lambda *_: False  # type: ignore[assignment]
    if mode == "none":
        with Store(db) as store, store.transaction() as conn:
            conn.execute("DROP TRIGGER events_searchable")
    try:
        runner = BatchRunner(db, tasks, RunOptions(agent="reference", concurrency=concurrency))
        cpu, wall = time.process_time(), time.perf_counter()
        report = runner.run()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    finally:
        search_index.defer_session, search_index.index_session = real
    assert all(r.outcome == "submitted" for r in report.results)
    size = sum(p.stat().st_size for p in folder.glob(f"{mode}-{k}.db*")) / 1e6
    first = 0.0
    if mode != "none":
        with Store(db) as store:
            first = time.perf_counter()
            search.run(store, "kind:query Case")
            first = time.perf_counter() - first
    return cpu, wall, size, first


def _index_alone(db: Path, how: str) -> tuple[float, float]:
    """(CPU s, wall s) of indexing the stored sessions of `db` (a run's, no index) as a run
    would: each event in its own transaction (`event`), each session in one (`end`), or 2,000
    sessions a transaction (`search`: the first search's catch-up)."""
    from crmarena_tui.storage import Store, search_index

    with Store(db, durability="normal") as store:
        ids = [r[0] for r in store.read("SELECT id FROM sessions ORDER BY id")]
        events = store.read("SELECT session_id, seq FROM events ORDER BY session_id, seq")
        with store.transaction() as conn:
            conn.execute(search_index.CREATE_TRIGGER)
            conn.execute("DELETE FROM search_pending")  # (the `none` run left them all there)
        cpu, wall = time.process_time(), time.perf_counter()
        if how == "event":
            for key in events:
                with store.transaction() as conn:
                    conn.execute(search_index.INDEX_EVENT, key)
        elif how == "end":
            for sid in ids:
                with store.transaction() as conn:
                    search_index.defer_session(conn, sid)
                    search_index.index_session(conn, sid)
        else:
            with store.transaction() as conn:
                search_index.defer(conn, 0, ids[-1])
            search_index.catch_up(store)
        return time.process_time() - cpu, time.perf_counter() - wall


def index_costs(args: argparse.Namespace) -> None:
    tasks = demo_tasks(args.org, size=args.size)
    if args.single:
        tasks = [t for t in tasks if not t.interactive]
    tasks = tasks[: args.tasks] if args.tasks else tasks
    for org_type in {t.org_type for t in tasks}:
        ensure_demo_org(org_type)
    folder = Path(tempfile.mkdtemp(prefix="bench-reference-index-"))
    print(
        f"reference agent, {len(tasks)} demo tasks, search index written 4 ways, "
        f"best of {args.rounds} interleaved round(s)"
    )
    _indexed_run(tasks[:40], "warm-up", folder, args.concurrency)  # (imports, orgs' caches)
    rounds: dict[str, list[tuple[float, ...]]] = {m: [] for m in MODES}
    for k in range(args.rounds):
        for mode in MODES if k % 2 == 0 else reversed(MODES):
            rounds[mode].append(_indexed_run(tasks, mode, folder, args.concurrency, k))
    figures = {
        m: (min(r[0] for r in f), min(r[1] for r in f), f[-1][2], f[-1][3])
        for m, f in rounds.items()
    }
    floor = figures["none"]
    for mode, (cpu, wall, size, first) in figures.items():
        print(
            f"  {mode:8s} {1000 * cpu / len(tasks):5.2f} ms CPU a task ({cpu / floor[0]:.2f}x)"
            f"  {wall:6.1f} s ({wall / floor[1]:.2f}x)  {size:5.1f} MB"
            f"  first search {first:5.2f} s"
        )
    print(
        f"the index alone, over the {len(tasks)} sessions of the `none` run, best of {args.rounds}:"
    )
    for how in ("event", "end", "search"):
        best = (float("inf"), float("inf"))
        for k in range(args.rounds):
            copy = folder / f"alone-{how}-{k}.db"
            copy.write_bytes((folder / "none-0.db").read_bytes())
            best = min(best, _index_alone(copy, how))
        print(f"  {how:8s} {1000 * best[0] / len(tasks):5.2f} ms CPU a session  {best[1]:6.1f} s")


MODES = ("event", "end", "pending", "none")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", action="store_true", help="the search index's cost, 4 ways")
    parser.add_argument("--org", choices=("b2b", "b2c"), default=None, help="(--index) one org")
    parser.add_argument("--single", action="store_true", help="(--index) single-turn tasks only")
    parser.add_argument("--tasks", type=int, default=0, help="(--index) the first N tasks only")
    parser.add_argument("--rounds", type=int, default=1, help="(--index) rounds, best kept")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--keep", type=Path, default=None, help="write the sessions database here")
    parser.add_argument("--size", choices=("small", "full"), default="small", help="demo set size")
    args = parser.parse_args()
    if args.index:
        index_costs(args)
        return

    tasks = demo_tasks(size=args.size)
    for org_type in ("b2b", "b2c"):
        ensure_demo_org(org_type)
    folder = Path(tempfile.mkdtemp(prefix="bench-reference-"))
    db = args.keep or folder / "sessions.db"
    steps = [0]

    def count(task, step) -> None:  # noqa: ANN001
        steps[0] += 1

    runner = BatchRunner(
        db, tasks, RunOptions(agent="reference", concurrency=args.concurrency), on_step=count
    )
    start = time.perf_counter()
    report = runner.run()
    elapsed = time.perf_counter() - start

    by_type: dict[str, list[float]] = defaultdict(list)
    for r in report.results:
        by_type[r.task.task].append(r.reward or 0.0)
    rewards = [x for v in by_type.values() for x in v]
    queries = agent_queries(db, {t.idx: t.org_type for t in tasks})
    engine = engine_time(queries)
    raw, statements = raw_sql_time(queries)

    print(f"reference agent, {len(tasks)} demo tasks, concurrency {args.concurrency}")
    print(
        f"  run:        {elapsed:6.2f} s  {len(tasks) / elapsed:7.1f} tasks/s  "
        f"{steps[0]} steps  {1000 * elapsed / steps[0]:.2f} ms/step"
    )
    print(
        f"  mean reward {sum(rewards) / len(rewards):.4f} over {len(rewards)} tasks "
        f"({sum(1 for r in report.results if r.outcome == 'submitted')} submitted)"
    )
    low = {t: sum(v) / len(v) for t, v in by_type.items() if sum(v) / len(v) < 1.0}
    print(
        "  types below 1.0: "
        + (", ".join(f"{t} {m:.3f}" for t, m in sorted(low.items())) or "none")
    )
    print(f"  queries the agent ran: {len(queries)} ({len(queries) / len(tasks):.1f} per task)")
    print(
        f"baseline (1) same queries through LocalOrg only: {engine:6.2f} s  "
        f"{1000 * engine / len(queries):.2f} ms/query"
    )
    print(
        f"baseline (2) same reads as raw SQL:             {raw:6.2f} s  "
        f"{1000 * raw / statements:.2f} ms/read ({statements} reads)"
    )
    print(f"  run / raw SQL: {elapsed / raw:.1f}x   run / engine: {elapsed / engine:.1f}x")
    print(f"  project cost per step (run - raw SQL): {1000 * (elapsed - raw) / steps[0]:.2f} ms")


if __name__ == "__main__":
    main()
