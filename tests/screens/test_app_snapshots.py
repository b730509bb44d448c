"""Snapshots of the main screens (review a diff before `--snapshot-update`).

Deterministic: the sample task file, a fixed fake org, a temporary database seeded with fixed
statuses, a frozen on-screen clock and frozen event timestamps, no cursor blink.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from crmarena_tui.app.app import CrmArenaApp, PlayOptions
from crmarena_tui.graders import Grade
from crmarena_tui.storage import Store
from crmarena_tui.tasks.model import Task
from crmarena_tui.widgets.results_table import ResultsTable
from tests.support.app_support import SAMPLE, SIZE, FakeOrg, open_task, submit, wait_for_workers
from tests.support.spec_support import session_spec

pytestmark = pytest.mark.snapshot

T0 = 1_735_689_600.0  # 2025-01-01T00:00:00Z


def _app(tmp_path: Path, tasks: Path = SAMPLE) -> CrmArenaApp:
    org = FakeOrg()
    return CrmArenaApp(
        PlayOptions(
            tasks=str(tasks),
            participant="ann",
            db=tmp_path / "sessions.db",
            clock=lambda: 0.0,
            wall_clock=lambda: T0,
        ),
        org_factory=lambda org_type: org,
    )


def _seed_statuses(db: Path) -> None:
    """One task submitted (reward 1) and one in progress, so the status column shows both."""
    rows = json.loads(SAMPLE.read_text())
    tasks = [Task(**{**r, "source": str(SAMPLE.resolve())}) for r in rows[:2]]
    store = Store(db, clock=lambda: T0)
    ann = store.participant("human", "ann")
    done = store.create_session(session_spec(ann, tasks[0], "local", "fake"))
    store.set_status(done.id, "submitted", ended_at=T0 + 60, active_seconds=60)
    store.add_grade(
        done.id,
        Grade(
            answer="x", parsed_answer=["x"], reward=1.0, grader="exact_match", extraction="strip"
        ),
        graded_at=T0,
    )
    store.create_session(session_spec(ann, tasks[1], "local", "fake"))
    store.close()


async def _still(pilot: Pilot) -> None:
    await wait_for_workers(pilot, pilot.app)
    for widget in pilot.app.screen.query("Input, TextArea"):
        if isinstance(widget, Input | TextArea):
            widget.cursor_blink = False
    await pilot.pause()


def test_snapshot_task_browser(snap_compare, tmp_path: Path) -> None:
    _seed_statuses(tmp_path / "sessions.db")
    assert snap_compare(_app(tmp_path), terminal_size=SIZE, run_before=_still)


def test_snapshot_workspace_with_results(snap_compare, tmp_path: Path) -> None:
    async def work(pilot: Pilot) -> None:
        await open_task(pilot, pilot.app, "quote approval")
        pilot.app.screen.query_one("#editor", TextArea).load_text("SELECT Id, Subject FROM Case")
        await pilot.press("ctrl+r")
        await _still(pilot)
        # The editor's cursor is drawn or not depending on when its blink timer last fired: with
        # the results table focused the picture no longer depends on timing.
        pilot.app.screen.query_one(ResultsTable).focus()
        await pilot.pause()

    assert snap_compare(_app(tmp_path), terminal_size=SIZE, run_before=work)


def test_snapshot_result_screen(snap_compare, tmp_path: Path) -> None:
    async def work(pilot: Pilot) -> None:
        await open_task(pilot, pilot.app, "quote approval")
        gold = pilot.app.screen.task_row.gold[0]
        await submit(pilot, pilot.app, gold)
        await _still(pilot)

    assert snap_compare(_app(tmp_path), terminal_size=SIZE, run_before=work)


def test_snapshot_interactive_workspace(snap_compare, tmp_path: Path) -> None:
    path = tmp_path / "b2b_interactive.json"
    path.write_text(SAMPLE.read_text())

    async def work(pilot: Pilot) -> None:
        await open_task(pilot, pilot.app, "named entity")
        await pilot.press("ctrl+t")
        pilot.app.screen.focused.value = "Which product?"
        await pilot.press("enter")
        await _still(pilot)

    assert snap_compare(_app(tmp_path, path), terminal_size=SIZE, run_before=work)
