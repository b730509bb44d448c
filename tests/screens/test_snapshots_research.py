"""Snapshots of the research screens over the seeded sessions database (nine sessions on four
tasks, labels by two annotators; see `test_app_trajectory_support`): the sessions list, the
trajectory viewer and its label, note and fork dialogs, the compare screen and the report.
See `screen_snapshot_support` for what keeps them deterministic."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.screen import Screen

from crmarena_tui.screens.compare_screen import CompareScreen
from crmarena_tui.screens.fork_dialog import ForkDialog
from crmarena_tui.screens.label_dialog import LabelDialog
from crmarena_tui.screens.note_dialog import NoteDialog
from crmarena_tui.screens.report_screen import ReportScreen
from crmarena_tui.screens.sessions_screen import SessionsScreen
from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer
from crmarena_tui.screens.workspace import Workspace
from tests.support.app_support import wait_for_workers
from tests.support.app_trajectory_support import research_app, seed
from tests.support.pilot_wait_support import wait_until
from tests.support.screen_snapshot_support import SIZES, SMALL, Steps, keys, still

pytestmark = pytest.mark.snapshot


def on(screen: Callable[[], Screen], *then: Steps) -> Steps:
    """Push the `screen()` once the app has started, wait for its workers, run `then`, be
    still."""

    async def run(pilot: Pilot) -> None:
        await wait_for_workers(pilot, pilot.app)
        pilot.app.push_screen(screen())
        await wait_for_workers(pilot, pilot.app)
        for step in then:
            await step(pilot)
            await wait_for_workers(pilot, pilot.app)
        await still(pilot)

    return run


def opens(kind: type[Screen], *pressed: str) -> Steps:
    """Press the keys, then wait until a screen of `kind` is on top."""

    async def step(pilot: Pilot) -> None:
        await pilot.press(*pressed)
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, kind), kind.__name__)

    return step


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_snapshot_sessions_list(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:
    seed(tmp_path / "sessions.db")
    steps = on(lambda: SessionsScreen(), keys("down", "space"))  # the second session marked
    assert snap_compare(research_app(tmp_path), terminal_size=size, run_before=steps)


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_snapshot_viewer(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:
    ids = seed(tmp_path / "sessions.db")
    steps = on(lambda: TrajectoryViewer(ids["agent"]), keys("l"))  # the second query's step
    assert snap_compare(research_app(tmp_path), terminal_size=size, run_before=steps)


def test_snapshot_viewer_label_dialog(snap_compare, tmp_path: Path) -> None:
    ids = seed(tmp_path / "sessions.db")
    steps = on(lambda: TrajectoryViewer(ids["agent"]), keys("e"), opens(LabelDialog, "m"))
    assert snap_compare(research_app(tmp_path), terminal_size=SMALL, run_before=steps)


def test_snapshot_viewer_note_dialog(snap_compare, tmp_path: Path) -> None:
    ids = seed(tmp_path / "sessions.db")
    steps = on(lambda: TrajectoryViewer(ids["ann"]), opens(NoteDialog, "N"))
    assert snap_compare(research_app(tmp_path), terminal_size=SMALL, run_before=steps)


def test_snapshot_viewer_fork_dialog(snap_compare, tmp_path: Path) -> None:
    ids = seed(tmp_path / "sessions.db")
    steps = on(lambda: TrajectoryViewer(ids["agent"]), keys("l"), opens(ForkDialog, "f"))
    assert snap_compare(research_app(tmp_path), terminal_size=SMALL, run_before=steps)


def test_snapshot_compare_two(snap_compare, tmp_path: Path) -> None:
    ids = seed(tmp_path / "sessions.db")
    steps = on(lambda: CompareScreen([ids["agent"], ids["bob"]]))
    assert snap_compare(research_app(tmp_path), terminal_size=SMALL, run_before=steps)


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_snapshot_report(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:
    seed(tmp_path / "sessions.db")

    async def computed(pilot: Pilot) -> None:
        await wait_until(pilot, lambda: pilot.app.screen.report is not None, "the report")

    steps = on(lambda: ReportScreen(), computed)
    assert snap_compare(research_app(tmp_path), terminal_size=size, run_before=steps)


def test_snapshot_forked_workspace(snap_compare, tmp_path: Path) -> None:
    """The agent's session forked after its second step, continued as me: its history shown."""
    ids = seed(tmp_path / "sessions.db")
    steps = on(
        lambda: TrajectoryViewer(ids["agent"]),
        keys("l"),
        opens(ForkDialog, "f"),
        opens(Workspace, "enter"),
    )
    assert snap_compare(research_app(tmp_path), terminal_size=SMALL, run_before=steps)
