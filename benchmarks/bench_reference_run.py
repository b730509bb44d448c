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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--keep", type=Path, default=None, help="write the sessions database here")
    parser.add_argument("--size", choices=("small", "full"), default="small", help="demo set size")
    args = parser.parse_args()

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
