"""A 2,000-row result switched to JSON (`ctrl+j`) does not freeze the app (issue 36): its text is
written in pieces, and a key pressed meanwhile reaches the pane it was meant for, in order."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.widgets import Input, TextArea

from crmarena_tui.widgets.results_view import JSON_PIECE, ResultsView
from tests.screens.test_app_workspace import fake_app, run
from tests.support.app_support import SIZE, FakeOrg, open_task, wait_for_workers
from tests.support.pilot_wait_support import wait_until


async def test_a_key_is_handled_while_a_2000_row_json_is_written(tmp_path: Path) -> None:
    app = fake_app(tmp_path, FakeOrg(n_cases=2000))
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await run(pilot, app, "SELECT Id, Subject FROM Case")
        view = app.screen.query_one(ResultsView)
        area = app.screen.query_one("#result-json", TextArea)
        workspace, seen = app.screen, {}
        scratch = workspace.action_scratch

        def spy() -> None:  # what the JSON was when the second key was handled
            seen.update(lines=area.document.line_count, loading=getattr(view, "json_loading", 0))
            scratch()

        workspace.action_scratch = spy  # type: ignore[method-assign]
        for key in ("ctrl+j", "ctrl+o"):  # JSON, then the scratch pane: pressed at once
            app.post_message(events.Key(key, None))
        # The key gate (app/key_gate.py) hands ctrl+o on in order, once the screen has settled
        # (at most its BUSY_LIMIT later): never lost, never to another field.
        await wait_until(
            pilot,
            lambda: (
                isinstance(app.screen.focused, Input) and app.screen.focused.id == "scratch-input"
            ),
            "the scratch pane's input to have the focus",
        )
        assert "lines" in seen  # the second key was handled, by the scratch pane
        await wait_for_workers(pilot, app)
        assert not view.json_loading
        assert '"totalSize": 2000' in area.text and '"Broken widget 1999"' in area.text
        assert area.document.line_count > 10_000
        assert area.text.rstrip().endswith("}")  # whole: the last piece closes the object


async def test_back_to_the_table_while_the_json_is_written_stops_it(tmp_path: Path) -> None:
    app = fake_app(tmp_path, FakeOrg(n_cases=2000))
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await run(pilot, app, "SELECT Id, Subject FROM Case")
        view = app.screen.query_one(ResultsView)
        area = app.screen.query_one("#result-json", TextArea)
        app.post_message(events.Key("ctrl+j", None))
        # the second ctrl+j once the JSON's first piece is in (not after a wait for the app to
        # idle: that wait lasts up to 1 s, by when most of the JSON was written)
        await wait_until(
            pilot, lambda: area.document.line_count >= JSON_PIECE, "the JSON's first piece"
        )
        await pilot.press("ctrl+j")
        await wait_for_workers(pilot, app)
        assert not view.json_mode and not view.json_loading and view.table.display
