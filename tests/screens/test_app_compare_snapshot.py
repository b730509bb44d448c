"""Snapshot of the compare screen with three sessions (review a diff before `--snapshot-update`).

Deterministic: the seeded database (fixed timestamps and active times), the fake org."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from crmarena_tui.screens.compare_screen import CompareScreen
from tests.support.app_support import SIZE, wait_for_workers
from tests.support.app_trajectory_support import research_app, seed

pytestmark = pytest.mark.snapshot


def test_snapshot_compare_three_sessions(snap_compare, tmp_path: Path) -> None:
    ids = seed(tmp_path / "sessions.db")

    async def work(pilot: Pilot) -> None:
        await wait_for_workers(pilot, pilot.app)
        pilot.app.push_screen(CompareScreen([ids["agent"], ids["ann"], ids["bob"]]))
        await wait_for_workers(pilot, pilot.app)

    assert snap_compare(research_app(tmp_path), terminal_size=SIZE, run_before=work)
