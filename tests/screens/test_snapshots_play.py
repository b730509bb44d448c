"""Snapshots of the screens a player works in: the task browser, the workspace and its dialogs
(submit, pause, save, agent setup), the result, the agent run and the name asked at first start.
See `screen_snapshot_support` for what keeps them deterministic."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, Select, TextArea

from crmarena_tui.scratch import expression_evaluator, result_tables
from crmarena_tui.screens.agent_run_screen import AgentRunScreen
from crmarena_tui.screens.agent_setup_dialog import AgentSetupDialog
from crmarena_tui.screens.name_dialog import NameDialog
from crmarena_tui.screens.pause_screen import PauseScreen
from crmarena_tui.screens.result_screen import ResultScreen
from crmarena_tui.screens.save_dialog import SaveDialog
from crmarena_tui.screens.submit_dialog import SubmitDialog
from crmarena_tui.screens.user_play_screen import UserPlayScreen
from crmarena_tui.widgets.results_table import ResultsTable
from tests.fakes.scripted_llm import register_script, unregister_script
from tests.support.app_support import SAMPLE, open_task, screen_text, submit
from tests.support.pilot_wait_support import wait_until
from tests.support.screen_snapshot_support import (
    LARGE,
    SIZES,
    SMALL,
    Steps,
    keys,
    play_app,
    seed_statuses,
    still,
    then_still,
)

pytestmark = pytest.mark.snapshot

QUOTE = "quote approval"  # a single-turn sample task with a one-Id answer
HANDLE = "handle time"


def opened(words: str = QUOTE) -> Steps:
    async def step(pilot: Pilot) -> None:
        await open_task(pilot, pilot.app, words)

    return step


async def queried(pilot: Pilot) -> None:
    """The query run, its records shown, the results table focused (the editor's cursor is drawn
    or not depending on when its blink timer last fired)."""
    pilot.app.screen.query_one("#editor", TextArea).load_text("SELECT Id, Subject FROM Case")
    await pilot.press("ctrl+r")
    await wait_until(pilot, lambda: "3 records" in _text(pilot), "the query's records")
    pilot.app.screen.query_one(ResultsTable).focus()


def _text(pilot: Pilot) -> str:
    return screen_text(pilot.app)


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_snapshot_browser(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:
    seed_statuses(tmp_path / "sessions.db")
    assert snap_compare(play_app(tmp_path), terminal_size=size, run_before=then_still())


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_snapshot_workspace(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:
    steps = then_still(opened(), queried)
    assert snap_compare(play_app(tmp_path), terminal_size=size, run_before=steps)


def test_snapshot_submit_dialog(snap_compare, tmp_path: Path) -> None:
    async def dialog(pilot: Pilot) -> None:
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, SubmitDialog), "the dialog")

    steps = then_still(opened(), dialog)
    assert snap_compare(play_app(tmp_path), terminal_size=SMALL, run_before=steps)


def test_snapshot_result(snap_compare, tmp_path: Path) -> None:
    async def answered(pilot: Pilot) -> None:
        await submit(pilot, pilot.app, pilot.app.screen.task_row.gold[0])
        assert isinstance(pilot.app.screen, ResultScreen)

    steps = then_still(opened(), answered)
    assert snap_compare(play_app(tmp_path), terminal_size=SMALL, run_before=steps)


def test_snapshot_pause(snap_compare, tmp_path: Path) -> None:
    async def paused(pilot: Pilot) -> None:
        await pilot.press("f6")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, PauseScreen), "the pause")

    steps = then_still(opened(), paused)
    assert snap_compare(play_app(tmp_path), terminal_size=SMALL, run_before=steps)


def test_snapshot_save_dialog(snap_compare, tmp_path: Path, monkeypatch) -> None:
    # The scratch output says how long it took: always 0 ms here.
    frozen = SimpleNamespace(perf_counter=lambda: 0.0, monotonic=time.monotonic)
    monkeypatch.setattr(result_tables, "time", frozen)
    monkeypatch.setattr(expression_evaluator, "time", frozen)

    async def saving(pilot: Pilot) -> None:
        await pilot.press("ctrl+o")
        field = pilot.app.screen.focused
        assert isinstance(field, Input)
        field.value = "SELECT Subject FROM r1"
        await pilot.press("enter")
        await wait_until(pilot, lambda: "3 rows × 1 column" in _text(pilot), "the output")
        await pilot.press("f9")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, SaveDialog), "the dialog")

    steps = then_still(opened(), queried, saving)
    assert snap_compare(play_app(tmp_path), terminal_size=SMALL, run_before=steps)


def test_snapshot_agent_setup(snap_compare, tmp_path: Path) -> None:
    async def setup(pilot: Pilot) -> None:
        await pilot.press("slash")
        pilot.app.screen.query_one("#filter", Input).value = HANDLE
        await pilot.pause()
        await pilot.press("ctrl+g")  # on the first task the filter lets through
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, AgentSetupDialog), "setup")

    steps = then_still(keys(), setup)
    assert snap_compare(play_app(tmp_path), terminal_size=SMALL, run_before=steps)


def test_snapshot_agent_run_paused(snap_compare, tmp_path: Path) -> None:
    async def run(pilot: Pilot) -> None:
        await pilot.press("ctrl+g")
        dialog = pilot.app.screen
        assert isinstance(dialog, AgentSetupDialog)
        dialog.query_one("#setup-paused", Checkbox).value = True
        await pilot.press("ctrl+s")
        await wait_until(
            pilot,
            lambda: isinstance(s := pilot.app.screen, AgentRunScreen) and s.driver.waiting,
            "the agent paused before its first step",
        )

    async def steps(pilot: Pilot) -> None:  # (the paused agent's worker waits: no waiting on it)
        await opened(HANDLE)(pilot)
        await run(pilot)
        await wait_until(pilot, lambda: "paused" in _text(pilot), "the paused state drawn")
        await pilot.pause()

    assert snap_compare(play_app(tmp_path), terminal_size=SMALL, run_before=steps)


def test_snapshot_name_dialog(snap_compare, tmp_path: Path) -> None:
    async def asked(pilot: Pilot) -> None:
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, NameDialog), "the question")
        await still(pilot)

    app = play_app(tmp_path, participant=None)
    assert snap_compare(app, terminal_size=SMALL, run_before=asked)


def test_snapshot_interactive_workspace_large(snap_compare, tmp_path: Path) -> None:
    """A chat task at the large size: the conversation beside the editor."""
    path = tmp_path / "b2b_interactive.json"
    path.write_text(SAMPLE.read_text())

    async def chatted(pilot: Pilot) -> None:
        await pilot.press("ctrl+t")
        field = pilot.app.screen.focused
        assert isinstance(field, Input)
        field.value = "Which product?"
        await pilot.press("enter")

    steps = then_still(opened("named entity"), chatted)
    assert snap_compare(play_app(tmp_path, path), terminal_size=LARGE, run_before=steps)


def test_snapshot_user_play(snap_compare, tmp_path: Path) -> None:
    """A human plays the user of a chat task for a model agent: the hidden brief shown, the
    agent waiting for the opening message."""
    register_script(
        "snapshot-helper", lambda: ["<thought>ask</thought><respond>Which product?</respond>"]
    )
    path = tmp_path / "b2b_interactive.json"  # the file name marks the tasks interactive
    path.write_text(SAMPLE.read_text())

    async def steps(pilot: Pilot) -> None:  # (the agent's worker waits for the human: no waiting)
        await opened("named entity")(pilot)
        await pilot.press("ctrl+g")
        dialog = pilot.app.screen
        assert isinstance(dialog, AgentSetupDialog)
        dialog.query_one("#setup-agent", Select).value = "model"
        await pilot.pause()
        dialog.query_one("#setup-model", Input).value = "scripted/snapshot-helper"
        dialog.query_one("#setup-user", Select).value = "human"
        await pilot.press("ctrl+s")
        screen = pilot.app.screen
        assert isinstance(screen, UserPlayScreen)
        await wait_until(
            pilot,
            lambda: screen.human.waiting and not screen.chat.input.disabled,
            "the agent waiting for the opening",
        )
        screen.chat.input.cursor_blink = False
        await pilot.pause()

    app = play_app(tmp_path, path, protocol="workbench")
    try:
        assert snap_compare(app, terminal_size=SMALL, run_before=steps)
    finally:
        unregister_script("snapshot-helper")
