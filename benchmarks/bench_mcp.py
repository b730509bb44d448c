"""The cost of working tasks through `crmarena-tui mcp` instead of in-process.

1. A tool call: `execute_soql` through the MCP SDK's client over stdio against the same call on
   `ToolEnv` in this process (the same query, the same Store durability: both store and fsync
   the query and its observation before returning). Target: at most 5 ms more a call.
2. demo:small: the reference agent's decisions driven through the MCP tools over stdio
   (tests/mcp_support.py) against `run --agent reference` natively (BatchRunner), both under
   workbench, both with each durability. Target: at most 2x. Every MCP session must score 1
   with the same queries and answer as natively (the suite checks a subset of 48 tasks).

The figures move with the machine's load (the SDK's stdio transport hands each message to a
thread): run it on an idle machine, and compare figures of one run only.

    .venv/bin/python benchmarks/bench_mcp.py [--tasks demo:small] [--limit N] [--calls 190]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from mcp_support import stdio_client, trace, work_queue  # noqa: E402

from crmarena_tui.agents.task_queue import TaskQueue  # noqa: E402
from crmarena_tui.session.runner import BatchRunner, RunOptions  # noqa: E402
from crmarena_tui.session.service import SessionService  # noqa: E402
from crmarena_tui.settings.config import Settings  # noqa: E402
from crmarena_tui.storage import Store  # noqa: E402
from crmarena_tui.tasks.loaders import load_tasks  # noqa: E402

QUERY = "SELECT Id, Name FROM User WHERE Name LIKE 'A%' LIMIT 5"
PER_TASK = 19  # queries per task, under the 20-action turn limit; then a respond


def tool_calls(folder: Path, calls: int) -> tuple[list[float], list[float]]:
    """`execute_soql` in-process and through MCP, alternated call by call (the machine's load
    falls on both alike); the seconds of each."""
    tasks = [t for t in load_tasks("demo:small") if t.task == "handle_time" and not t.interactive]
    queue = TaskQueue(
        Store(folder / "local.db"), tasks, SessionService(Settings(protocol="workbench"))
    )
    args = ("--tasks", "demo:small", "--task", "handle_time", "--protocol", "workbench")
    client = stdio_client(folder / "remote.db", *args)
    local: list[float] = []
    remote: list[float] = []
    try:
        while len(local) < calls:
            env = queue.next_task("bench-in-process")
            assert env is not None, "not enough tasks for the calls asked"
            client.call("next_task")
            for _ in range(min(PER_TASK, calls - len(local))):
                started = time.perf_counter()
                env.execute_soql(QUERY)
                local.append(time.perf_counter() - started)
                started = time.perf_counter()
                client.call("execute_soql", query=QUERY)
                remote.append(time.perf_counter() - started)
            env.respond("None")
            client.call("respond", content="None")
    finally:
        client.close()
        queue.close()
    return local, remote


def whole_set(
    folder: Path, source: str, limit: int | None, durability: str
) -> tuple[float, float, float, int, int]:
    """The reference agent natively and through MCP, both storing events with `durability`."""
    tasks = load_tasks(source)[:limit]
    options = RunOptions(agent="reference", durability=durability)  # type: ignore[arg-type]
    started = time.perf_counter()
    report = BatchRunner(folder / f"native-{durability}.db", tasks, options).run()
    native = time.perf_counter() - started
    assert report.complete
    args = ["--tasks", source, "--protocol", "workbench", "--durability", durability]
    if limit is not None:
        args += ["--limit", str(limit)]
    started = time.perf_counter()
    client = stdio_client(folder / f"mcp-{durability}.db", *args)
    connected = time.perf_counter()
    try:
        sessions = work_queue(client, tasks)
    finally:
        client.close()
    through = time.perf_counter() - started
    with Store(folder / f"mcp-{durability}.db") as store:
        rewards = [g.reward for s in sessions if (g := store.grade(s)) is not None]
    assert len(rewards) == len(tasks), (len(rewards), len(tasks))
    perfect = sum(1 for r in rewards if r == 1.0)
    mine, theirs = trace(folder / f"mcp-{durability}.db"), trace(folder / f"native-{durability}.db")
    same = sum(1 for key, row in theirs.items() if key in mine and mine[key][:2] == row[:2])
    return native, through, connected - started, perfect, same


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="demo:small")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--calls", type=int, default=190)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        local, remote = tool_calls(folder, args.calls)
        lm, rm = statistics.median(local) * 1000, statistics.median(remote) * 1000
        print(f"execute_soql, {args.calls} calls each, alternated (median; events fsynced):")
        print(f"  in-process ToolEnv    {lm:7.2f} ms")
        print(f"  MCP over stdio        {rm:7.2f} ms")
        print(f"  overhead              {rm - lm:7.2f} ms a call (target <= 5 ms)")
        n = len(load_tasks(args.tasks)[: args.limit])
        print(f"{args.tasks}{f' (first {args.limit})' if args.limit else ''}: {n} tasks")
        for durability in ("full", "normal"):
            native, through, start, perfect, same = whole_set(
                folder, args.tasks, args.limit, durability
            )
            print(f"  durability {durability}:")
            print(f"    reference natively    {native:7.1f} s")
            print(f"    through MCP (stdio)   {through:7.1f} s (server start {start:.1f} s)")
            print(f"    ratio                 {through / native:7.2f}x (target <= 2x)")
            print(f"    MCP sessions scoring 1: {perfect}/{n}")
            print(f"    same queries and answer as natively: {same}/{n}")


if __name__ == "__main__":
    main()
