"""Import throughput: upstream result files into the sessions database.

Run: python benchmarks/bench_import.py [--items 300] [--turns 8]

The workload is one synthetic upstream file shaped like the fixtures in tests/data/upstream: each
item has a system prompt, the query, `--turns` ReAct replies (thought + execute) each answered by an
observation, and a final respond. Printed, all measured in this run:
- parse: `read_upstream_file` (validation + trajectory -> events) against a bare `json.loads` of
  the same bytes;
- import: `UpstreamImporter` into a fresh database (one transaction per file) against a baseline
  that inserts the same number of session and event rows with plain sqlite3 `executemany` in one
  transaction (the least any importer must write);
- re-import of the same file (every item skipped as already present).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from crmarena_tui.storage import Store  # noqa: E402
from crmarena_tui.storage.upstream import UpstreamImporter, read_upstream_file  # noqa: E402

PROMPT = (
    "You work for a company whose CRM is a Salesforce instance.\n"
    + "  - Field: description\n" * 120
)


def make_items(count: int, turns: int) -> list[dict]:
    items = []
    for i in range(count):
        traj = [
            {"role": "system", "content": PROMPT},
            {
                "role": "user",
                "content": f"Which agent closed the most cases in month {i % 12 + 1}?",
            },
        ]
        for t in range(turns):
            traj.append(
                {
                    "role": "assistant",
                    "content": f"<thought>step {t}</thought>\n"
                    f"<execute>SELECT Id, OwnerId FROM Case WHERE CALENDAR_MONTH(ClosedDate) = {t + 1}</execute>",
                }
            )
            records = [
                {"Id": f"500Wt00000DD{t:02d}{k:04d}", "OwnerId": "005Wt000003NIvNIAW"}
                for k in range(10)
            ]
            traj.append({"role": "user", "content": f"Salesforce instance output: {records}"})
        traj.append(
            {
                "role": "assistant",
                "content": "<thought>done</thought><respond>005Wt000003NIvNIAW</respond>",
            }
        )
        items.append(
            {
                "task_id": i,
                "task_type": "handle_time",
                "gt_answer": ["005Wt000003NIvNIAW"],
                "reward": i % 2,
                "traj": traj,
                "agent_info": {
                    "usage": {"cost": [0.001] * (turns + 1)},
                    "total_cost": 0.001 * (turns + 1),
                    "num_turns": [0, turns + 1],
                    "observation_sizes": [10] * turns,
                    "end_reason": {"source": "agent", "message": "Submit action"},
                },
            }
        )
    return items


def baseline_insert(path: Path, sessions: int, events_per_session: int) -> float:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("CREATE TABLE sessions (id INTEGER PRIMARY KEY, task_json TEXT)")
    conn.execute(
        "CREATE TABLE events (session_id INTEGER, seq INTEGER, payload TEXT, PRIMARY KEY (session_id, seq))"
    )
    payload = json.dumps(
        {"text": "SELECT Id, OwnerId FROM Case WHERE CALENDAR_MONTH(ClosedDate) = 1" * 3}
    )
    started = time.perf_counter()
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany("INSERT INTO sessions VALUES (?, ?)", ((i, "{}") for i in range(sessions)))
    conn.executemany(
        "INSERT INTO events VALUES (?, ?, ?)",
        ((i, s, payload) for i in range(sessions) for s in range(events_per_session)),
    )
    conn.execute("COMMIT")
    elapsed = time.perf_counter() - started
    conn.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=300)
    parser.add_argument("--turns", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        source = folder / "b2b" / "results_gpt-4o_react_handle_time_interactive-False.json"
        source.parent.mkdir()
        source.write_text(json.dumps(make_items(args.items, args.turns), indent=2))
        size_mb = source.stat().st_size / 1e6

        raw = source.read_bytes()
        started = time.perf_counter()
        json.loads(raw)
        t_json = time.perf_counter() - started
        started = time.perf_counter()
        parsed = read_upstream_file(source)
        t_parse = time.perf_counter() - started
        events = sum(len(item.steps) + 2 for item in parsed.items)  # + usage and grade events

        with Store(folder / "sessions.db") as store:
            started = time.perf_counter()
            summary = UpstreamImporter(store).import_paths([source])
            t_import = time.perf_counter() - started
            started = time.perf_counter()
            again = UpstreamImporter(store).import_paths([source])
            t_again = time.perf_counter() - started
        assert summary.imported == args.items and again.skipped == args.items
        t_base = baseline_insert(folder / "baseline.db", args.items, events // args.items)

    print(f"file: {args.items} items, {size_mb:.1f} MB, {events} events")
    print(
        f"parse:     {t_parse * 1000:8.1f} ms  ({t_parse / t_json:5.1f}x json.loads at {t_json * 1000:.1f} ms)"
    )
    print(
        f"import:    {t_import * 1000:8.1f} ms  ({args.items / t_import:7.0f} sessions/s, "
        f"{events / t_import:7.0f} events/s; {t_import / t_base:5.1f}x raw sqlite at {t_base * 1000:.1f} ms)"
    )
    print(
        f"re-import: {t_again * 1000:8.1f} ms  (all {again.skipped} skipped; {t_again / t_import:.2f}x the first import)"
    )


if __name__ == "__main__":
    main()
