"""Snapshots of issue 36's states at 80x24 and 100x30: panes titled in their borders with the
focused one marked, a maximized pane, `f1`'s keys, an empty filter saying what to do, and the
submit dialog with marked items (✓). See `screen_snapshot_support` for what keeps them still."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from crmarena_tui.screens.keys_screen import KeysScreen
from crmarena_tui.screens.submit_dialog import SubmitDialog
from crmarena_tui.widgets.results_table import ResultsTable
from tests.support.app_support import open_task, screen_text
from tests.support.pilot_wait_support import wait_until
from tests.support.screen_snapshot_support import SMALL, keys, play_app, then_still

pytestmark = pytest.mark.snapshot

SIZES = {"80x24": (80, 24), "100x30": SMALL}


async def opened(pilot: Pilot) -> None:
    await open_task(pilot, pilot.app, "quote approval")


async def queried(pilot: Pilot) -> None:
    """The query run and its records shown, the results focused (their pane marked)."""
    pilot.app.screen.query_one("#editor", TextArea).load_text("SELECT Id, Subject FROM Case")
    await pilot.press("ctrl+r")
    await wait_until(pilot, lambda: "3 records" in screen_text(pilot.app), "the records")
    pilot.app.screen.query_one(ResultsTable).focus()


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_snapshot_titled_panes_results_focused(snap_compare, tmp_path: Path, size) -> None:
    steps = then_still(opened, queried)
    assert snap_compare(play_app(tmp_path), terminal_size=size, run_before=steps)


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_snapshot_results_maximized(snap_compare, tmp_path: Path, size) -> None:
    steps = then_still(opened, queried, keys("f10"))
    assert snap_compare(play_app(tmp_path), terminal_size=size, run_before=steps)


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_snapshot_keys_of_the_workspace(snap_compare, tmp_path: Path, size) -> None:
    async def help_open(pilot: Pilot) -> None:
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, KeysScreen), "f1's list")

    steps = then_still(opened, help_open)
    assert snap_compare(play_app(tmp_path), terminal_size=size, run_before=steps)


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_snapshot_no_task_matches(snap_compare, tmp_path: Path, size) -> None:
    async def filtered(pilot: Pilot) -> None:
        await pilot.press("slash")
        pilot.app.screen.query_one("#filter", Input).value = "qqq zzz"

    steps = then_still(filtered)
    assert snap_compare(play_app(tmp_path), terminal_size=size, run_before=steps)


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_snapshot_submit_dialog_with_marks(snap_compare, tmp_path: Path, size) -> None:
    async def marked(pilot: Pilot) -> None:
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, SubmitDialog), "the dialog")
        pilot.app.screen.query_one("#picks").focus()
        await pilot.press("space", "down", "down", "space")

    steps = then_still(opened, queried, marked)
    assert snap_compare(play_app(tmp_path), terminal_size=size, run_before=steps)
