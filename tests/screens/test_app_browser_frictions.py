"""The browser-side frictions of issue 14: the filter and the list, an 80x24 terminal, `v` after
an agent's run, the agent setup dialog (`space`, pace), and which sessions database is in use."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Checkbox, Input

from crmarena_tui.app.app import CrmArenaApp, PlayOptions
from crmarena_tui.app.commands import about_text
from crmarena_tui.screens.agent_setup_dialog import AgentSetupDialog
from crmarena_tui.screens.result_screen import ResultScreen
from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer
from crmarena_tui.widgets.task_list import TaskList, layout
from tests.screens.test_app_agent import demo_app, halted, start_agent, until
from tests.screens.test_app_workspace import fake_app
from tests.support.app_support import SAMPLE, make_app, open_task, screen_text, submit
from tests.support.app_support import wait_for_workers as settle
from tests.support.pilot_wait_support import palette_highlights, wait_until

SMALL = (80, 24)


def footer(app: CrmArenaApp) -> str:
    """The screen's last line (empty while a screen is switched and nothing is drawn yet)."""
    lines = screen_text(app).splitlines()
    return lines[-1] if lines else ""


async def test_down_from_the_filter_enters_the_list_and_slash_there_is_text(
    tmp_path: Path,
) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, app)
        await pilot.press("slash")
        filt = app.screen.query_one("#filter", Input)
        assert app.screen.focused is filt
        await pilot.press(*"a/b")  # a slash typed in the filter is text, not a second focus
        assert filt.value == "a/b" and app.screen.focused is filt
        filt.value = "handle"
        await pilot.pause()
        await pilot.press("down")
        tasks = app.screen.query_one("#tasks", TaskList)
        assert app.screen.focused is tasks and tasks.cursor == 0
        await pilot.press("down")  # and on down the list, as any list
        assert tasks.cursor == 1


def test_the_query_column_keeps_its_room_at_any_width() -> None:
    assert [name for name, _ in layout(200)] == [
        "Status",
        "#",
        "Type",
        "Org",
        "Mode",
        "Metric",
        "Query",
    ]
    for width in (100, 78, 60, 50):
        columns = layout(width)
        assert columns[-1][0] == "Query" and width - sum(w for _, w in columns) >= 30
    assert [name for name, _ in layout(78)] == ["Status", "#", "Type", "Org", "Mode", "Query"]
    assert [name for name, _ in layout(74)] == ["Status", "#", "Type", "Mode", "Query"]
    assert [name for name, _ in layout(74, blind=True)] == [
        "Status",
        "#",
        "Org",
        "Mode",
        "Query",
    ]


async def test_at_80x24_the_browser_shows_the_query_and_every_footer_esc_and_quit(
    tmp_path: Path,
) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, app)
        text = screen_text(app)
        assert "Query" in text and "Choose 'Not Started'" in text  # the first task's request
        assert footer(app).startswith("esc Clear filter ^q Quit")
        await pilot.press("f4")  # the sessions list
        await settle(pilot, app)
        assert "esc" in footer(app) and "^q" in footer(app)
        await pilot.press("escape", "f9")  # the report
        await settle(pilot, app)
        assert "esc" in footer(app) and "^q" in footer(app)
        await pilot.press("escape")
        await open_task(pilot, app, "quote approval")
        assert footer(app).startswith("esc Back ^q Quit")  # the workspace's ten keys
        await submit(pilot, app, "None")
        assert "esc" in footer(app) and "^q" in footer(app)
        await pilot.press("v")  # the viewer
        await settle(pilot, app)
        assert isinstance(app.screen, TrajectoryViewer)
        keys = "\n".join(screen_text(app).splitlines()[-3:])  # its key bar wraps
        assert "esc Back" in keys and "^q Quit" in keys


async def test_v_after_watching_an_agent_shows_the_agents_session(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await start_agent(pilot, app)
        await until(pilot, lambda: isinstance(app.screen, ResultScreen), "the result screen")
        await until(pilot, lambda: "^q" in footer(app), "the result screen drawn")
        assert footer(app).startswith("esc Tasks ^q Quit")
        await pilot.press("v")
        await settle(pilot, app)
        viewer = app.screen
        assert isinstance(viewer, TrajectoryViewer)
        assert viewer.session_id == screen.episode.session_id
        assert viewer.data is not None and viewer.data.participant.kind == "agent"


async def test_space_toggles_start_paused_and_pace_is_a_field(tmp_path: Path) -> None:
    app = make_app(tmp_path, pace=0.5)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+g")
        dialog = app.screen
        assert isinstance(dialog, AgentSetupDialog)
        paused = dialog.query_one("#setup-paused", Checkbox)
        assert not paused.value
        await pilot.press("space")  # the focus is on Start: space toggles "start paused"
        assert paused.value and isinstance(app.screen, AgentSetupDialog)
        await pilot.press("space")
        assert not paused.value
        pace = dialog.query_one("#setup-pace", Input)
        assert pace.value == "0.5"  # `--pace` is the default
        pace.value = "-2"
        assert dialog.config() is None  # refused, with a notice
        pace.value = "1.5"
        config = dialog.config()
        assert config is not None and config.pace == 1.5 and not config.start_paused


class Waits:
    """Stands in for the live view's pace gate: records each wait instead of sleeping."""

    def __init__(self) -> None:
        self.timeouts: list[float | None] = []

    def wait(self, timeout: float | None = None) -> bool:
        self.timeouts.append(timeout)
        return False

    def set(self) -> None:
        pass

    def clear(self) -> None:
        pass


async def test_a_paced_agent_waits_after_each_step_but_the_last(tmp_path: Path) -> None:
    app = CrmArenaApp(PlayOptions(participant="ann", db=tmp_path / "sessions.db", pace=0.75))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await start_agent(pilot, app, paused=True)
        await halted(pilot, screen, 0)
        waits = Waits()
        screen.agent_run._unpaced = waits  # type: ignore[assignment]
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen), "the result screen")
        assert waits.timeouts == [0.75, 0.75, 0.75]  # three queries, then the answer


async def test_the_app_names_its_sessions_database(tmp_path: Path, monkeypatch) -> None:
    db = tmp_path / "elsewhere.db"
    monkeypatch.setenv("CRMARENA_TUI_DB", str(db))
    app = CrmArenaApp(PlayOptions(tasks=str(SAMPLE), participant="ann"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        assert "elsewhere.db (from CRMARENA_TUI_DB)" in screen_text(app)  # the status line
        about = about_text(app)
        assert f"Sessions database: {db} (from CRMARENA_TUI_DB)" in about
        assert "Blind mode: off" in about and "Participant: ann" in about
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "About" in titles
        await pilot.press("ctrl+p")
        await pilot.press(*"About")
        await wait_until(pilot, lambda: palette_highlights(app, "About"), "About offered")
        await pilot.press("enter")
        await settle(pilot, app)
        assert any(str(db) in str(n.message) for n in app._notifications)
    monkeypatch.delenv("CRMARENA_TUI_DB")
    app = make_app(tmp_path)  # --db given on the command line: no reminder needed
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        assert "sessions:" not in screen_text(app)
        assert "(from --db)" in about_text(app)
