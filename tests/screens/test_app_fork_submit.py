"""A fork submitted from a result screen's trajectory (issue 28): result screen, `v`, `f`,
"Continue as me", `ctrl+s`, an answer, `enter` crashed the app with DuplicateIds because the new
result screen had the same id as the one still on the stack."""

from __future__ import annotations

from pathlib import Path

from crmarena_tui.app.app import CrmArenaApp, PlayOptions
from crmarena_tui.screens.fork_dialog import ForkDialog
from crmarena_tui.screens.result_screen import ResultScreen
from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer
from crmarena_tui.screens.workspace import Workspace
from crmarena_tui.storage import Store
from crmarena_tui.widgets.query_editor import QueryEditor
from tests.support.app_support import (
    SAMPLE,
    SIZE,
    FakeOrg,
    open_task,
    screen_text,
    submit,
    wait_for_workers,
)


def _app(tmp_path: Path) -> CrmArenaApp:
    org = FakeOrg()
    options = PlayOptions(tasks=str(SAMPLE), participant="ann", db=tmp_path / "sessions.db")
    return CrmArenaApp(options, org_factory=lambda org_type: org)


async def test_a_fork_submitted_from_the_result_screen_shows_its_own_result(
    tmp_path: Path,
) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        app.screen.query_one("#editor", QueryEditor).load_text("SELECT Id FROM Case")
        await pilot.press("ctrl+r")  # one query, so the trajectory has a step to fork after
        await wait_for_workers(pilot, app)
        await submit(pilot, app, "None")
        first_result = app.screen
        assert isinstance(first_result, ResultScreen)

        await pilot.press("v")
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, TrajectoryViewer)
        await pilot.press("0")  # the first step: the query
        await pilot.press("f")
        assert isinstance(app.screen, ForkDialog)
        await pilot.press("enter")  # continue as me, in the workspace
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, Workspace) and app.screen.fork
        fork_id = app.screen.episode.session_id

        await submit(pilot, app, "ka0Dm000000xyzAAA")
        assert app.is_running
        assert isinstance(app.screen, ResultScreen) and app.screen is not first_result
        assert "Reward" in screen_text(app)

    store = Store(tmp_path / "sessions.db")
    fork = store.session(fork_id)
    assert fork.status == "submitted" and fork.kind == "fork"
