"""Snapshots of the questions that keep a key from doing something by surprise (issue 36): which
answer is sent when the reply has both typed text and marked items, and leaving a task."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from crmarena_tui.screens.leave_dialog import LeaveDialog
from crmarena_tui.screens.submit_dialog import SubmitDialog, WhichAnswer
from tests.support.app_support import open_task
from tests.support.pilot_wait_support import wait_until
from tests.support.screen_snapshot_support import SMALL, play_app, then_still

pytestmark = pytest.mark.snapshot
SIZES = {"80x24": (80, 24), "100x30": SMALL}


async def opened(pilot: Pilot) -> None:
    await open_task(pilot, pilot.app, "quote approval")


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_snapshot_which_answer(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:
    async def asked(pilot: Pilot) -> None:
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, SubmitDialog), "the dialog")
        pilot.app.screen.query_one("#answer", Input).value = "None"
        await pilot.press("down", "space", "ctrl+s")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, WhichAnswer), "the question")

    steps = then_still(opened, asked)
    assert snap_compare(play_app(tmp_path), terminal_size=size, run_before=steps)


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_snapshot_leave_task(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:
    async def asked(pilot: Pilot) -> None:
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, LeaveDialog), "the question")

    steps = then_still(opened, asked)
    assert snap_compare(play_app(tmp_path), terminal_size=size, run_before=steps)
