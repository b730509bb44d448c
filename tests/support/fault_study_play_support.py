"""A study participant working their whole queue in the app (`play --study pilot --as ann`),
headless: each task opened from the browser, a query run, "None" submitted, back to the
browser. Picks up wherever an earlier run stopped (a task in progress resumes). Run as a script
(`python fault_study_play_support.py SESSIONS.db`) by tests/cli/test_fault_kill.py, which kills it
part-way.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from tests.support.app_support import SIZE
from tests.support.app_support import wait_for_workers as settle
from tests.support.study_app_support import study_app

QUERY = "SELECT Id, Subject FROM Case"


async def work_queue(path: Path) -> None:
    from crmarena_tui.screens.pause_screen import PauseScreen
    from crmarena_tui.screens.result_screen import ResultScreen
    from crmarena_tui.screens.task_browser import TaskBrowser
    from crmarena_tui.screens.workspace import Workspace
    from crmarena_tui.storage import Store
    from crmarena_tui.studies import db

    def states() -> list[str]:
        with Store(path) as store:
            seat = db.seat(store, "pilot", "ann")
            return [state for _, state in db.queue_status(store, seat)]

    app = study_app(path, "--as", "ann")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        if set(states()) != {"done"}:
            assert isinstance(app.screen, TaskBrowser), app.screen
            nxt = next(k for k, state in enumerate(states()) if state != "done")
            await pilot.press(*["down"] * nxt, "enter")  # the queue's next task
            await settle(pilot, app)
        while isinstance(app.screen, PauseScreen | Workspace):
            if isinstance(app.screen, PauseScreen):
                await pilot.press("k")  # its clock starts with a key
                await settle(pilot, app)
            workspace = app.screen
            assert isinstance(workspace, Workspace), workspace
            workspace.episode.execute(QUERY)
            await pilot.press("ctrl+s")
            await settle(pilot, app)
            field = app.screen.focused
            assert field is not None and field.id == "answer"
            field.value = "None"  # type: ignore[attr-defined]
            await pilot.press("enter")
            await settle(pilot, app)
            assert isinstance(app.screen, ResultScreen), app.screen
            if set(states()) == {"done"}:
                break
            await pilot.press("n")  # the next task of the queue
            await settle(pilot, app)
        assert set(states()) == {"done"}, "the queue was not finished"


if __name__ == "__main__":
    asyncio.run(work_queue(Path(sys.argv[1])))
