"""Helpers for the app's pilot tests (no tests here): build the app, wait for its workers."""

from __future__ import annotations

import json
from pathlib import Path

from textual.app import App
from textual.pilot import Pilot

from crmarena_tui.app import CrmArenaApp, PlayOptions

SAMPLE = Path(__file__).parent / "data" / "crmarenapro_b2b_sample.json"
SIZE = (120, 40)


async def wait_for_workers(pilot: Pilot, app: App, rounds: int = 50) -> None:
    """Wait until no worker of the app or any screen runs (workers may start more workers)."""
    for _ in range(rounds):
        await app.workers.wait_for_complete()
        await pilot.pause()
        if not any(w.is_running for w in app.workers):
            await pilot.pause()
            return
    raise AssertionError(f"workers still running: {list(app.workers)}")


def make_app(tmp_path: Path, tasks: str | Path = SAMPLE, org: str | Path | None = None,
             participant: str | None = "ann", **kw) -> CrmArenaApp:
    return CrmArenaApp(PlayOptions(
        tasks=str(tasks), org=str(org) if org else "/nonexistent/org.db",
        participant=participant, db=tmp_path / "sessions.db", **kw,
    ))


def write_many_tasks(path: Path, n: int) -> Path:
    """A task file of `n` rows made from the 44 sample rows (distinct idx)."""
    rows = json.loads(SAMPLE.read_text())
    out = []
    for i in range(n):
        row = dict(rows[i % len(rows)])
        row["idx"] = 100000 + i
        out.append(row)
    path.write_text(json.dumps(out))
    return path
