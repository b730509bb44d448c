"""Watching an external agent live: its session (written by another Store, as the `mcp` server's
process writes it) is in the sessions list while it runs, and the viewer on it shows new steps as
they arrive, then its end and reward, and stops reading."""

from __future__ import annotations

from pathlib import Path

from crmarena_tui.screens.sessions_screen import SessionsScreen
from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer
from crmarena_tui.session.org_pool import OrgPool
from crmarena_tui.session.service import SessionService
from crmarena_tui.session.task_queue import TaskQueue
from crmarena_tui.settings.config import Settings
from crmarena_tui.storage import Store
from crmarena_tui.widgets.step_list import StepList
from tests.support.app_support import SIZE, FakeOrg, screen_text, wait_for_workers
from tests.support.app_trajectory_support import push, research_app, sample_task
from tests.support.pilot_wait_support import wait_until

GOLD = "005Wt000003NIvNIAW"  # sample task 883's answer


async def test_an_external_agents_session_is_watched_live(tmp_path: Path) -> None:
    queue = TaskQueue(
        Store(tmp_path / "sessions.db"),
        [sample_task(883)],
        SessionService(Settings(protocol="workbench")),
        orgs=OrgPool(None, factory=lambda org_type: FakeOrg()),
    )
    env = queue.next_task("claude-code/2.1")
    env.execute_soql("SELECT Id, Subject FROM Case")
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, SessionsScreen())
        listed = screen_text(app)
        assert "claude-code/2.1" in listed and "in progress" in listed
        await pilot.press("escape")
        await push(pilot, TrajectoryViewer(env.session_id))
        viewer = app.screen
        assert isinstance(viewer, TrajectoryViewer)
        steps = viewer.query_one("#tv-steps", StepList)
        assert [s.kind for s in steps.steps] == ["query"]
        env.execute_soql("SELECT Id FROM Account")  # the agent goes on, in "another process"
        took = await wait_until(pilot, lambda: len(steps.steps) == 2, "the new step")
        assert took < 2.0
        assert steps.cursor == 1  # following the newest step
        assert env.respond(GOLD) == "Submitted."
        await wait_until(pilot, lambda: viewer.data.session.status == "submitted", "its end")
        await wait_for_workers(pilot, app)
        top = screen_text(app)
        assert "submitted" in top and "reward 1.00" in top
        assert viewer.feed.tail_timer is None  # an ended session is not read again


async def test_the_sessions_list_shows_an_external_agents_sessions_as_they_come(
    tmp_path: Path,
) -> None:
    """The list looks every two seconds whether sessions were added or finished by another
    process (an MCP server), and reads itself again then (no f5)."""
    queue = TaskQueue(
        Store(tmp_path / "sessions.db"),
        [sample_task(883), sample_task(1087)],
        SessionService(Settings(protocol="workbench")),
        orgs=OrgPool(None, factory=lambda org_type: FakeOrg()),
    )
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, SessionsScreen())
        screen = app.screen
        assert isinstance(screen, SessionsScreen) and "claude-code/2.1" not in screen_text(app)
        env = queue.next_task("claude-code/2.1")  # the agent starts a task, in "another process"
        env.execute_soql("SELECT Id FROM Case")
        await wait_until(pilot, lambda: "claude-code/2.1" in screen_text(app), timeout=8)
        assert "in progress" in screen_text(app)
        env.respond(GOLD)  # and finishes it
        await wait_until(pilot, lambda: "submitted" in screen_text(app), timeout=8)
        assert app.screen is screen
