"""Active time: idle time becomes an automatic pause that active time leaves out (an injected
clock, never a real wait); sessions keep wall time too; `n` starts the next task's clock only
with a key."""

from __future__ import annotations

from pathlib import Path

from crmarena_tui.app.app import CrmArenaApp, PlayOptions
from crmarena_tui.reports.summary import build_report
from crmarena_tui.screens.pause_screen import PauseScreen
from crmarena_tui.screens.result_screen import ResultScreen
from crmarena_tui.screens.task_browser import TaskBrowser
from crmarena_tui.screens.workspace import Workspace
from crmarena_tui.storage import Store
from crmarena_tui.storage.exporter import session_rows
from crmarena_tui.widgets.step_list import build_steps
from tests.support.app_support import SAMPLE, SIZE, FakeOrg, open_task, screen_text, submit
from tests.support.app_support import wait_for_workers as settle

T0 = 1_735_689_600.0


class Clock:
    """Seconds since the test began: the on-screen clock reads it, events are stamped T0 + it."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def wall(self) -> float:
        return T0 + self.now


def app_for(tmp_path: Path, clock: Clock) -> CrmArenaApp:
    org = FakeOrg()
    options = PlayOptions(
        tasks=str(SAMPLE),
        participant="ann",
        db=tmp_path / "sessions.db",
        clock=clock,
        wall_clock=clock.wall,
    )
    return CrmArenaApp(options, org_factory=lambda org_type: org)


async def test_idle_time_is_an_automatic_pause_and_active_time_leaves_it_out(
    tmp_path: Path,
) -> None:
    clock = Clock()
    app = app_for(tmp_path, clock)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        workspace = app.screen
        assert isinstance(workspace, Workspace)
        clock.now = 100.0
        await pilot.press("x")  # typing: the participant is here
        clock.now = 100.0 + 119.0
        workspace.clock_part.check_idleness()  # (the clock part checks every few seconds)
        await settle(pilot, app)
        assert app.screen is workspace and not workspace.episode.paused  # not idle long enough

        clock.now = 100.0 + 121.0  # two minutes without a key or the mouse
        workspace.clock_part.check_idleness()
        await settle(pilot, app)
        assert isinstance(app.screen, PauseScreen) and app.screen.kind == "idle"
        assert "No key or mouse input for 2 minutes" in screen_text(app)
        assert "Does the price and setup" not in screen_text(app)  # the task is hidden
        pause = workspace.episode.events[-1]
        assert pause.kind == "pause" and pause.payload["auto"] is True
        assert pause.payload["idle_seconds"] == 121.0 and pause.ts.timestamp() == T0 + 221.0
        assert workspace.clock.paused and workspace.clock.seconds == 221.0

        clock.now = 821.0  # ten minutes away, then any key
        await pilot.press("space")
        await settle(pilot, app)
        assert app.screen is workspace and not workspace.episode.paused
        resume = workspace.episode.events[-1]
        assert resume.kind == "resume" and resume.ts.timestamp() == T0 + 821.0

        clock.now = 851.0
        await submit(pilot, app, "None")
        assert isinstance(app.screen, ResultScreen)
        assert "Time 04:11" in screen_text(app)  # 221 s + 30 s, not the 851 s on the wall

    store = Store(tmp_path / "sessions.db")
    [session] = store.sessions()
    assert session.active_seconds == 251.0 and session.wall_seconds == 851.0
    [row] = list(session_rows(store))
    assert (row["active_seconds"], row["wall_seconds"], row["blind"]) == (251.0, 851.0, False)
    [time_row, _all] = build_report(store)["human_time"]  # reports read active time
    assert time_row["median_s"] == 251.0
    summaries = [step.summary for step in build_steps(store.events(session.id))]
    assert "paused: no input for 121 s" in summaries  # the viewer tells it from an f6 pause


async def test_idle_pause_waits_for_its_setting_and_a_manual_pause_is_not_auto(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("CRMARENA_TUI_IDLE_PAUSE_MINUTES", "5")
    clock = Clock()
    app = app_for(tmp_path, clock)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        workspace = app.screen
        clock.now = 200.0  # over two minutes, under five
        workspace.clock_part.check_idleness()
        await settle(pilot, app)
        assert app.screen is workspace
        clock.now = 301.0
        workspace.clock_part.check_idleness()
        await settle(pilot, app)
        assert isinstance(app.screen, PauseScreen)
        assert "5 minutes" in screen_text(app)
        await pilot.press("enter")
        await settle(pilot, app)
        await pilot.press("f6")  # a manual pause: logged without the `auto` mark
        await settle(pilot, app)
        assert isinstance(app.screen, PauseScreen) and app.screen.kind == "manual"
        await pilot.press("x")  # a manual pause needs f6 or enter
        assert isinstance(app.screen, PauseScreen)
        pauses = [e.payload for e in workspace.episode.events if e.kind == "pause"]
        assert pauses[0]["auto"] is True and pauses[1] == {}


async def test_n_shows_the_next_task_and_starts_its_clock_with_a_key(tmp_path: Path) -> None:
    clock = Clock()
    app = app_for(tmp_path, clock)
    db = tmp_path / "sessions.db"
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        first = app.screen.task_row
        await submit(pilot, app, "None")
        clock.now = 50.0  # the expert reads the result for a while, then presses n
        await pilot.press("n")
        await settle(pilot, app)
        gate = app.screen
        assert isinstance(gate, PauseScreen) and gate.kind == "start"
        assert "Next:" in screen_text(app) and "press any key" in screen_text(app).lower()
        assert len(Store(db).sessions()) == 1  # no session (no clock) for the next task yet
        behind = app.screen_stack[-2]
        assert isinstance(behind, Workspace)  # nothing moves behind the overlay: a loading
        assert not behind.query_one("#ws-body").loading  # indicator there repainted it all
        clock.now = 400.0  # a break before starting: not on anyone's clock
        await pilot.press("k")
        await settle(pilot, app)
        workspace = app.screen
        assert isinstance(workspace, Workspace) and workspace.task_row.key != first.key
        assert workspace.episode.session.started_at.timestamp() == T0 + 400.0
        assert not workspace.episode.paused and not workspace.clock.paused  # working
        assert not workspace.query_one("#ws-body").loading

        clock.now = 460.0
        await submit(pilot, app, "None")
        await pilot.press("n")
        await settle(pilot, app)
        await pilot.press("escape")  # back to the tasks from the gate: nothing is started
        await settle(pilot, app)
        assert isinstance(app.screen, TaskBrowser)
        assert len(Store(db).sessions()) == 2


async def test_the_wait_for_a_session_to_open_is_not_the_participants_idle_time(
    tmp_path: Path,
) -> None:
    """On a loaded machine a session took minutes to open after the key that opened it: counted
    as the participant's idle time, it paused the task as it appeared (and the next key typed
    into the editor only ended the pause). Idleness counts from the opening at the earliest."""
    clock = Clock()

    class SlowOrg(FakeOrg):
        def describe(self):  # the opening reads the schema: it takes 150 s here
            clock.now += 150.0
            return super().describe()

    org = SlowOrg()
    options = PlayOptions(
        tasks=str(SAMPLE), participant="ann", db=tmp_path / "sessions.db", clock=clock
    )
    app = CrmArenaApp(options, org_factory=lambda org_type: org)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")  # the last key at 0 s, open at 150 s
        workspace = app.screen
        assert isinstance(workspace, Workspace) and clock.now == 150.0
        clock.now = 150.0 + 60.0  # a minute after it opened, three and a half after the key
        workspace.clock_part.check_idleness()
        await settle(pilot, app)
        assert app.screen is workspace and not workspace.episode.paused

        clock.now = 150.0 + 121.0  # two minutes with the task on screen and no key
        workspace.clock_part.check_idleness()
        await settle(pilot, app)
        assert isinstance(app.screen, PauseScreen) and app.screen.kind == "idle"
        pause = workspace.episode.events[-1]
        assert pause.kind == "pause" and pause.payload["idle_seconds"] == 121.0
