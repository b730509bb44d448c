"""The cost of working tasks through `crmarena-tui mcp` instead of in-process.

1. A tool call: `execute_soql` through the MCP SDK's client over stdio against the same call on
   `ToolEnv` in this process (the same query, the same Store durability: both store and fsync
   the query and its observation before returning). Target: at most 5 ms more a call.
2. demo:small: the reference agent's decisions driven through the MCP tools over stdio
   (tests/support/mcp_support.py) against `run --agent reference` natively (BatchRunner), both under
   workbench, both with each durability. Target: at most 2x. Every MCP session must score 1
   with the same queries and answer as natively (the suite checks a subset of 48 tasks).
3. N clients on one queue (1, 4, 8): a scripted agent whose model sleeps 200 ms per call
   (three calls a task: two queries, then its answer) works 24 single-turn tasks, N clients at
   once, each on its own leased task: N MCP sessions of one HTTP server, and N stdio servers on
   one database, with each `--durability` (full: an fsync per event, which one writer at a
   time pays: the queue's clients wait behind each other's; normal: none). Target: near-linear
   speed-up to 8 against N = 1. `--clients-only` runs this part alone.
4. The model proxy (`mcp --model-proxy`): a chat completion through the proxy (which passes an
   `openai/...` model's request through to the OpenAI-compatible base and stores its usage and
   model_turn events) against the same call sent by the OpenAI SDK straight to the loopback
   model, alternated call by call; litellm.completion straight to the model is timed apart
   (what the proxy would add for a model of another provider). Target: at most 5 ms more a
   call. `--proxy-only` runs this part alone.

5. Start-up: `initialize` and then `tools/list` answered, from the server process's start, timed
   by the SDK's own stdio client (`mcp.client.stdio`, `ClientSession.initialize`, as pydantic-ai
   and the Agents SDK connect), `--starts` times. Target: `initialize` within 1.5 s on a loaded
   machine (the server answers it before importing the SDK: session/mcp_handshake.py);
   `tools/list` waits for the tasks and the SDK. Run with bytecode written (unset
   PYTHONDONTWRITEBYTECODE). `--start-only` runs this part alone.

The figures move with the machine's load (the SDK's stdio transport hands each message to a
thread): run it on an idle machine, and compare figures of one run only.

    .venv/bin/python benchmarks/bench_mcp.py [--tasks demo:small] [--limit N] [--calls 190]
        [--proxy-calls 200] [--proxy-only] [--clients 1,4,8] [--clients-only]
        [--starts 5] [--start-only]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from crmarena_tui.demo.sources import load_tasks
from crmarena_tui.session.runner import BatchRunner, RunOptions
from crmarena_tui.session.service import SessionService
from crmarena_tui.session.task_queue import TaskQueue
from crmarena_tui.settings.config import Settings
from crmarena_tui.storage import Store
from tests.support.mcp_support import (
    SyncClient,
    free_port,
    start_http,
    stdio_client,
    trace,
    work_queue,
)

QUERY = "SELECT Id, Name FROM User WHERE Name LIKE 'A%' LIMIT 5"
BLOCK = 10  # proxy benchmark: calls timed together for their CPU time
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


def proxy_overhead(folder: Path, calls: int) -> dict[str, list[float]]:
    """Seconds per chat completion: straight to the loopback model (the OpenAI SDK), through
    litellm alone, and through the model proxy (recording in an open session)."""
    import openai

    from crmarena_tui.llm.client import litellm_module, load_litellm
    from tests.fakes.openai_server import FakeOpenAIServer, Reply
    from tests.support.proxy_support import PROXY, proxied

    load_litellm()
    litellm = litellm_module()
    messages = [{"role": "user", "content": "What is the handle time?"}]
    times: dict[str, list[float]] = defaultdict(list)
    with FakeOpenAIServer(fallback=lambda body: Reply.chat("42")) as model:
        direct = openai.OpenAI(base_url=model.base_url, api_key="none", max_retries=0)
        with proxied(folder / "proxy.db", model.base_url) as (client, _sessions, _proxy):
            url, key = PROXY.search(client.call("next_task")).groups()  # type: ignore[union-attr]
            through = openai.OpenAI(base_url=url, api_key=key, max_retries=0)
            for send in (direct, through):  # warm both paths
                send.chat.completions.create(model="openai/fake-model", messages=messages)
            for _ in range(calls // BLOCK):
                for name, send in (("direct", direct), ("proxy", through)):
                    cpu = time.process_time()
                    for _ in range(BLOCK):
                        started = time.perf_counter()
                        send.chat.completions.create(model="openai/fake-model", messages=messages)
                        times[name].append(time.perf_counter() - started)
                    times[f"{name} cpu"].append((time.process_time() - cpu) / BLOCK)
        for _ in range(calls):  # apart: litellm's own threads would weigh on the others
            started = time.perf_counter()
            litellm.completion(
                model="openai/fake-model",
                messages=messages,
                api_base=model.base_url,
                api_key="none",
            )
            times["litellm"].append(time.perf_counter() - started)
    return times


def print_proxy(folder: Path, calls: int) -> None:
    times = proxy_overhead(folder, calls)
    ms = {k: statistics.median(v) * 1000 for k, v in times.items()}
    print(f"model proxy, {calls} chat completions each, in alternated blocks (median):")
    print(f"  OpenAI SDK -> loopback model      {ms['direct']:7.2f} ms")
    print(f"  litellm -> loopback model         {ms['litellm']:7.2f} ms")
    print(f"  OpenAI SDK -> proxy -> model      {ms['proxy']:7.2f} ms (2 events stored a call)")
    print(f"  overhead                          {ms['proxy'] - ms['direct']:7.2f} ms a call "
          "(target <= 5 ms)")  # fmt: skip
    cpu = ms["proxy cpu"] - ms["direct cpu"]
    print(f"  the proxy's CPU time a call       {cpu:7.2f} ms (the process's, whatever the load)")
    print(
        f"  (litellm's own cost, were the proxy to call litellm: {ms['litellm'] - ms['direct']:.2f} ms)"
    )


MODEL_SECONDS = 0.2  # the scripted model's time per call
QUEUE_TASKS = 24


def scripted_agent(client: SyncClient) -> int:
    """Work what the server hands out: per task three model calls (200 ms each), two queries
    and an answer; the tasks worked."""
    done = 0
    while True:
        text = client.call("next_task")
        if not text.startswith("Task "):
            return done
        for _ in range(2):
            time.sleep(MODEL_SECONDS)  # the model decides on a query
            client.call("execute_soql", query=QUERY)
        time.sleep(MODEL_SECONDS)  # the model writes its answer
        client.call("respond", content="None")
        done += 1


def clients_at_once(clients: list[SyncClient]) -> tuple[float, list[int]]:
    counts = [0] * len(clients)

    def work(i: int) -> None:
        counts[i] = scripted_agent(clients[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(clients))]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - started, counts


def queue_file(folder: Path) -> Path:
    tasks = [t for t in load_tasks("demo:small") if not t.interactive][:QUEUE_TASKS]
    path = folder / "queue.json"
    path.write_text(json.dumps([t.row() for t in tasks]), encoding="utf-8")
    return path


def n_clients(
    folder: Path, n: int, transport: str, durability: str = "full"
) -> tuple[float, list[int]]:
    """`n` scripted clients on one queue of `QUEUE_TASKS` tasks; the seconds from the first
    next_task to the last answer (servers and connections are made before)."""
    db = folder / f"{transport}-{n}-{durability}.db"
    args = ("--tasks", str(queue_file(folder)), "--protocol", "workbench", "--as", "bench")
    args += ("--durability", durability)
    if transport == "http":
        port = free_port()
        proc = start_http(db, port, *args)
        url = f"http://127.0.0.1:{port}/mcp"
        clients = [SyncClient(url, mode="legacy") for _ in range(n)]
    else:
        proc = None
        clients = [stdio_client(db, *args) for _ in range(n)]
    try:
        seconds, counts = clients_at_once(clients)
    finally:
        for c in clients:
            c.close()
        if proc is not None:
            proc.terminate()
            proc.wait(30)
    with Store(db) as store:
        sessions = store.sessions()
        statuses = sorted(s.status for s in sessions)
        assert len(sessions) == QUEUE_TASKS and set(statuses) == {"submitted"}, statuses
    return seconds, counts


def report_clients(folder: Path, sizes: list[int], durabilities: list[str]) -> None:
    ideal = QUEUE_TASKS * 3 * MODEL_SECONDS
    print(
        f"N clients on one queue: {QUEUE_TASKS} tasks, 3 model calls of "
        f"{MODEL_SECONDS * 1000:.0f} ms a task ({ideal:.1f} s of model time in all)"
    )
    runs = [
        (transport, label, durability)
        for durability in durabilities
        for transport, label in (
            ("http", "MCP sessions of one HTTP server"),
            ("stdio", "stdio servers on one database"),
        )  # fmt: skip
    ]
    for transport, label, durability in runs:
        print(f"  {label}, --durability {durability}:")
        base: float | None = None  # N = 1's time (scaled when the first N is larger)
        for n in sizes:
            seconds, counts = n_clients(folder, n, transport, durability)
            if base is None:
                base = seconds * sizes[0]
            speedup = base / seconds
            print(
                f"    N={n}: {seconds:6.2f} s, speed-up {speedup:4.2f}x (ideal {n}x); "
                f"tasks per client {sorted(counts)}"
            )


def start_up(folder: Path) -> tuple[float, float]:
    """Seconds from starting the server to its `initialize` reply, and to its `tools/list`."""
    import asyncio
    import os

    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    db = folder / "start.db"
    args = ["-m", "crmarena_tui", "mcp", "--db", str(db), "--tasks", "demo:small"]
    params = StdioServerParameters(
        command=sys.executable, args=[*args, "--protocol", "workbench"], env=dict(os.environ)
    )

    async def once() -> tuple[float, float]:
        started = time.perf_counter()
        with open(os.devnull, "w") as quiet:
            async with (
                stdio_client(params, errlog=quiet) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                answered = time.perf_counter()
                await session.list_tools()
                listed = time.perf_counter()
        return answered - started, listed - started

    return asyncio.run(once())


def print_start(folder: Path, starts: int) -> None:
    start_up(folder)  # the demo org built, bytecode written
    times = [start_up(folder) for _ in range(starts)]
    init = statistics.median(t[0] for t in times) * 1000
    listed = statistics.median(t[1] for t in times) * 1000
    print(f"start-up over stdio, {starts} starts (median, from the process's start):")
    print(f"  initialize answered   {init:7.0f} ms (target <= 1500 ms on a loaded machine)")
    print(f"  tools/list answered   {listed:7.0f} ms (the tasks loaded and the SDK imported)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="demo:small")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--calls", type=int, default=190)
    parser.add_argument("--proxy-calls", type=int, default=200)
    parser.add_argument("--proxy-only", action="store_true", help="only part 4")
    parser.add_argument("--clients", default="1,4,8", help="the N of part 3, comma-separated")
    parser.add_argument("--clients-only", action="store_true", help="only part 3")
    parser.add_argument(
        "--durability",
        choices=("full", "normal", "both"),
        default="both",
        help="part 3: the servers' --durability (default: both, one after the other)",
    )
    parser.add_argument("--starts", type=int, default=5, help="part 5: server starts timed")
    parser.add_argument("--start-only", action="store_true", help="only part 5")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if not (args.clients_only or args.proxy_only):
            print_start(folder, args.starts)
        if args.start_only:
            return
        if not args.clients_only:
            print_proxy(folder, args.proxy_calls)
        if args.proxy_only:
            return
        durabilities = ["full", "normal"] if args.durability == "both" else [args.durability]
        report_clients(folder, [int(n) for n in args.clients.split(",")], durabilities)
        if args.clients_only:
            return
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
