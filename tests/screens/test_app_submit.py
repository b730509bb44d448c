"""Submitting: the confirm dialog, the result screen (ground truth only now), status, next task."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from crmarena_tui.screens.pause_screen import PauseScreen
from crmarena_tui.screens.result_screen import ResultScreen
from crmarena_tui.screens.submit_dialog import SubmitDialog
from crmarena_tui.screens.task_browser import TaskBrowser
from crmarena_tui.screens.workspace import Workspace
from crmarena_tui.storage import Store
from tests.screens.test_app_workspace import fake_app, run
from tests.support.app_support import SIZE, open_task, screen_text, submit, wait_for_workers


async def test_submit_grades_reveals_the_truth_and_moves_on(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        task = app.screen.task_row
        gold = task.gold[0]
        assert gold not in screen_text(app)
        await run(pilot, app, "SELECT Id FROM Case")
        await submit(pilot, app, f"The quote violates {gold}.")
        assert isinstance(app.screen, ResultScreen)
        text = screen_text(app)
        assert "Reward 1.00" in text and "correct" in text
        assert "Ground truth" in text and gold in text
        assert "Queries 1" in text
        # the grade is stored with the session
        store = Store(tmp_path / "sessions.db")
        [session] = store.sessions(task_idx=task.idx)
        assert session.status == "submitted" and store.grade(session.id).reward == 1.0
        await pilot.press("escape")
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, TaskBrowser)
        status = app.screen.index.status(task)
        assert status.state == "submitted" and status.reward == 1.0
        assert "1.00" in screen_text(app)


async def test_cancel_then_a_wrong_answer_scores_zero_and_n_opens_the_next_task(
    tmp_path: Path,
) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        first = app.screen.task_row
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, SubmitDialog)
        assert isinstance(app.screen.focused, Input) and app.screen.focused.id == "answer"
        await pilot.press(*"draft", "escape")  # escape cancels: nothing is submitted
        assert isinstance(app.screen, Workspace) and not app.screen.episode.finished
        await submit(pilot, app, "None")
        assert isinstance(app.screen, ResultScreen)
        assert "Reward 0.00" in screen_text(app)
        await pilot.press("n")
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, PauseScreen) and app.screen.kind == "start"
        await pilot.press("x")  # the next task's clock starts with a key
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, Workspace)
        nxt = app.screen.task_row
        assert nxt.key != first.key and nxt.task == "quote_approval"  # next in the filtered list
        assert app.screen.episode is not None and not app.screen.episode.finished
