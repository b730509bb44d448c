"""The workspace: editor, results, history, completion, JSON, errors, pause, leaving and resuming."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Markdown, TextArea

from crmarena_tui.app.app import CrmArenaApp, PlayOptions
from crmarena_tui.screens.pause_screen import PauseScreen
from crmarena_tui.screens.task_browser import TaskBrowser
from crmarena_tui.screens.workspace import Workspace
from crmarena_tui.widgets.query_editor import QueryEditor
from crmarena_tui.widgets.results_table import ResultsTable
from tests.support.app_support import (
    SAMPLE,
    SIZE,
    FakeOrg,
    open_task,
    screen_text,
    wait_for_workers,
)
from tests.support.pilot_wait_support import palette_highlights, wait_until


def fake_app(tmp_path: Path, org: FakeOrg | None = None, **kw) -> CrmArenaApp:
    org = org or FakeOrg()
    return CrmArenaApp(
        PlayOptions(tasks=str(SAMPLE), participant="ann", db=tmp_path / "sessions.db", **kw),
        org_factory=lambda org_type: org,
    )


async def run(pilot, app, query: str) -> None:
    editor = app.screen.query_one("#editor", QueryEditor)
    editor.load_text(query)
    await pilot.press("ctrl+r")
    await wait_for_workers(pilot, app)


async def test_enter_opens_the_task_blind_with_the_editor_focused(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        assert isinstance(app.screen, Workspace)
        assert app.screen.task_row.task == "quote_approval"
        assert isinstance(app.screen.focused, QueryEditor)
        panel = app.screen.query_one("#task-text", Markdown).source
        assert "comply with company policy" in panel  # the request
        assert "0Q0Wt000001WOwHKAW" in panel  # required metadata
        assert "Domain Details" not in panel  # optional metadata: aided mode only
        text = screen_text(app)
        assert "Does the price and setup of this quote" in text
        for gold in app.screen.task_row.gold:
            assert gold not in text and gold not in panel  # blind: no ground truth


async def test_ctrl_r_runs_the_query_logs_it_toggles_json_and_marks_errors(tmp_path: Path) -> None:
    org = FakeOrg(n_cases=3)
    app = fake_app(tmp_path, org)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await run(pilot, app, "SELECT Id, Subject FROM Case")
        table = app.screen.query_one("#result-table", ResultsTable)
        assert table.row_count == 3
        assert "3 records" in screen_text(app)
        assert org.queries == ["SELECT Id, Subject FROM Case"]
        kinds = [e.kind for e in app.screen.episode.events]
        assert kinds[-2:] == ["query", "observation"]  # logged by the Episode

        await pilot.press("ctrl+j")
        area = app.screen.query_one("#result-json", TextArea)
        assert area.display and '"totalSize": 3' in area.text and '"Broken widget 0"' in area.text
        await pilot.press("ctrl+j")
        assert not area.display and table.display

        await run(pilot, app, "SELEC Id FROM Case")
        text = screen_text(app)
        assert "MALFORMED_QUERY: unexpected token: 'SELEC'" in text
        assert "ERROR at Row:1:Column:1" in text
        assert table.row_count == 0
        assert app.screen.episode.events[-1].kind == "error"


async def test_editor_history_and_completion(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await run(pilot, app, "SELECT Id FROM Account")
        await run(pilot, app, "SELECT Id FROM Case")
        editor = app.screen.query_one("#editor", QueryEditor)
        editor.load_text("SELECT Name")
        await pilot.press("up")
        assert editor.text == "SELECT Id FROM Case"
        await pilot.press("up")
        assert editor.text == "SELECT Id FROM Account"
        await pilot.press("down", "down")
        assert editor.text == "SELECT Name"  # the draft comes back

        editor.load_text("SELECT Id FROM ")
        editor.move_cursor(editor.document.end)
        await pilot.press(*"Acc", "tab")
        assert editor.text == "SELECT Id FROM Account"
        editor.load_text("SELECT Id,  FROM Case")
        editor.move_cursor((0, 11))
        await pilot.press(*"Subj", "tab")
        assert editor.text == "SELECT Id, Subject FROM Case"


async def test_pause_hides_the_task_and_stops_the_clock(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        workspace = app.screen
        await pilot.press("f6")
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, PauseScreen)
        text = screen_text(app)
        assert "Paused" in text and "Does the price and setup" not in text
        assert workspace.episode.paused
        await pilot.press("f6")
        await wait_for_workers(pilot, app)
        assert app.screen is workspace and not workspace.episode.paused
        kinds = [e.kind for e in workspace.episode.events]
        assert kinds[-2:] == ["pause", "resume"]


async def test_leaving_and_reopening_resumes_the_session(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        first = app.screen.episode.session_id
        await run(pilot, app, "SELECT Id FROM Case")
        await pilot.press("escape", "enter")
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, TaskBrowser)
        assert app.screen.index.status(app.screen.task_list.current).state == "in progress"
        await pilot.press("enter")
        await wait_for_workers(pilot, app)
        assert app.screen.episode.session_id == first
        editor = app.screen.query_one("#editor", QueryEditor)
        assert editor.text == "SELECT Id FROM Case"
        assert editor.past_queries == ["SELECT Id FROM Case"]


async def test_a_killed_app_keeps_what_was_shown(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await run(pilot, app, "SELECT Id FROM Case")
        session_id = app.screen.episode.session_id
    # The app ended without leaving the workspace: the next app resumes with the query in place.
    app2 = fake_app(tmp_path)
    async with app2.run_test(size=SIZE) as pilot:
        await open_task(pilot, app2, "quote approval")
        assert app2.screen.episode.session_id == session_id
        assert app2.screen.query_one("#editor", QueryEditor).past_queries == ["SELECT Id FROM Case"]


async def test_a_failing_org_is_reported_not_fatal(tmp_path: Path) -> None:
    def broken(org_type: str):
        raise OSError("org file unreadable")

    app = CrmArenaApp(
        PlayOptions(tasks=str(SAMPLE), participant="ann", db=tmp_path / "s.db"), org_factory=broken
    )
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        assert app.is_running and isinstance(app.screen, Workspace)
        assert "cannot open the session: org file unreadable" in screen_text(app)
        assert any("org file unreadable" in str(n.message) for n in app._notifications)
        await pilot.press("escape")  # nothing opened: no question
        assert isinstance(app.screen, TaskBrowser)


async def test_footer_bindings_are_in_the_command_palette(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        workspace = app.screen
        titles = [c.title for c in app.get_system_commands(workspace)]
        for wanted in ("Run query", "Submit", "JSON", "Records", "Pause", "Back"):
            assert wanted in titles
        workspace.query_one("#editor", QueryEditor).load_text("SELECT Id FROM Case")
        await pilot.press("ctrl+p")
        await pilot.press(*"Run q")
        await wait_until(pilot, lambda: palette_highlights(app, "Run query"), "Run query offered")
        await pilot.press("enter")
        await wait_for_workers(pilot, app)
        assert app.screen is workspace
        assert workspace.query_one("#result-table", ResultsTable).row_count == 3
