"""Study mode, continued: the per-task time limit on the workspace's active clock (an injected
clock, never a real wait), and the join screen `play --study NAME` without `--as` (and every
`serve --study` connection) opens on."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.command import CommandPalette
from textual.widgets import Input

from crmarena_tui.screens.join_screen import JoinScreen
from crmarena_tui.screens.result_screen import ResultScreen
from crmarena_tui.screens.submit_dialog import SubmitDialog
from crmarena_tui.screens.task_browser import TaskBrowser
from crmarena_tui.screens.workspace import Workspace
from crmarena_tui.storage import Store
from crmarena_tui.storage.end_reason import end_reason
from crmarena_tui.studies import db
from crmarena_tui.widgets.task_list import TaskList
from tests.screens.test_app_active_time import T0, Clock
from tests.support.app_support import SIZE, screen_text
from tests.support.app_support import wait_for_workers as settle
from tests.support.study_app_support import make_study, queue_keys, study_app


async def test_the_time_limit_warns_then_ends_the_task_unanswered(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    make_study(path, "--time-limit", "2", "--show-grade", "never")
    clock = Clock()
    app = study_app(path, "--as", "ann", clock=clock, wall_clock=clock.wall)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("enter")
        await settle(pilot, app)
        workspace = app.screen
        assert isinstance(workspace, Workspace)
        assert "00:00 of 02:00" in screen_text(app)  # the clock shows the limit
        clock.now = 59.0
        workspace.clock_part.check_time_limit()  # (the clock part checks every second)
        assert not list(app._notifications)
        clock.now = 61.0
        workspace.clock_part.check_time_limit()
        await settle(pilot, app)
        [warning] = list(app._notifications)
        assert warning.title == "Time limit" and "One minute left" in warning.message

        await pilot.press("ctrl+s")  # the answer is being written when time runs out
        await settle(pilot, app)
        assert isinstance(app.screen, SubmitDialog)
        clock.now = 120.0
        workspace.clock_part.check_time_limit()
        await settle(pilot, app)
        result = app.screen
        assert isinstance(result, ResultScreen)
        assert workspace not in app.screen_stack  # the dialog and the task are gone
        text = screen_text(app)
        assert "Time limit reached: the task ended with no answer." in text
        assert "Reward" not in text and "n: next task (1 of 3 done)" in text
        assert workspace.episode.finished
        with pytest.raises(Exception, match="cannot run a query"):
            workspace.episode.execute("SELECT Id FROM Case")  # nothing more is accepted

    with Store(path) as store:
        [session] = store.sessions()
        grade = store.grade(session.id)
        assert session.status == "submitted" and session.active_seconds == 120.0
        assert session.ended_at.timestamp() == T0 + 120.0
        assert grade is not None and grade.reward == 0.0 and grade.answer == ""
        reason = end_reason(session, store.events(session.id), grade)
        assert reason == "time limit reached (study pilot: 2 min of active time per task)"


async def test_an_answer_in_time_is_kept_and_paused_time_does_not_count(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    make_study(path, "--time-limit", "1")
    clock = Clock()
    app = study_app(path, "--as", "bob", clock=clock, wall_clock=clock.wall)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("enter")
        await settle(pilot, app)
        workspace = app.screen
        clock.now = 30.0
        await pilot.press("f6")  # a pause stops the clock, and with it the limit
        await settle(pilot, app)
        clock.now = 500.0
        await pilot.press("enter")
        await settle(pilot, app)
        clock.now = 520.0
        workspace.clock_part.check_time_limit()
        await settle(pilot, app)
        assert app.screen is workspace  # 50 s of active time: under the minute
        from tests.support.app_support import submit

        await submit(pilot, app, "None")
        assert "Reward" in screen_text(app)  # after-submit: the grade shows
    with Store(path) as store:
        [session] = store.sessions()
        assert session.active_seconds == 50.0
        assert "end_reason" not in store.grade(session.id).metrics


async def test_the_join_screen_asks_for_name_and_code_before_anything_else(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setattr(JoinScreen, "REFUSAL_DELAY", 0.0)
    monkeypatch.setenv("CRMARENA_TUI_PARTICIPANT", "someone-else")  # a study ignores the setting
    path = tmp_path / "sessions.db"
    codes = make_study(path)
    app = study_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        join = app.screen
        assert isinstance(join, JoinScreen)
        text = screen_text(app)
        assert "Study pilot" in text and "join code" in text
        assert "Task" not in text and app.participant is None
        assert "palette" not in text  # the footer offers only quit
        await pilot.press("ctrl+p")  # no command palette before joining
        await settle(pilot, app)
        assert app.screen is join and not CommandPalette.is_open(app)

        async def attempt(name: str, code: str) -> str:
            join.query_one("#join-name", Input).value = name
            join.query_one("#join-code", Input).value = code
            join.query_one("#join-code", Input).focus()
            await pilot.press("enter")
            await settle(pilot, app)
            return screen_text(app)

        text = await attempt("ann", "WRONG1")
        assert "That name and join code do not match. Check them" in text
        assert app.screen is join and join.query_one("#join-code", Input).value == ""
        text = await attempt("zed", codes["ann"])  # an unknown name: the very same words
        assert "That name and join code do not match. Check them" in text
        assert "bob" not in text  # an unknown name learns no one's name
        await attempt("ann", codes["ann"].lower())
        browser = app.screen
        assert isinstance(browser, TaskBrowser) and app.participant.name == "ann"
        assert "as ann" in screen_text(app)
        shown = [t.key for t in browser.query_one("#tasks", TaskList).visible_tasks()]
        assert shown == queue_keys(path, "ann")
        await pilot.press("ctrl+p")
        await settle(pilot, app)
        assert CommandPalette.is_open(app)  # joined: the palette is back


async def test_a_closed_study_takes_no_one_at_the_join_screen(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(JoinScreen, "REFUSAL_DELAY", 0.0)
    path = tmp_path / "sessions.db"
    codes = make_study(path)
    app = study_app(path)
    with Store(path) as store:
        db.close_study(store, "pilot")  # closed after the app started
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        join = app.screen
        join.query_one("#join-name", Input).value = "ann"
        join.query_one("#join-code", Input).value = codes["ann"]
        join.query_one("#join-code", Input).focus()
        await pilot.press("enter")
        await settle(pilot, app)
        assert app.screen is join
        assert "Study 'pilot' is closed: it takes no more work." in screen_text(app)
        assert app.participant is None
