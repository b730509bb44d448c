"""Snapshot of the trajectory viewer (review a diff before `--snapshot-update`).

Deterministic: the seeded database (fixed timestamps), the fake org, no cursor blink."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer
from tests.support.app_support import SIZE, wait_for_workers
from tests.support.app_trajectory_support import research_app, seed

pytestmark = pytest.mark.snapshot


def test_snapshot_trajectory_viewer(snap_compare, tmp_path: Path) -> None:
    ids = seed(tmp_path / "sessions.db")

    async def work(pilot: Pilot) -> None:
        await wait_for_workers(pilot, pilot.app)
        pilot.app.push_screen(TrajectoryViewer(ids["agent"]))
        await wait_for_workers(pilot, pilot.app)
        await pilot.press("e")  # the error step, which bob labelled
        await pilot.pause()

    assert snap_compare(research_app(tmp_path), terminal_size=SIZE, run_before=work)
