"""The task browser: all tasks shown, `/` + typing narrows, facets, statuses, load errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Input, Select

from crmarena_tui.screens.task_browser import TaskBrowser
from crmarena_tui.widgets.task_list import TaskList
from tests.support.app_support import SIZE, make_app, wait_for_workers, write_many_tasks


async def test_browser_lists_every_task_and_slash_typing_narrows(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, TaskBrowser)
        tasks = app.screen.query_one("#tasks", TaskList)
        assert tasks.row_count == 44
        await pilot.press("slash")
        assert isinstance(app.screen.focused, Input)
        await pilot.press(*"handle time")
        assert {t.task for t in tasks.visible_tasks()} == {"handle_time"}
        assert tasks.row_count == 2
        await pilot.press(*" least")
        assert [t.task for t in tasks.visible_tasks()] == ["handle_time"]
        await pilot.press("escape")
        assert tasks.row_count == 44


async def test_typing_in_the_list_goes_to_the_filter(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen.focused, TaskList)
        await pilot.press(*"quote")
        assert app.screen.query_one("#filter", Input).value == "quote"
        visible = app.screen.query_one("#tasks", TaskList).visible_tasks()
        assert visible and all("quote" in (t.query + t.task).lower() for t in visible)


async def test_facets_narrow_by_metric(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        app.screen.query_one("#facet-metric", Select).value = "fuzzy_match"
        await pilot.pause()
        visible = app.screen.query_one("#tasks", TaskList).visible_tasks()
        assert {t.reward_metric for t in visible} == {"fuzzy_match"}
        assert {t.task for t in visible} == {"knowledge_qa", "sales_insight_mining"}
        app.screen.query_one("#facet-metric", Select).clear()  # back to "any metric"
        await pilot.pause()
        assert len(app.screen.query_one("#tasks", TaskList).visible_tasks()) == 44


async def test_ten_thousand_tasks_filter(tmp_path: Path) -> None:
    path = write_many_tasks(tmp_path / "many.json", 10_000)
    app = make_app(tmp_path, tasks=path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        tasks = app.screen.query_one("#tasks", TaskList)
        assert tasks.row_count == 10_000
        await pilot.press("slash", *"#100043")
        assert [t.idx for t in tasks.visible_tasks()][:1] == [100043]
        await pilot.press("end")  # the cursor can reach the last row of a long list
        await pilot.press("escape")
        tasks.focus()
        await pilot.press("end")
        assert tasks.current is not None and tasks.current.idx == 100000 + 9_999


async def test_a_broken_task_file_is_reported_not_fatal(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"idx": 1}]))
    app = make_app(tmp_path, tasks=bad)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        assert app.is_running
        text = str(app.screen.query_one("#count").render())
        assert "Cannot load tasks" in text and "bad.json" in text


@pytest.mark.perf
async def test_a_filter_key_that_shows_the_same_tasks_lays_nothing_out(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        await pilot.press("slash", *"quote")
        shown = app.screen.query_one("#tasks", TaskList).visible_tasks()
        layouts: list[int] = []
        real = app.screen._refresh_layout

        def spy(*args: object, **kw: object) -> None:
            layouts.append(1)
            real(*args, **kw)  # type: ignore[arg-type]

        app.screen._refresh_layout = spy  # type: ignore[method-assign]
        await pilot.press("space", "space")  # the same words: the same tasks
        assert app.screen.query_one("#filter", Input).value == "quote  "
        assert app.screen.query_one("#tasks", TaskList).visible_tasks() == shown
        assert layouts == []  # only the input repainted, not the whole screen laid out again
