"""Type-ahead filtering of 10,000 tasks in the task browser.

Two figures, each against a baseline measured in the same run:
1. keystroke latency in the app (pilot, 120x40): typing into the browser's filter with 10,000
   tasks listed, against typing the same keys into a bare Textual app holding one Input;
2. the filter itself (`TaskIndex.filter`) per keystroke, narrowing and widening (backspace),
   against one pass of `str.__contains__` over the same 10,000 haystacks.

    python benchmarks/bench_task_filter.py [--tasks N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

SAMPLE = ROOT / "tests" / "data" / "crmarenapro_b2b_sample.json"
TYPED = "handle time least"


def write_tasks(path: Path, n: int) -> Path:
    rows = json.loads(SAMPLE.read_text())
    out = []
    for i in range(n):
        row = dict(rows[i % len(rows)])
        row["idx"] = 100000 + i
        out.append(row)
    path.write_text(json.dumps(out))
    return path


async def keystrokes_bare() -> list[tuple[float, float]]:
    from textual.app import App
    from textual.widgets import Input

    class Bare(App):
        def compose(self):
            yield Input()

    app = Bare()
    times = []
    async with app.run_test(size=(120, 40)) as pilot:
        app.query_one(Input).focus()
        await pilot.pause()
        for key in TYPED.replace(" ", "_"):
            start, cpu = time.perf_counter(), time.process_time()
            await pilot.press("space" if key == "_" else key)
            times.append((time.perf_counter() - start, time.process_time() - cpu))
    return times


async def keystrokes_app(tasks: Path, db: Path) -> tuple[list[tuple[float, float]], int, int]:
    from crmarena_tui.app.app import CrmArenaApp, PlayOptions
    from crmarena_tui.widgets.task_list import TaskList

    app = CrmArenaApp(
        PlayOptions(tasks=str(tasks), org=str(db.with_suffix(".none")), participant="bench", db=db)
    )
    times = []
    async with app.run_test(size=(120, 40)) as pilot:
        while not app.tasks:
            await pilot.pause(0.05)
        await app.workers.wait_for_complete()
        await pilot.pause()
        listed = app.screen.query_one("#tasks", TaskList)
        total = listed.row_count
        await pilot.press("slash")
        for key in TYPED.replace(" ", "_"):
            start, cpu = time.perf_counter(), time.process_time()
            await pilot.press("space" if key == "_" else key)
            times.append((time.perf_counter() - start, time.process_time() - cpu))
        shown = listed.row_count
    return times, total, shown


def filter_costs(tasks: Path) -> tuple[float, float, float]:
    from crmarena_tui.tasks.index import TaskIndex
    from crmarena_tui.tasks.loaders import load_tasks

    index = TaskIndex(load_tasks(str(tasks)))
    prefixes = [TYPED[:i] for i in range(1, len(TYPED) + 1)]
    start = time.perf_counter()
    for p in prefixes:
        index.filter(p)
    narrowing = (time.perf_counter() - start) / len(prefixes)
    start = time.perf_counter()
    for p in reversed(prefixes):
        index.filter(p)
    widening = (time.perf_counter() - start) / len(prefixes)
    hay = index._hay
    start = time.perf_counter()
    for _ in range(len(prefixes)):
        [i for i, h in enumerate(hay) if "handle" in h]
    scan = (time.perf_counter() - start) / len(prefixes)
    return narrowing, widening, scan


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_DATA_HOME"] = f"{tmp}/data"
        os.environ["XDG_CONFIG_HOME"] = f"{tmp}/config"
        tasks = write_tasks(Path(tmp) / "many.json", args.tasks)
        bare = asyncio.run(keystrokes_bare())
        app, total, shown = asyncio.run(keystrokes_app(tasks, Path(tmp) / "sessions.db"))
        narrowing, widening, scan = filter_costs(tasks)
    b = statistics.median(w for w, _ in bare)
    a = statistics.median(w for w, _ in app)
    bc = statistics.median(c for _, c in bare)
    ac = statistics.median(c for _, c in app)
    print(f"tasks listed:                     {total:,} (after typing {TYPED!r}: {shown:,})")
    print("per keystroke (pilot press: the key handled and the screen updated)")
    print(f"  bare Input app:                 wall {b * 1000:6.1f} ms  cpu {bc * 1000:6.1f} ms")
    print(
        f"  task browser, 10,000 tasks:     wall {a * 1000:6.1f} ms  cpu {ac * 1000:6.1f} ms  "
        f"(max wall {max(w for w, _ in app) * 1000:.1f})"
    )
    print(f"  ratio (median wall):            {a / b:.2f}x   (median cpu: {ac / bc:.2f}x)")
    print(f"TaskIndex.filter, narrowing:      {narrowing * 1000:6.2f} ms per keystroke")
    print(f"TaskIndex.filter, widening:       {widening * 1000:6.2f} ms per keystroke")
    print(
        f"baseline: one substring scan:     {scan * 1000:6.2f} ms  "
        f"(filter/scan {widening / scan:.2f}x widening)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
