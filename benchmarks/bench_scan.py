"""The scan's own overhead per session (`crmarena-tui scan`, scans/scanner.py) at 10,000 sessions,
against reading those sessions' events in the same run (issue 41: target within 2x).

Run: python benchmarks/bench_scan.py [--sessions 10000] [--db PATH] [--runs 3] [--slice 1000]

The database (made at PATH, or in a temporary folder; kept and reused when PATH exists) holds
generated 8-turn ReAct sessions shaped like the search benchmark's (benchmarks/bench_search.py:
a system prompt, SOQL queries, observations of ten records, a few errors, an answer). The model is
an instant scripted one: a provider registered with the model client (`llm.client.
register_provider`, the way offline providers plug in) whose reply, the labels JSON, is made at
once from the transcript, so what is timed is the scan's own work per session: the session's
task and events read, the transcript compacted, the prompt made, the model client's retry loop,
the reply parsed and checked, the reading and its suggestion written (in batches).

Printed, in the same run, per session (microseconds of wall and of CPU; each the best of
`--runs`; within a run the three are timed in turn on each slice of `--slice` sessions and
summed, so that a busy moment of the shared machine hits each alike):
- read: each session's events read and their payloads decoded (`SELECT ... FROM events WHERE
  session_id = ?` and `json.loads`), the least any reader of a session does;
- scan: a whole scan of the same sessions (concurrency 1), through `Scanner.run`;
- call: as many calls of the instant model through the model client alone;
and the ratios scan / read and (scan - call) / read.

Every call of the instant model goes through the same call thread a litellm call does (bounded
by its deadline: llm/client.py, llm/call_threads.py), so the hand-off is counted as the scan's.

Last measured (issue 41, 2026-12-03 03:21-03:23 UTC, load average 1.8 to 2.7 on the shared
2-core machine), 10,000 sessions, 270,000 events, the best of 3 runs, slices of 1,000; the code
before this work (200becd) and after it run in turn twice on one database with this same
script (per session, µs wall / CPU):

                              before (2 runs)            after (2 runs)
    read (the baseline)     230 / 207    219 / 197    213 / 197    214 / 211
    scan                    570 / 484    519 / 487    442 / 390    434 / 411
    the client's call alone  43 / 42      46 / 45      14 / 14      17 / 16
    ratio scan / read     2.48x / 2.34x  2.37x / 2.47x  2.08x / 1.98x  2.03x / 1.95x

Those "after" figures were taken with the instant model called on the caller's thread (a
provider flag only this script set); that shortcut is gone, since a real call always pays the
hand-off. Without it (2026-12-03 03:35 UTC, load 2.5-2.8, the same database, best of 3 runs):
scan 381 and 493 µs CPU against read 176 and 213, call alone 34 and 40: 2.17x and 2.31x CPU
(2.19x and 2.56x wall); without the call, 1.97x and 2.12x. The 2x target is not met: the call
thread's hand-off is most of the gap. Whole-run timings (no slices) at load 2 to 5 the same half hour scattered more: before
2.23x-2.62x CPU, after 1.61x-2.27x. What changed: `compact` decodes payloads with the JSON C scanner
directly and keeps blocks as tuples unless a transcript is over its limit (116 to 94 µs a
session, best of 5 interleaved on 3,000 sessions); the headers of the sessions a run claims
are read in one query (about 15 µs a session less). Claiming sessions (two runs at once:
storage/scan_claims.py) costs a write per lot of up to 50 sessions. Reading the events of a
lot of sessions in one query was measured and dropped: no cheaper than one query a session
(the rows' text, not the queries, is the cost). Parts now (3,000 sessions, µs CPU a session):
events query 95-115 (the baseline's own 90-110), compaction 95-110 (of which decoding about
70, as the baseline's `json.loads`), the call 15, the reply parsed 11, the prompt 2.

Earlier (2026-12-02, load 5 to 18): 3.8x-4.8x, then 2.37x-2.65x CPU, before the changes above.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_search import build  # noqa: E402

from crmarena_tui.llm.client import Completion, LLMClient, register_provider  # noqa: E402
from crmarena_tui.scans.scanner import Question, Scanner  # noqa: E402
from crmarena_tui.settings.config import DEFAULT_TAXONOMY  # noqa: E402
from crmarena_tui.storage import Store  # noqa: E402

SEQ = re.compile(r"^\[(\d+)\] agent query", re.M)


class InstantModel(LLMClient):
    """Replies at once: `wrong object` at the session's first query."""

    def _call_once(
        self, messages: list[dict[str, Any]], tools: Any, options: Any = None
    ) -> Completion:
        found = SEQ.search(messages[-1]["content"])
        step = int(found.group(1)) if found else None
        reply = {"labels": [{"label": "wrong object", "step": step, "reason": "It queried Case."}]}
        return Completion(json.dumps(reply), prompt_tokens=1000, completion_tokens=30, cost=0.0)


