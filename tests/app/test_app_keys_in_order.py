"""No key is lost or lands in the wrong place (issue 36), under the pilot: keys posted to the app
in one burst, as a terminal delivers fast typing, before any of them is handled. The real
terminal, with keys at 0, 50, 200 and 1,000 ms, is tests/cli/test_tty_keys.py."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual import events
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input, Static

from crmarena_tui.app.app import CrmArenaApp
from crmarena_tui.screens.join_screen import JoinScreen
from crmarena_tui.screens.leave_dialog import LeaveDialog
from crmarena_tui.screens.submit_dialog import SubmitDialog, WhichAnswer
from crmarena_tui.screens.workspace import Workspace
from crmarena_tui.widgets.query_editor import QueryEditor
from crmarena_tui.widgets.results_table import ResultsTable
from tests.screens.test_app_workspace import fake_app, run
from tests.support.app_support import SIZE, open_task, screen_text, wait_for_workers
from tests.support.pilot_wait_support import wait_until
from tests.support.study_app_support import make_study, study_app

NAMES = {" ": "space", "(": "left_parenthesis", ")": "right_parenthesis", "'": "apostrophe"}


def burst(app: App, *keys: str) -> None:
    """Post every key at once: a name (`enter`, `ctrl+r`) or a text typed character by
    character (`text:...`)."""
    for key in keys:
        if key.startswith("text:"):
            for ch in key.removeprefix("text:"):
                app.post_message(events.Key(NAMES.get(ch, ch), ch))
        else:
            app.post_message(events.Key(key, None))


async def settle(pilot: Pilot, app: CrmArenaApp) -> None:
    """Until every key posted is handed on and what it started is done."""
    for _ in range(3):  # a key handed on may start a worker, whose end may release held keys
        await wait_until(pilot, lambda: app.key_gate.idle, "every key handed on")
        await wait_for_workers(pilot, app)
    await wait_until(pilot, lambda: app.key_gate.idle, "every key handed on")


def queries(app: App) -> list[str]:
    episode = app.screen.episode
    return [e.text for e in episode.events if e.kind == "query"]


async def test_a_query_and_ctrl_r_typed_as_the_task_opens_run_in_it(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        await pilot.press("slash")
        app.screen.query_one("#filter", Input).value = "quote approval"
        burst(app, "enter", "text:SELECT Id FROM Case", "ctrl+r")
        await settle(pilot, app)
        assert isinstance(app.screen, Workspace)
        assert queries(app) == ["SELECT Id FROM Case"]
        assert "Run a query with ctrl+r" not in screen_text(app)


async def test_tab_then_typing_in_the_submit_dialog_goes_where_the_marker_is(
    tmp_path: Path,
) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await run(pilot, app, "SELECT Id FROM Case")
        burst(app, "ctrl+s", "tab", "text:zq")
        await settle(pilot, app)
        dialog = app.screen
        assert isinstance(dialog, SubmitDialog)
        assert dialog.query_one("#pick-filter", Input).value == "zq"
        assert dialog.query_one("#answer", Input).value == ""
        assert str(dialog.query_one("#section-picks", Static).content).startswith("▶")


async def test_f2_then_ctrl_a_replaces_the_query_in_the_editor(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await run(pilot, app, "SELECT Id FROM Case")
        await pilot.press("tab")
        assert isinstance(app.screen.focused, ResultsTable)
        burst(app, "f2", "ctrl+a", "text:SELECT Id FROM Account", "ctrl+r")
        await settle(pilot, app)
        assert queries(app) == ["SELECT Id FROM Case", "SELECT Id FROM Account"]


async def test_typed_text_and_marked_items_ask_which_is_sent(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await run(pilot, app, "SELECT Id FROM Case")
        burst(app, "ctrl+s", "text:None", "down", "space", "ctrl+s")
        await settle(pilot, app)
        assert isinstance(app.screen, WhichAnswer)  # nothing sent, nothing dropped
        text = screen_text(app)
        assert "Which answer is sent?" in text and "the typed text: None" in text
        await pilot.press("x")
        assert "'x' was not applied" in screen_text(app)
        await pilot.press("escape")  # back to the dialog
        assert isinstance(app.screen, SubmitDialog)
        await pilot.press("ctrl+s", "m")  # the marked items this time
        await wait_for_workers(pilot, app)
        store = app.sessions_store()
        [session] = store.sessions(status="submitted")
        [event] = [e for e in store.events(session.id) if e.kind == "submit"]
        assert event.text != "None"  # the marked Id was sent, not the typed text


async def test_escape_puts_the_completion_away_and_asks_before_leaving(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        workspace = app.screen
        await pilot.press(*"SELECT Id FROM Ca")
        await wait_for_workers(pilot, app)
        hint = workspace.query_one("#completions", Static)
        assert "Case" in str(hint.content)  # the completion is shown
        await pilot.press("escape")
        assert str(hint.content) == "" and app.screen is workspace  # put away, still here
        await pilot.press(*"se", "ctrl+r")  # `Case` typed out, run: the hint is put away too
        await wait_for_workers(pilot, app)
        await pilot.press("tab")  # so tab moves to the results, as documented
        assert isinstance(workspace.focused, ResultsTable)
        await pilot.press("f2", "escape")
        assert isinstance(app.screen, LeaveDialog)
        await pilot.press("escape")
        assert app.screen is workspace and isinstance(workspace.focused, QueryEditor)


async def test_keys_typed_while_a_join_code_is_checked_go_to_the_code(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setattr(JoinScreen, "REFUSAL_DELAY", 0.05)
    path = tmp_path / "sessions.db"
    make_study(path)
    app = study_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        join = app.screen
        assert isinstance(join, JoinScreen)
        join.query_one("#join-name", Input).value = "ann"
        join.query_one("#join-code", Input).value = "WRONG1"
        join.set_focus(join.query_one("#join-code", Input))
        burst(app, "enter", "text:abc")  # typed while the wrong code is being checked
        await settle(pilot, app)
        assert "do not match" in screen_text(app)
        assert join.query_one("#join-code", Input).value == "abc"


async def test_ctrl_a_and_a_query_typed_as_a_task_resumes_replace_its_last_query(
    tmp_path: Path,
) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await run(pilot, app, "SELECT Id FROM Case")
        await pilot.press("escape", "enter")  # leave the task (the list has the focus on it)
        await wait_for_workers(pilot, app)
        burst(app, "enter", "ctrl+a", "text:SELECT Id FROM Account", "ctrl+r")
        await settle(pilot, app)
        assert queries(app) == ["SELECT Id FROM Case", "SELECT Id FROM Account"]


async def test_ctrl_r_waits_for_the_keys_before_it_even_on_a_busy_screen(
    tmp_path: Path, monkeypatch
) -> None:
    """A loaded machine keeps the screen busy past the gate's BUSY_LIMIT, so ctrl+r (a priority
    binding, acted on by the app at once) can come while the query's keys still wait in the
    screen's queue; it runs the query as typed, not what of it had reached the editor (served to
    eight participants at once under load: no query ran)."""
    from crmarena_tui.app import key_gate
    from crmarena_tui.screens.workspace_query import WorkspaceQuery

    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await settle(pilot, app)
        monkeypatch.setattr(key_gate, "BUSY_LIMIT", 0.0)  # the gate gives up on busy at once
        looked = asyncio.Event()
        run_text = WorkspaceQuery.run_editor_text

        def spy(self: WorkspaceQuery, waited: float = 0.0) -> None:
            looked.set()
            run_text(self, waited)

        monkeypatch.setattr(WorkspaceQuery, "run_editor_text", spy)
        screen_free = asyncio.Event()

        async def busy_screen() -> None:  # the screen's queue stops here, as on a loaded machine
            await screen_free.wait()

        app.screen.call_later(busy_screen)
        burst(app, "text:SELECT Id FROM Case", "ctrl+r")
        await asyncio.wait_for(looked.wait(), timeout=30)  # ctrl+r acted on, the screen busy
        screen_free.set()
        await settle(pilot, app)
        assert queries(app) == ["SELECT Id FROM Case"]
