"""Batch overhead per agent step, model time excluded.

A scripted model answers instantly, so what remains is this project's own cost per step: the
agent loop (prompt bookkeeping, reply parsing), the Episode (events written and fsynced to the
SQLite sessions database), the runner (threads, resume look-ups) and the org query itself.
Baseline from the same run: the same org query issued directly against the org.

    /tmp/probe/bin/python benchmarks/bench_agent_overhead.py [--tasks 40] [--queries 4] [--org PATH]

Target: overhead per step (total per step minus the raw org query) <= 5 ms.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from crmarena_tui.agents.react import ReactAgent
from crmarena_tui.session.runner import BatchRunner, RunOptions
from crmarena_tui.tasks.model import Task, TaskMetadata
from tests.fakes.scripted_llm import ScriptedLLM

QUERY = "SELECT Id, Name, Email FROM User ORDER BY Name LIMIT 5"
TARGET_MS = 5.0


def tasks(n: int) -> list[Task]:
    return [
        Task(
            idx=i,
            task="handle_time",
            query="Which agent had the shortest handle time?",
            answer=["005000000000000AAA"],
            reward_metric="exact_match",
            source="bench",
            metadata=TaskMetadata(required="Today's date: 2024-05-01"),
        )
        for i in range(n)
    ]


def responder(queries: int):
    reply_execute = f"<thought>look</thought><execute>{QUERY}</execute>"
    reply_answer = "<thought>done</thought><respond>005000000000000AAA</respond>"

    def answer(messages, tools):
        done = sum(1 for m in messages if m["role"] == "assistant")
        return reply_execute if done < queries else reply_answer

    return answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=40)
    parser.add_argument("--queries", type=int, default=4, help="queries per task before answering")
    parser.add_argument("--org", default=None, help="org spec (default: the demo b2b org)")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument(
        "--durability",
        choices=("normal", "full"),
        default="normal",
        help="sessions database fsync policy (the runner's default: normal)",
    )
    args = parser.parse_args()

    from crmarena_tui.session.org_resolve import open_org

    org = open_org(args.org, org_type="b2b")
    for _ in range(5):  # warm the org's caches the same way the runner's org will be warmed
        org.query(QUERY)
    raw = []
    for _ in range(200):
        t = time.perf_counter()
        result = org.query(QUERY)
        raw.append((time.perf_counter() - t) * 1000)
        assert result.ok, result.error
    raw_ms = statistics.median(raw)

    def batch(db: Path, n: int) -> BatchRunner:
        return BatchRunner(
            db,
            tasks(n),
            RunOptions(
                agent="scripted/bench", concurrency=args.concurrency, durability=args.durability
            ),
            agent_factory=lambda: ReactAgent(
                ScriptedLLM(responder(args.queries), model="scripted/bench")
            ),
            org_factory=lambda task: open_org(args.org, org_type=task.org_type),
        )

    with tempfile.TemporaryDirectory() as tmp:
        batch(Path(tmp) / "warm.db", 2).run()  # one-time imports (graders, parser)
        runner = batch(Path(tmp) / "sessions.db", args.tasks)
        t = time.perf_counter()
        report = runner.run()
        wall_ms = (time.perf_counter() - t) * 1000
    assert report.complete, report.summary()
    steps = sum(r.steps for r in report.results)
    queries = args.tasks * args.queries
    per_step = wall_ms / steps
    overhead = (wall_ms - queries * raw_ms) / steps

    print(
        f"org: {getattr(org, 'ref', args.org)}  tasks: {args.tasks}  steps: {steps} "
        f"({args.queries} queries + 1 answer per task)  concurrency: {args.concurrency}  "
        f"durability: {args.durability}"
    )
    print(f"baseline  raw org query (median of 200):       {raw_ms:8.3f} ms")
    print(f"batch     wall time per agent step:            {per_step:8.3f} ms")
    print(
        f"batch     overhead per step (query excluded):  {overhead:8.3f} ms   "
        f"= {overhead / raw_ms:.1f}x the raw query   target <= {TARGET_MS} ms: "
        f"{'PASS' if overhead <= TARGET_MS else 'FAIL'}"
    )
    print(f"batch     whole run: {wall_ms / 1000:.2f} s for {args.tasks} graded sessions")


if __name__ == "__main__":
    main()
