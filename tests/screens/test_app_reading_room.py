"""Reading and room (issue 36): titled panes with the focused one marked, `f10` maximizes and
restores the focused pane, `f1` lists the screen's keys, the footer never shows a cut key, empty
lists say what to do, the result screen scrolls by keyboard at 80x24, a fork says where from."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.widgets import TabbedContent

from crmarena_tui.screens.base_screen import FOCUS_MARK
from crmarena_tui.screens.keys_screen import KeysScreen
from crmarena_tui.screens.result_screen import ResultScreen
from crmarena_tui.screens.workspace import Workspace
from crmarena_tui.widgets.results_table import ResultsTable
from tests.screens.test_app_workspace import fake_app, run
from tests.support.app_support import SIZE, open_task, screen_text, submit, wait_for_workers
from tests.support.pilot_wait_support import wait_until

QUOTE = "quote approval"


def marked_titles(app) -> list[str]:
    return [str(p.border_title) for p in app.screen.query(".panel") if p.border_title]


async def test_panes_are_titled_and_only_the_focused_one_is_marked(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, QUOTE)
        titles = marked_titles(app)
        assert titles == ["Task", f"{FOCUS_MARK}Query · SOQL or SOSL", "Results"], titles
        await run(pilot, app, "SELECT Id, Subject FROM Case")
        app.screen.query_one(ResultsTable).focus()
        await pilot.pause()
        assert marked_titles(app) == ["Task", "Query · SOQL or SOSL", f"{FOCUS_MARK}Results"]
        await pilot.press("ctrl+o")  # the scratch tab: the pane's title follows the tab
        await wait_for_workers(pilot, app)
        assert marked_titles(app)[-1] == f"{FOCUS_MARK}Scratch"
        assert f"{FOCUS_MARK}Scratch" in screen_text(app)


async def footer_shows(pilot, app, key: str) -> None:
    """Wait for the key bar to show `key` whole: a relabelled key is drawn at its new width
    once the next layout is done, a frame after the key press."""
    await wait_until(pilot, lambda: key in screen_text(app).splitlines()[-1], f"{key} shown")


async def test_f10_maximizes_the_focused_pane_and_restores_it(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_task(pilot, app, QUOTE)
        await run(pilot, app, "SELECT Id, Subject FROM Case")
        screen = app.screen
        screen.query_one(ResultsTable).focus()
        await footer_shows(pilot, app, "f10 Maximize")
        await pilot.press("f10")
        assert screen.maximized is screen.query_one("#ws-tabs", TabbedContent)
        await footer_shows(pilot, app, "f10 Restore")
        text = screen_text(app)
        assert "Task" not in text and "SELECT Id, Subject" not in text  # the other panes gone
        assert "Broken widget 2" in text
        await pilot.press("f10")
        assert screen.maximized is None and "SELECT Id, Subject" in screen_text(app)
        await footer_shows(pilot, app, "f10 Maximize")
        await pilot.press("f10", "escape")  # escape restores too, and stays in the workspace
        assert screen.maximized is None and app.screen is screen
        screen.editor.focus()
        await pilot.press("f10")
        assert screen.maximized is screen.editor


async def test_f1_lists_the_keys_of_the_screen_even_those_the_footer_hides(
    tmp_path: Path,
) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_task(pilot, app, QUOTE)
        workspace = app.screen
        assert "^o Scratch" not in screen_text(app)  # no room in the footer at 80 columns
        await pilot.press("f1")
        assert isinstance(app.screen, KeysScreen)
        text = screen_text(app)
        assert "Keys · workspace" in text
        for keys, what in (("^r", "Run query"), ("^o", "Scratch"), ("f10", "Maximize")):
            assert re.search(rf"{re.escape(keys)}\s+{what}", text), (keys, what)
        assert "Cursor word left" not in text  # the editor's own editing keys are left out
        await pilot.press("escape")
        assert app.screen is workspace


@pytest.mark.parametrize("width", [80, 90, 100])
async def test_the_footer_shows_only_whole_keys(tmp_path: Path, width: int) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=(width, 24)) as pilot:
        await open_task(pilot, app, QUOTE)
        footer = screen_text(app).splitlines()[-1]
        keys, _, palette = footer.partition("▏")
        assert palette.strip() == "^p palette", footer
        shown = [
            f"{app.get_key_display(b.binding)} {b.binding.description}"
            for b in app.screen.active_bindings.values()
            if b.binding.show
        ]
        whole = ""
        for pair in shown:  # the keys shown are the first ones, each whole
            rest = keys[len(whole) :]
            if rest.startswith(pair) and rest[len(pair) : len(pair) + 1] in (" ", ""):
                whole += f"{pair} "
        assert keys.rstrip() == whole.rstrip(), footer


async def test_an_empty_filter_says_what_matched_nothing_and_how_to_undo_it(
    tmp_path: Path,
) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_workers(pilot, app)
        await pilot.press("slash", *"qqq zzz")
        assert "No task matches 'qqq zzz': escape clears the filter" in screen_text(app)
        await pilot.press("escape")
        assert "No task matches" not in screen_text(app)


async def test_the_result_screen_scrolls_by_keyboard_at_80x24(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_task(pilot, app, QUOTE)
        await submit(pilot, app, "The article is " + "ka0Dm000000xyzAAA " * 40)  # a long one
        assert isinstance(app.screen, ResultScreen)
        assert "escape: back to the tasks" not in screen_text(app)  # below the fold
        await pilot.press("end")
        assert "escape: back to the tasks" in screen_text(app)
        await pilot.press("home")
        assert "Reward" in screen_text(app)


async def test_a_forks_workspace_says_what_it_forks_and_after_which_step(
    tmp_path: Path,
) -> None:
    from crmarena_tui.screens.fork_dialog import ForkDialog
    from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer

    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, QUOTE)
        await run(pilot, app, "SELECT Id FROM Case")
        await run(pilot, app, "SELECT Id, Subject FROM Case")
        parent = app.screen.episode.session_id
        await submit(pilot, app, "None")
        await pilot.press("v")
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, TrajectoryViewer)
        await pilot.press("0", "l", "f")  # after the second step
        assert isinstance(app.screen, ForkDialog)
        await pilot.press("enter")
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, Workspace) and app.screen.fork
        assert f"fork of #{parent} after step 2 · 2 queries so far" in screen_text(app)


async def test_the_first_run_line_keeps_its_prefix_at_80_columns(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_workers(pilot, app)
        browser = app.screen
        browser._say("first run (~15 s):")
        browser.show_org_progress("b2b", 0.4, "tasks, events, calls, sales emails and more")
        await pilot.pause()
        line = screen_text(app).splitlines()[-2]
        assert line.startswith(" first run (~15 s):"), line  # the prefix whole
        assert "building demo b2b org: tasks" in line, line
        assert "…" in line  # the build's text is the one cut


def test_no_match_names_what_left_none_and_how_to_undo_it() -> None:
    from crmarena_tui.screens.empty_states import no_match

    assert no_match("task", " x y z ", total=44) == (
        "No task matches 'x y z': escape clears the filter"
    )
    assert no_match("session", "", total=9) == "No session has these choices: set one back to any"
    assert no_match("task", "x", faceted=True, total=3).startswith("No task matches 'x' with")
    assert no_match("task", "x", total=0) == ""  # an empty list by itself says nothing
    assert no_match("task", "", faceted=False, total=5) == ""
