"""Snapshots of the screens in blind mode (`play --blind`: no type, metric or idx shown) and in
study mode (`play --study NAME`: the join screen, the participant's queue, a study task, the study
screen). See `screen_snapshot_support` for what keeps them deterministic; the study is the one
`study create --seed 7` makes over six sample tasks."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.pilot import Pilot

from crmarena_tui.app.app import CrmArenaApp
from crmarena_tui.screens.join_screen import JoinScreen
from crmarena_tui.screens.result_screen import ResultScreen
from crmarena_tui.screens.study_screen import StudyScreen
from crmarena_tui.screens.workspace import Workspace
from tests.support.app_support import SAMPLE, open_task, submit
from tests.support.app_trajectory_support import T0
from tests.support.pilot_wait_support import wait_until
from tests.support.screen_snapshot_support import (
    SIZES,
    SMALL,
    keys,
    play_app,
    seed_statuses,
    stable_sample,
    then_still,
)
from tests.support.study_app_support import make_study, study_app

pytestmark = pytest.mark.snapshot


def blind_app(tmp_path: Path) -> CrmArenaApp:
    sample = stable_sample()  # blind order hashes the rows' keys, which hold the file's path
    seed_statuses(tmp_path / "sessions.db", sample)
    return play_app(tmp_path, sample, blind=True)


def study(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *play_args: str) -> CrmArenaApp:
    """The study's task file named by a relative path (the study screen shows it as given)."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(SAMPLE, tmp_path / SAMPLE.name)
    path = tmp_path / "sessions.db"
    make_study(path, tasks=Path(SAMPLE.name))  # 6 tasks, one participant each: 3 for ann, 3 for bob
    return study_app(path, *play_args, clock=lambda: 0.0, wall_clock=lambda: T0 + 3600)


async def opened_first(pilot: Pilot) -> None:
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, Workspace), "the first task")


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_snapshot_blind_browser(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:
    assert snap_compare(blind_app(tmp_path), terminal_size=size, run_before=then_still())


def test_snapshot_blind_workspace(snap_compare, tmp_path: Path) -> None:
    async def opened(pilot: Pilot) -> None:
        await open_task(pilot, pilot.app, "quote")

    steps = then_still(opened)
    assert snap_compare(blind_app(tmp_path), terminal_size=SMALL, run_before=steps)


def test_snapshot_blind_result(snap_compare, tmp_path: Path) -> None:
    async def answered(pilot: Pilot) -> None:
        await open_task(pilot, pilot.app, "quote")
        await submit(pilot, pilot.app, "None")
        assert isinstance(pilot.app.screen, ResultScreen)

    steps = then_still(answered)
    assert snap_compare(blind_app(tmp_path), terminal_size=SMALL, run_before=steps)


def test_snapshot_study_join(snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def asked(pilot: Pilot) -> None:
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, JoinScreen), "the join")

    assert snap_compare(
        study(tmp_path, monkeypatch), terminal_size=SMALL, run_before=then_still(asked)
    )


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_snapshot_study_queue(
    snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    app = study(tmp_path, monkeypatch, "--as", "ann")
    assert snap_compare(app, terminal_size=size, run_before=then_still())


def test_snapshot_study_workspace(
    snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = study(tmp_path, monkeypatch, "--as", "ann")
    assert snap_compare(app, terminal_size=SMALL, run_before=then_still(opened_first))


def test_snapshot_study_screen(
    snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def answered(pilot: Pilot) -> None:  # one task done, so the progress shows it
        await submit(pilot, pilot.app, "None")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(pilot.app.screen, ResultScreen), "back")

    async def progress(pilot: Pilot) -> None:
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, StudyScreen), "the study")

    app = study(tmp_path, monkeypatch, "--as", "ann")
    steps = then_still(opened_first, answered, keys(), progress)
    assert snap_compare(app, terminal_size=SMALL, run_before=steps)
