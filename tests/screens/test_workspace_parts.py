"""The workspace's parts run their own workers: a part's failed worker is shown once, as every
screen's is, and leaves the workspace usable (Textual gives a worker's state to the widget that
runs it, so a part reports it itself; nothing reaches the screen's handler)."""

from __future__ import annotations

from pathlib import Path

import pytest

from crmarena_tui.screens.workspace import Workspace
from crmarena_tui.session.episode import Episode
from crmarena_tui.widgets.query_editor import QueryEditor
from crmarena_tui.widgets.record_browser import RecordBrowser
from tests.screens.test_app_workspace import fake_app, run
from tests.support.app_support import (
    SIZE,
    FakeOrg,
    open_task,
    screen_text,
    submit,
    wait_for_workers,
)


class FailingGet(FakeOrg):
    """An org whose record lookup fails (a backend down mid-session)."""

    def get(self, object_name: str, record_id: str):
        raise ConnectionError("the org went away")


def notes(app) -> list[tuple[str, str]]:
    return [(n.title, n.message) for n in app._notifications]


async def test_a_failed_grading_says_so_and_the_workspace_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: Episode, *args, **kwargs):
        raise RuntimeError("grader crashed")

    monkeypatch.setattr(Episode, "submit", broken)
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        workspace = app.screen
        assert isinstance(workspace, Workspace)
        await submit(pilot, app, "Yes")
        assert app.screen is workspace  # no result screen: nothing was graded
        assert ("submit failed", "RuntimeError: grader crashed") in notes(app)
        assert "submission failed" in screen_text(app)  # the state line
        await pilot.press("ctrl+s")  # not stuck "grading": the dialog opens again
        await wait_for_workers(pilot, app)
        assert app.screen.query_one("#answer").value == "Yes"  # the draft kept


async def test_a_failed_record_read_says_so_and_queries_still_run(tmp_path: Path) -> None:
    org = FailingGet()
    app = fake_app(tmp_path, org)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        workspace = app.screen
        assert isinstance(workspace, Workspace)
        workspace.query_one("#records", RecordBrowser).open_id("001000000000001AAA")
        await wait_for_workers(pilot, app)
        assert ("records failed", "ConnectionError: the org went away") in notes(app)
        await run(pilot, app, "SELECT Id FROM Case")
        assert org.queries[-1] == "SELECT Id FROM Case"
        assert "1 queries" in screen_text(app)  # the state line: the query part still works
        assert isinstance(workspace.focused, QueryEditor)
