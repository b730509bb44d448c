"""The app on real tasks: a task, a re-run and a fork run on the imported upstream snapshot (the
re-run and fork of an imported upstream session say which org they use instead of the live one),
and with no real org the app says how to get one instead of using the demo org."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Input

from crmarena_tui.app.app import CrmArenaApp, PlayOptions
from crmarena_tui.cli import main
from crmarena_tui.screens.fork_dialog import ForkDialog
from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer
from crmarena_tui.screens.workspace import Workspace
from crmarena_tui.storage import Store
from tests.orgs.test_org_routing import real_task_file
from tests.support.app_support import SIZE, open_task, screen_text, wait_for_workers
from tests.support.app_trajectory_support import push
from tests.support.snapshot_support import private_org_dir, snapshot_of_demo
from tests.support.spec_support import session_spec

QUERY = "SELECT Id, Subject FROM Case ORDER BY Id LIMIT 3"


def seed_imported_session(db: Path, tasks: Path) -> int:
    """A session as `crmarena-tui import` stores upstream's trajectories: run on salesforce:b2b."""
    task = json.loads(tasks.read_text())[0]
    from crmarena_tui.tasks.loaders import load_task_file

    loaded = next(t for t in load_task_file(tasks) if t.idx == task["idx"])
    with Store(db) as store:
        who = store.participant("agent", "gpt-4o", model="gpt-4o")
        session = store.create_session(
            session_spec(who, loaded, "salesforce", "salesforce:b2b", blind=False)
        )
        store.append_event(session.id, "agent", "query", {"text": QUERY})
        store.append_event(session.id, "system", "observation", {"observation": "[]"})
        store.append_event(session.id, "agent", "submit", {"answer": "None"})
        return session.id


@pytest.fixture
def real(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    folder = private_org_dir(monkeypatch, tmp_path / "orgs")
    tasks = real_task_file(tmp_path / "real_b2b.json", "handle_time", 2)
    return {"folder": folder, "tasks": tasks, "db": tmp_path / "sessions.db"}


def fetched(tmp_path: Path) -> None:
    snap = snapshot_of_demo(tmp_path / "dl", "b2b")
    assert main(["org", "import", str(snap), "--today", "2025-11-03", "--quiet"]) == 0


def app_for(paths: dict[str, Path]) -> CrmArenaApp:
    return CrmArenaApp(
        PlayOptions(tasks=str(paths["tasks"]), participant="ann", db=paths["db"], blind=False)
    )


def notes(app: CrmArenaApp) -> str:
    return "\n".join(str(n.message) for n in app._notifications)


async def test_a_real_task_opens_on_the_snapshot(tmp_path: Path, real) -> None:
    fetched(tmp_path)
    app = app_for(real)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "handle time")
        assert isinstance(app.screen, Workspace)
        session = app.screen.episode.session
        assert (session.org_kind, session.org_ref) == ("upstream", "upstream:b2b")


async def test_without_a_real_org_the_app_says_how_to_get_one(tmp_path: Path, real) -> None:
    app = app_for(real)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "handle time")
        assert app.is_running
        assert "crmarena-tui org fetch b2b" in notes(app)
        assert "SALESFORCE_B2B_USERNAME" in notes(app)
    with Store(real["db"]) as store:
        assert store.sessions() == []  # nothing ran on the demo org


async def test_a_re_run_uses_the_snapshot_and_says_so(tmp_path: Path, real) -> None:
    fetched(tmp_path)
    session_id = seed_imported_session(real["db"], real["tasks"])
    app = app_for(real)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, TrajectoryViewer(session_id))
        await pilot.press("r")
        await wait_for_workers(pilot, app)
        assert "re-run against the current org: 3 records" in screen_text(app)
        assert "ran on salesforce:b2b" in notes(app) and "uses upstream:b2b" in notes(app)


async def test_a_fork_of_an_imported_session_runs_on_the_snapshot(tmp_path: Path, real) -> None:
    fetched(tmp_path)
    session_id = seed_imported_session(real["db"], real["tasks"])
    app = app_for(real)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, TrajectoryViewer(session_id))
        await pilot.press("f", "down", "down", "enter")
        dialog = app.screen
        assert isinstance(dialog, ForkDialog)
        dialog.query_one("#fork-model", Input).value = "reference"
        await pilot.press("enter")
        await wait_for_workers(pilot, app)
        assert "uses upstream:b2b" in notes(app)
    with Store(real["db"]) as store:
        child = next(s for s in store.sessions() if s.parent_session_id == session_id)
        assert (child.org_kind, child.org_ref) == ("upstream", "upstream:b2b")
        assert child.status == "submitted" and store.grade(child.id).reward == 1.0
