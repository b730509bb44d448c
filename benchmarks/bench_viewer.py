"""Time for the trajectory viewer to open a 500-step session, against an empty screen push.

A temporary database gets one agent session of `--steps` steps (a thought, token usage, a query
and its 20-record observation per step; every 25th query fails), 2,000 events for 500 steps. In
one headless app (Textual's pilot, 120x40) the clock runs from `push_screen` until the screen's
first complete frame (the screen's `call_after_refresh` after the condition holds): for the
viewer, once its worker has loaded the session and the step list and the first step's detail are
drawn; for the baseline, an empty `Screen`. Runs alternate; medians are printed with the ratio to
the empty screen. After a run the popped screen's garbage is collected (untimed), except after the
third series' runs ("no collection"). Without any collection between runs, Python's full
collections (about 0.1 s over this app's heap) fall into some runs; an app-wide
`gc.freeze()` after start-up keeps them out. Target: viewer < 150 ms.

    python benchmarks/bench_viewer.py [--steps 500] [--runs 9]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
T0 = 1_735_689_600.0


def build_session(db: Path, steps: int) -> int:
    """One agent session of `steps` query steps, fixed timestamps; returns its id."""
    from crmarena_tui.orgs.detached_org import DetachedOrg
    from crmarena_tui.storage import Store
    from crmarena_tui.storage.models import SessionSpec
    from crmarena_tui.tasks.model import Task

    store = Store(db, durability="normal", clock=lambda: T0)
    agent = store.participant("agent", "bench/react", model="bench")
    task = Task(
        idx=1,
        task="handle_time",
        query="Which agent is fastest?",
        answer=["x"],
        reward_metric="exact_match",
        source="bench",
    )
    session = store.create_session(SessionSpec(task, DetachedOrg("local", "bench", "b2b"), agent))
    records = [
        {
            "Id": f"500Wt00000DD{i:04d}IA1",
            "OwnerId": "005Wt000003NIvNIAW",
            "Subject": f"Case {i}",
            "Status": "Closed",
        }
        for i in range(20)
    ]
    observation = json.dumps(records)
    t = T0
    with store.transaction():
        for i in range(steps):
            query = (
                f"SELECT Id, OwnerId, Subject, Status FROM Case WHERE Priority = 'P{i}' LIMIT 20"
            )
            for actor, kind, payload in (
                (
                    "agent",
                    "usage",
                    {"prompt_tokens": 900 + i, "completion_tokens": 80, "total_tokens": 980 + i},
                ),
                ("agent", "thought", {"text": f"Step {i}: look at the P{i} cases."}),
                ("agent", "query", {"text": query}),
                ("system", "error", {"error": "INVALID_FIELD: no such field"})
                if i % 25 == 24
                else ("system", "observation", {"observation": observation, "total_size": 20}),
            ):
                t += 1.0
                store.append_event(session.id, actor, kind, payload, ts=t)
    store.close()
    return session.id


async def measure(db: Path, session_id: int, steps: int, runs: int) -> dict[str, list[float]]:
    from textual.screen import Screen

    from crmarena_tui.app.app import CrmArenaApp, PlayOptions
    from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer

    tasks = db.parent / "tasks.json"
    tasks.write_text(
        json.dumps(
            [
                {
                    "idx": 1,
                    "task": "handle_time",
                    "query": "q",
                    "answer": ["x"],
                    "reward_metric": "exact_match",
                }
            ]
        )
    )
    app = CrmArenaApp(PlayOptions(tasks=str(tasks), participant="bench", db=db))
    times: dict[str, list[float]] = {"empty": [], "viewer": [], "viewer, no collection": []}
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        # warm-up: imports of the viewer's modules and the first store read are not timed
        app.push_screen(TrajectoryViewer(session_id))
        await _drawn(app.screen, lambda: app.screen.ready)
        await _settle(pilot, app)
        app.push_screen(Screen())  # a still base: the task browser's resume work stays out
        await pilot.pause()
        for _ in range(runs):
            start = time.perf_counter()
            screen = Screen()
            app.push_screen(screen)
            await _drawn(screen, lambda: True)
            times["empty"].append(time.perf_counter() - start)
            await _settle(pilot, app, collect=True)
            for series, collect in (("viewer", True), ("viewer, no collection", False)):
                start = time.perf_counter()
                viewer = TrajectoryViewer(session_id)
                app.push_screen(viewer)
                await _drawn(viewer, lambda v=viewer: v.ready)
                times[series].append(time.perf_counter() - start)
                assert len(viewer.steps) == steps and viewer.detail.step is viewer.steps[0]
                await _settle(pilot, app, collect=collect)
    return times


async def _drawn(screen, condition) -> None:
    """Wait until `condition()` holds, then until the screen has been refreshed after it."""
    while not condition():
        await asyncio.sleep(0.0005)
    drawn = asyncio.Event()
    screen.call_after_refresh(drawn.set)
    await drawn.wait()


async def _settle(pilot, app, *, collect: bool = True) -> None:
    """Back to the base screen; `collect`: free the popped screen's garbage now (untimed)."""
    app.pop_screen()
    await app.workers.wait_for_complete()
    await pilot.pause(0.1)
    if collect:
        gc.collect()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for var, sub in (
            ("XDG_DATA_HOME", "data"),
            ("XDG_CONFIG_HOME", "config"),
            ("XDG_CACHE_HOME", "cache"),
        ):
            os.environ[var] = f"{tmp}/{sub}"
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["HF_DATASETS_OFFLINE"] = "1"
        os.environ["HF_DATASETS_DISABLE_PROGRESS_BARS"] = "1"
        sys.path.insert(0, str(ROOT))
        db = Path(tmp) / "sessions.db"
        started = time.perf_counter()
        session_id = build_session(db, args.steps)
        built = time.perf_counter() - started
        times = asyncio.run(measure(db, session_id, args.steps, args.runs))
    empty = statistics.median(times["empty"])
    print(
        f"session: {args.steps} steps ({args.steps * 4:,} events), built in {built:.2f} s; "
        f"{args.runs} runs"
    )
    for series, values in times.items():
        median = statistics.median(values)
        print(
            f"{series + ':':<24} median {median * 1000:6.1f} ms  (min {min(values) * 1000:6.1f}, "
            f"max {max(values) * 1000:6.1f})  {median / empty:5.1f}x the empty screen"
        )
    viewer = statistics.median(times["viewer"])
    print(
        f"target: viewer < 150 ms -> {'met' if viewer < 0.150 else 'NOT met'} "
        f"({viewer * 1000:.0f} ms)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
