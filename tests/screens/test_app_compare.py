"""Compare and the sessions list: alignment of two and three sessions, the first divergence, the
summary rows, picking sessions (space, c, enter), filters, and the ways in (task browser, result)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Input

from crmarena_tui.reports.session_rows import load_index, task_outcomes, tasks_with_outcome
from crmarena_tui.screens.compare_screen import CompareScreen
from crmarena_tui.screens.sessions_screen import SessionsScreen
from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer
from crmarena_tui.storage import Store
from crmarena_tui.storage.listing import graded_attempts
from crmarena_tui.widgets.choice_chip import ChoiceChip
from crmarena_tui.widgets.compare_rows import align_sessions, first_divergence, summarise
from crmarena_tui.widgets.session_list import SessionList
from crmarena_tui.widgets.task_list import TaskList
from tests.support.app_support import SIZE, screen_text, submit, wait_for_workers
from tests.support.app_trajectory_support import (
    AGENT,
    Q1,
    Q1_HUMAN,
    Q2,
    Q3,
    SOURCE,
    push,
    research_app,
    seed,
)


@pytest.fixture
def ids(tmp_path: Path) -> dict[str, int]:
    return seed(tmp_path / "sessions.db")


def _texts(row) -> list[str | None]:
    return [None if ev is None else ev.text for ev in row.steps]


def test_alignment_of_two_and_three_sessions(tmp_path: Path, ids) -> None:
    store = Store(tmp_path / "sessions.db")
    agent, ann, bob = (store.events(ids[k]) for k in ("agent", "ann", "bob"))
    two = align_sessions([agent, ann])
    assert [_texts(r) for r in two] == [
        [Q1, Q1_HUMAN],
        [Q2, "SELECT Id FROM User"],
        [Q3, None],
        ["005Wt000003NIvNIAW", "None"],  # the answers face each other
    ]
    assert [r.same for r in two] == [True, False, False, False] and first_divergence(two) == 1
    three = align_sessions([agent, ann, bob])
    assert [_texts(r) for r in three] == [
        [Q1, Q1_HUMAN, Q1],
        [Q2, "SELECT Id FROM User", Q2],
        [Q3, None, "SELECT Id, Name FROM User"],
        ["005Wt000003NIvNIAW", "None", "005Wt000003NIvNIAW"],
    ]
    assert first_divergence(three) == 1
    same = align_sessions([agent, agent, agent])
    assert first_divergence(same) is None and len(same) == 4
    summary = summarise(
        store.session(ids["agent"]), store.get_participant(1), agent, store.grade(ids["agent"])
    )
    assert (summary.tokens, summary.queries, summary.errors, summary.win) == (5000, 3, 1, True)


def test_outcome_of_each_task_and_the_filters(tmp_path: Path, ids) -> None:
    store = Store(tmp_path / "sessions.db")
    index = load_index(store)
    outcomes = task_outcomes(graded_attempts(store))
    assert outcomes == {
        (SOURCE, 883): "both",
        (SOURCE, 887): "human_only",
        (SOURCE, 1483): "agent_only",
        (SOURCE, 1487): "neither",
    }

    def picked(outcome: str = "", **kw) -> set[int]:
        tasks = tasks_with_outcome(outcomes, outcome) if outcome else None
        return {index.rows[i].id for i in index.filter(tasks=tasks, **kw)}

    assert picked(outcome="human_only") == {ids["b_agent"], ids["b_ann"]}
    assert picked(outcome="agent_only") == {ids["c_agent"], ids["c_bob"]}
    assert picked(text="bob") == {ids["bob"], ids["c_bob"]}
    assert picked(kind="agent", outcome="neither") == {ids["d_agent"]}
    assert picked(text="case routing ann") == {ids["d_ann"]}


async def test_compare_marks_the_first_divergence_with_a_summary_row_each(
    tmp_path: Path, ids
) -> None:
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, CompareScreen([ids["agent"], ids["ann"]]))
        text = screen_text(app)
        assert "2 sessions · 4 aligned steps · first divergence at row 2" in text
        summary = app.screen.query_one("#cmp-summary", DataTable)
        rows = [[str(c) for c in summary.get_row_at(i)] for i in range(summary.row_count)]
        assert rows[0][1:4] == [f"#{ids['agent']}", f"{AGENT} (agent)", "005Wt000003NIvNIAW"]
        assert rows[0][4:] == ["1.00", "—", "1", "3", "1", "5,000", "$0.0400", "answer submitted"]
        assert rows[1][2:] == [
            "ann (human)",
            "None",
            "0.00",
            "1 min 35 s",
            "1",
            "2",
            "0",
            "—",
            "—",
            "answer submitted",
        ]
        grid = app.screen.query_one("#cmp-grid", DataTable)
        markers = [str(grid.get_row_at(i)[1]) for i in range(grid.row_count)]
        assert markers == ["=", "▶", "≠", "≠", "■"]
        assert grid.cursor_coordinate.row == 1  # on the divergence
        detail = screen_text(app).split("▔")[-1]  # the pane under the grid
        assert "B SELECT Id FROM User" in detail and f"A {Q2}" in detail
        await pilot.press("right", "enter")  # B's step in the viewer
        await wait_for_workers(pilot, app)
        viewer = app.screen
        assert isinstance(viewer, TrajectoryViewer) and viewer.session_id == ids["ann"]
        assert viewer.step_list.cursor == 1 and "SELECT Id FROM User" in screen_text(app)


async def test_compare_three_sessions(tmp_path: Path, ids) -> None:
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, CompareScreen([ids["agent"], ids["ann"], ids["bob"]]))
        grid = app.screen.query_one("#cmp-grid", DataTable)
        assert len(grid.columns) == 5 and grid.row_count == 5  # 4 steps and the end
        assert str(grid.get_row_at(2)[3]) == "—"  # ann ran no third query
        assert "bob" in screen_text(app)


async def test_sessions_of_a_task_pick_two_and_compare(tmp_path: Path, ids) -> None:
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, SessionsScreen((SOURCE, 883), title="handle time #883"))
        table = app.screen.query_one("#ss-table", SessionList)
        assert table.row_count == 3  # newest first
        assert [table.row_at(i).id for i in range(3)] == [ids[k] for k in ("bob", "ann", "agent")]
        await pilot.press("c")  # nothing marked: refused
        assert isinstance(app.screen, SessionsScreen)
        await pilot.press("space", "down", "space")  # bob, then the agent
        assert app.screen.marked == [ids["bob"], ids["agent"]]
        ticked = [line.split()[1] for line in screen_text(app).splitlines() if line[:1] == "✓"]
        assert ticked == ["Session", str(ids["bob"]), str(ids["agent"])]  # the header, two rows
        await pilot.press("c")
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, CompareScreen)
        assert app.screen.session_ids == [ids["bob"], ids["agent"]]
        await pilot.press("escape")
        await pilot.press("up", "enter")  # open one in the viewer
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, TrajectoryViewer)


async def test_sessions_filters_and_refusing_different_tasks(tmp_path: Path, ids) -> None:
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, SessionsScreen())
        screen = app.screen
        table = screen.query_one("#ss-table", SessionList)
        assert table.row_count == 9
        screen.query_one("#ss-outcome", ChoiceChip).value = "human_only"
        await wait_for_workers(pilot, app)
        assert {r.id for r in screen.shown} == {ids["b_agent"], ids["b_ann"]}
        assert table.row_count == 2 and "2 of 9 sessions" in screen_text(app)
        screen.query_one("#ss-outcome", ChoiceChip).value = "neither"
        screen.query_one("#ss-kind", ChoiceChip).value = "human"
        await wait_for_workers(pilot, app)
        assert [r.id for r in screen.shown] == [ids["d_ann"]]
        screen.query_one("#ss-outcome", ChoiceChip).clear()
        screen.query_one("#ss-kind", ChoiceChip).clear()
        await pilot.press("slash", *"bob")
        assert screen.query_one("#ss-filter", Input).has_focus
        assert {r.id for r in screen.shown} == {ids["bob"], ids["c_bob"]}
        await pilot.press("enter", "space", "down", "space", "c")  # two different tasks
        assert isinstance(app.screen, SessionsScreen)


async def test_escape_clears_the_filter_first_then_leaves(tmp_path: Path, ids) -> None:
    """Issue 29: escape in the filter left its text (and the filtered rows) behind, so the next
    `/` appended to it; now the first escape clears it, from the filter or the list."""
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, SessionsScreen())
        screen = app.screen
        box = screen.query_one("#ss-filter", Input)
        for where in ("filter", "list"):
            await pilot.press("slash", *"bob")
            assert len(screen.shown) == 2
            if where == "list":
                await pilot.press("enter")  # the filter kept, the focus on the list
                assert not box.has_focus
            await pilot.press("escape")
            await wait_for_workers(pilot, app)
            assert app.screen is screen and box.value == "" and len(screen.shown) == 9
            assert screen.query_one("#ss-table", SessionList).has_focus
            assert "9 sessions" in screen_text(app)
        await pilot.press("slash", *"ann")  # a new filter starts from nothing
        assert box.value == "ann"
        await pilot.press("escape", "escape")  # cleared, then back
        assert not isinstance(app.screen, SessionsScreen)


async def test_ways_in_from_the_task_browser_and_the_result(tmp_path: Path, ids) -> None:
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        tasks = app.screen.query_one("#tasks", TaskList)
        tasks.cursor = [t.idx for t in tasks.visible_tasks()].index(883)
        await pilot.press("f3")
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, SessionsScreen) and app.screen.task_key == (SOURCE, 883)
        assert len(app.screen.rows) == 3
        await pilot.press("escape", "f4")
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, SessionsScreen) and len(app.screen.rows) == 9
        await pilot.press("escape")
        # play a task, submit, then look at its steps from the result screen
        from tests.support.app_support import open_task

        await open_task(pilot, app, "quote approval")
        task = app.screen.task_row
        await submit(pilot, app, "none")
        await pilot.press("v")
        await wait_for_workers(pilot, app)
        viewer = app.screen
        assert isinstance(viewer, TrajectoryViewer)
        assert viewer.data.session.task_idx == task.idx
        assert viewer.steps[-1].kind == "submit"
        await pilot.press("escape", "s")
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, SessionsScreen) and app.screen.task_key == (
            task.source,
            task.idx,
        )
