"""The scan's own overhead per session (`crmarena-tui scan`, scans/scanner.py) at 10,000 sessions,
against reading those sessions' events in the same run (issue 41: target within 2x).

Run: python benchmarks/bench_scan.py [--sessions 10000] [--db PATH] [--runs 3] [--slice 1000]

The database (made at PATH, or in a temporary folder; kept and reused when PATH exists) holds
generated 8-turn ReAct sessions shaped like the search benchmark's (benchmarks/bench_search.py:
a system prompt, SOQL queries, observations of ten records, a few errors, an answer). The model is
an instant scripted one: a provider registered with the model client (`llm.client.
register_provider`, the way offline providers plug in) whose reply, the labels JSON, is made at
once from the transcript, so what is timed is the scan's whole work per session: the session's
task and events read, the transcript compacted, the prompt made, the model client's retry loop,
the reply parsed and checked, the reading and its suggestion written (in batches).

Printed, in the same run, per session (microseconds of wall and of CPU; each the best of
`--runs`; within a run the four are timed in turn on each slice of `--slice` sessions and
summed, so that a busy moment of the shared machine hits each alike):
- read: each session's events read and their payloads decoded (`SELECT ... FROM events WHERE
  session_id = ?` and `json.loads`), the least any reader of a session does;
- events: each session's events read as the project reads a session (`Store.events`: the
  viewer, a replay, a fork), event models made;
- scan: a whole scan of the same sessions (concurrency 1), through `Scanner.run`;
- call: as many calls of the instant model through the model client alone;
and the ratios scan / read, scan / events and (scan - call) / read: the scan's own overhead,
its whole work less what the model client's call costs any caller (the client's retry loop and
its hand-off to the call's thread, the instant model itself).

Measured 2026-12-04 16:38 to 16:40 UTC, idle 2 cores (load 0.2 to 0.6), 10,000 sessions,
270,000 events, best of 3, slices of 1,000; three runs (per session, µs CPU):

    read (the baseline)                 74    71    69
    events (Store.events)              150   151   150
    scan                               182   188   177
    the client's call alone             49    46    45
    scan / read                       2.45x 2.65x 2.57x
    scan / events                     1.21x 1.24x 1.18x
    (scan - call) / read              1.80x 2.00x 1.91x

The scan's own overhead is within 2x of the bare read, at its edge in one run of three; its whole
work, the call included, is 1.2x what the project's own reading of the same sessions costs. What
the whole work adds to the bare read is mostly fixed per session, whatever its size: the call's
hand-off to its thread and back (a real call must be given up at its deadline: llm/client.py;
with the client's loop about 35-50 µs inside a scan), the reading written (about 12), the
session claimed (about 9: a scan without claims measured 9.5 µs less a session), the reply read
(about 8). The reading and compacting of the session itself (the events query 27 µs in SQLite,
compaction 30) costs what the bare read does (its query 26, decoding 42). Tried and not kept this time: orjson for the flat payloads
`compact` decodes (2.6 µs less a session of 29: its cost is the lines, not the decoding).

Every call of the instant model goes through the same call thread a litellm call does (bounded
by its deadline: llm/client.py, llm/call_threads.py), so the hand-off is in the scan's whole work
and in the call alone alike.

Earlier (issue 41, 2026-12-03 16:05-16:07 UTC, load average 4.6 to 8.4 on the shared
2-core machine, another job's three processes busy throughout), 10,000 sessions, 270,000 events,
the best of 3 runs, slices of 1,000; the code before this change (f576338) and after it run in
turn three times on one fresh database with this same script (per session, µs wall / CPU):

                                  before (f576338)                      after
    read (the baseline)     271 / 190  147 / 122  168 / 147    180 / 166  188 / 166  177 / 138
    scan                    558 / 423  336 / 282  360 / 311    358 / 324  347 / 313  319 / 262
    the client's call alone  49 / 42    34 / 27    43 / 33      44 / 36    41 / 35    50 / 40
    ratio scan / read, CPU     2.22x      2.30x      2.12x        1.95x      1.88x      1.89x
      and wall                 2.06x      2.29x      2.14x        1.99x      1.85x      1.80x

At that load the ratio is within 2x: 1.88x-1.95x CPU (the same code's ratio moves by a tenth
from run to run; without the call, 1.60x-1.73x). On the same 2 cores idle it is not
(16:44-16:46, load 1.1, the same database, best of 3, three runs): read 169-179 µs CPU, scan
422-462, the client's call alone 63-75: 2.39x-2.62x (without the call, 2.00x-2.19x); beside two
test-suite runs again (16:47, load 6), 1.90x. The call's hand-off to its thread and back (a
futex wake each way) costs about twice the CPU when the other core is idle and must be woken,
so the figure follows the machine's load as much as the code. What changed:
- the events query no longer sizes the system prompt in SQL (its JSON was parsed for every
  session); `compact` decodes each distinct prompt once, kept by its payload's text (a prompt
  seen before costs its hash): the query 87 to 62 µs a session, the baseline's own 63;
- `compact` makes each event's line once (no head and block tuple per event; the blocks of
  steps 3 and 4 are rebuilt from the lines only for a transcript over its limit): 66 to 51 µs;
- a reply is read without the fence pattern when it holds no fence, and with the C scanner
  when it is the object alone: 9-10 to 4.5-5.7 µs (read alone, best of 5).
The transcripts, replies read, stored readings and printed lines are the same (a scan of 26
failed demo sessions with two shared system prompts, before and after; 30,000 random event
lists). Parts now (3,000 sessions, best of 5 alone, µs CPU a session): events query 62,
compaction 51 (decoding 22), the client's call 27-37 (the instant model 8-10; the rest the
client and the call thread's hand-off, about 9 futex calls a call), the reply read 5, the
prompt 1-2, headers 4, claims 15-16, readings written 28-29; inside a scan the call costs more
(65-105 µs, measured around `complete`: the call thread woken on the other core). Measured and
not kept: orjson would decode `compact`'s payloads in 10 µs instead of 17 but the baseline's in
12 instead of 52 (against a baseline decoding with it, the scan would be about 2.5x); a call
thread woken through a pipe (7 to 24 µs a hand-off against 14 to 18, not steadily less); claims
looking up only the sessions they need (3 µs less, storage/scan_claims.py left as it is);
readings written with one `executemany` (21 to 20 µs: the B-tree writes are the cost).

Before this change (2026-12-03 03:35 UTC, load 2.5-2.8): 2.17x and 2.31x CPU, without the call
1.97x and 2.12x; earlier the same day 2.48x/2.34x, then 2.08x/1.98x with the instant model
called on the caller's thread (a provider flag only this script set, since removed: a real call
always pays the hand-off). The work of that day: `compact` decodes payloads with the JSON C
scanner and keeps blocks as tuples; the headers of the sessions a run claims are read in one
query; claiming sessions (two runs at once: storage/scan_claims.py) costs a write per lot of up
to 50. Reading the events of a lot of sessions in one query was no cheaper than one query a
session (the rows' text, not the queries, is the cost). Earlier (2026-12-02, load 5 to 18):
3.8x-4.8x, then 2.37x-2.65x CPU.
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


def read_models(store: Store, ids: list[int]) -> int:
    """Each session's events as the project reads a session (`Store.events`: the viewer, a
    replay, a fork)."""
    return sum(len(store.events(sid)) for sid in ids)


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
            sums = dict.fromkeys(("read", "events", "scan", "call"), (0.0, 0.0))
            # the three in turn on each slice of the sessions: a busy moment of the machine
            # hits each alike (whole runs apart differ by 20% on a shared machine)
            for at in range(0, len(ids), args.slice):
                part = ids[at : at + args.slice]
                for name, work in (
                    ("read", lambda: read_events(store, part)),  # noqa: B023
                    ("events", lambda: read_models(store, part)),  # noqa: B023
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
    events_wall, events_cpu = best["events"]
    call_wall, call_cpu = best["call"]
    n = len(ids)
    print(f"{n:,} sessions, {events:,} events; per session (µs)      wall      cpu")
    print(
        f"  read: events read and decoded            {read_wall / n * 1e6:8.0f} {read_cpu / n * 1e6:8.0f}"
    )
    print(
        f"  events: read as the project reads them   {events_wall / n * 1e6:8.0f} {events_cpu / n * 1e6:8.0f}"
    )
    print(
        f"  scan: the scan's whole work              {scan_wall / n * 1e6:8.0f} {scan_cpu / n * 1e6:8.0f}"
    )
    print(
        f"  call: the model client's call alone      {call_wall / n * 1e6:8.0f} {call_cpu / n * 1e6:8.0f}"
    )
    print(f"ratio scan / read: {scan_wall / read_wall:.2f}x wall, {scan_cpu / read_cpu:.2f}x cpu")
    print(
        f"ratio scan / events (Store.events): {scan_wall / events_wall:.2f}x wall,"
        f" {scan_cpu / events_cpu:.2f}x cpu"
    )
    own_wall, own_cpu = scan_wall - call_wall, scan_cpu - call_cpu
    print(
        f"ratio (scan - call) / read, the scan's own overhead: {own_wall / read_wall:.2f}x wall,"
        f" {own_cpu / read_cpu:.2f}x cpu (target 2x)"
    )
    if folder is not None:
        folder.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