def read_events(store: Store, ids: list[int]) -> int:
    decoded = 0
    for sid in ids:
        rows = store.read(
            "SELECT seq, actor, kind, payload FROM events WHERE session_id = ? ORDER BY seq", (sid,)
        )
        decoded += sum(len(json.loads(p)) for _, _, _, p in rows)
    return decoded


def timed(work: Any) -> tuple[float, float, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = work()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--db", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=3, help="each figure the best of this many")
    parser.add_argument(
        "--slice", type=int, default=1000, help="sessions timed together, the three in turn"
    )
    args = parser.parse_args()
    folder = tempfile.TemporaryDirectory() if args.db is None else None
    path = args.db or Path(folder.name) / "scan.db"  # type: ignore[union-attr]
    if not path.exists():
        seconds = build(path, args.sessions)
        print(f"wrote {args.sessions:,} sessions in {seconds:.1f} s")
    register_provider("instant/", lambda model, **kw: InstantModel(model, **kw))
    question = Question("labels", DEFAULT_TAXONOMY)
    best: dict[str, tuple[float, float]] = {}

    def keep(name: str, wall: float, cpu: float) -> None:
        was = best.get(name, (wall, cpu))
        best[name] = (min(was[0], wall), min(was[1], cpu))

    with Store(path, durability="normal") as store:  # (as the scan command opens it)
        ids = [int(r[0]) for r in store.read("SELECT id FROM sessions ORDER BY id")]
        events = store.read("SELECT COUNT(*) FROM events")[0][0]
        client = InstantModel("instant/m")
        message = [{"role": "user", "content": "[2] agent query: SELECT Id FROM Case"}]
        for run in range(args.runs):
            scan = store.suggestions.start(
                f"bench-{time.time():.0f}-{run}", kind="labels", model="instant/m",
                prompt_version=question.prompt_version, taxonomy=question.taxonomy, resume=False,
            )  # fmt: skip
            scanner = Scanner(store, scan, question, InstantModel("instant/m"), concurrency=1)
            sums = dict.fromkeys(("read", "scan", "call"), (0.0, 0.0))
            # the three in turn on each slice of the sessions: a busy moment of the machine
            # hits each alike (whole runs apart differ by 20% on a shared machine)
            for at in range(0, len(ids), args.slice):
                part = ids[at : at + args.slice]
                for name, work in (
                    ("read", lambda: read_events(store, part)),  # noqa: B023
                    ("scan", lambda: scanner.run(part)),  # noqa: B023
                    ("call", lambda: [client.complete(message) for _ in part]),  # noqa: B023
                ):
                    wall, cpu, result = timed(work)
                    if name == "scan":
                        assert result.read == len(part), result
                    sums[name] = (sums[name][0] + wall, sums[name][1] + cpu)
            for name, (wall, cpu) in sums.items():
                keep(name, wall, cpu)
    (read_wall, read_cpu), (scan_wall, scan_cpu) = best["read"], best["scan"]
    call_wall, call_cpu = best["call"]
    n = len(ids)
    print(f"{n:,} sessions, {events:,} events; per session (µs)      wall      cpu")
    print(
        f"  read: events read and decoded            {read_wall / n * 1e6:8.0f} {read_cpu / n * 1e6:8.0f}"
    )
    print(
        f"  scan: the scan's own work                {scan_wall / n * 1e6:8.0f} {scan_cpu / n * 1e6:8.0f}"
    )
    print(
        f"  call: the model client's call alone      {call_wall / n * 1e6:8.0f} {call_cpu / n * 1e6:8.0f}"
    )
    print(
        f"ratio scan / read: {scan_wall / read_wall:.2f}x wall, {scan_cpu / read_cpu:.2f}x cpu (target 2x)"
    )
    own_wall, own_cpu = scan_wall - call_wall, scan_cpu - call_cpu
    print(
        f"ratio (scan - call) / read: {own_wall / read_wall:.2f}x wall, {own_cpu / read_cpu:.2f}x cpu"
    )
    if folder is not None:
        folder.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
