"""What the viewer and compare show of a session's task and its end: the task panel (request,
required metadata, gold answer and grade breakdown unless the viewer still has the task open),
the end-reason line, compare on chat sessions (messages, user replies and answers aligned, turns,
end reasons, the step of the column under the cursor), and the refusal of sessions of different
tasks from `view`."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import DataTable, Static

from crmarena_tui.cli import main
from crmarena_tui.screens.compare_screen import CompareScreen
from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer
from crmarena_tui.storage import Store
from crmarena_tui.storage.upstream import UpstreamImporter
from crmarena_tui.widgets.task_detail import TaskDetail
from tests.support.app_support import SAMPLE, SIZE, screen_text, wait_for_workers
from tests.support.app_trajectory_support import push, research_app, sample_task, seed
from tests.support.pilot_wait_support import wait_until
from tests.support.spec_support import session_spec
from tests.support.upstream_results_support import info, interactive_item, write

GOLD = "005Wt000003NIvNIAW"


@pytest.fixture
def ids(tmp_path: Path) -> dict[str, int]:
    return seed(tmp_path / "sessions.db")


def _task_tab(app) -> str:
    panel = app.screen.query_one("#tv-task", TaskDetail)
    console = Console(width=200, file=io.StringIO(), record=True)
    for part in panel.query(Static):
        console.print(part.content)
    return console.export_text()


async def test_the_task_panel_shows_the_request_metadata_gold_and_grade(
    tmp_path: Path, ids
) -> None:
    app = research_app(tmp_path, participant="cy")  # cy never tried the task
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, TrajectoryViewer(ids["agent"]))
        await pilot.press("t")
        assert app.screen.query_one("#tv-tabs").current == "tv-task"
        text = _task_tab(app)
        task = sample_task(883)
        assert "Request\n" + task.query.split("\n")[0] in text
        assert "Required metadata (policy, today's date)\n## Handle Time Policy" in text
        assert "Domain details (shown to aided runs)\n# Domain Details" in text
        assert f"Gold answer: “{GOLD}”" in text
        assert f"Submitted answer: {GOLD}" in text
        assert "Grade 1.00  exact_match · upstream protocol · answer read by strip" in text
        assert f"parsed answer: “{GOLD}”" in text
        assert "Ended: answer submitted" in text
        await pilot.press("ctrl+d")  # back to the step
        assert app.screen.query_one("#tv-tabs").current == "tv-detail"


async def test_the_gold_answer_is_withheld_while_the_viewer_has_the_task_open(
    tmp_path: Path, ids
) -> None:
    with Store(tmp_path / "sessions.db") as store:
        cy = store.participant("human", "cy")
        mine = store.create_session(session_spec(cy, sample_task(883), "local", "fake"))
    app = research_app(tmp_path, participant="cy")
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, TrajectoryViewer(ids["agent"]))
        await pilot.press("t")
        text = _task_tab(app)
        assert f"you have an unsubmitted attempt on this task (session #{mine.id})" in text
        assert GOLD not in text and "Grade" not in text
        assert "Request" in text  # the task itself still shows
        await pilot.press("ctrl+d", "dollar_sign")  # the submission's step
        shown = screen_text(app)
        assert "Grade hidden: you have this task open." in shown
        assert "reward 1.00" not in shown and "★" not in shown


def _imported(tmp_path: Path, items_by_model: dict[str, list[dict]]) -> Path:
    for model, items in items_by_model.items():
        write(tmp_path / "runs", f"results_{model}_react_lead_routing_interactive-True.json", items)
    db = tmp_path / "sessions.db"
    with Store(db) as store:
        UpstreamImporter(store).import_paths([tmp_path / "runs"])
    return db


async def test_the_end_reason_line_says_how_an_imported_run_ended(tmp_path: Path) -> None:
    item = interactive_item(1663)
    item["agent_info"] = info("Max user turns reached", user_turns=10)
    item["agent_info"]["end_reason"]["source"] = "user"
    _imported(tmp_path, {"gpt-4o": [item]})
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, TrajectoryViewer(1))
        line = str(app.screen.query_one("#tv-ended", Static).content)
        assert line.startswith("ended: Max user turns reached (user) · time — · started ")
        assert "ended: Max user turns reached (user)" in screen_text(app)
        steps = app.screen.steps
        assert all(ev.ts is None for s in steps for ev in s.events)  # no invented times
        assert "event 1 · —" in screen_text(app)


async def test_compare_aligns_chat_sessions_message_by_message(tmp_path: Path) -> None:
    asks = interactive_item(1663, clarifying=True)  # asks which state first
    direct = interactive_item(1663, clarifying=False)  # queries at once
    _imported(tmp_path, {"gpt-4o": [asks], "o1-mini": [direct]})
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, CompareScreen([1, 2]))
        grid = app.screen.query_one("#cmp-grid", DataTable)
        cells = [[str(c) for c in grid.get_row_at(i)[2:]] for i in range(grid.row_count)]
        assert cells == [
            ["< Hi, a new lead needs an owner."] * 2,  # the user's opening
            ["—", "Q SELECT Id FROM User"],  # B queries at once
            ["> Which state?", f"> {GOLD}"],  # the first responds face each other
            ["< Missouri.", "—"],  # only A's user replied
            ["Q SELECT Id FROM User", "—"],
            [f"> {GOLD}", "—"],
            [f"✔ {GOLD}"] * 2,  # the answers
            ["■ Submit action (agent)"] * 2,  # how each ended
        ]
        markers = [str(grid.get_row_at(i)[1]) for i in range(grid.row_count)]
        assert markers == ["=", "▶", "≠", "≠", "≠", "≠", "=", "■"]
        summary = app.screen.query_one("#cmp-summary", DataTable)
        header = [str(c.label) for c in summary.columns.values()]
        assert "Turns" in header and "Ended" in header
        turns = header.index("Turns")
        assert [str(summary.get_row_at(i)[turns]) for i in range(2)] == ["3", "2"]
        grid.move_cursor(row=1, column=3)  # B's query
        await pilot.press("enter")
        await wait_for_workers(pilot, app)
        viewer = app.screen
        assert isinstance(viewer, TrajectoryViewer) and viewer.session_id == 2
        assert viewer.step_list.current.kind == "query"


async def test_view_refuses_sessions_of_different_tasks(tmp_path: Path, ids, capsys) -> None:
    db = tmp_path / "sessions.db"
    code = main(["view", str(ids["agent"]), str(ids["b_agent"]), "--db", str(db)])
    err = capsys.readouterr().err
    assert code != 0
    assert "sessions of different tasks cannot be compared" in err
    assert f"#{ids['agent']} is handle_time #883, #{ids['b_agent']} is handle_time #887" in err
    assert main(["view", "1", "999", "--db", str(db)]) != 0
    assert "no session 999 in" in capsys.readouterr().err

    from crmarena_tui.app.app import PlayOptions
    from crmarena_tui.commands.view import make_app

    options = PlayOptions(tasks=str(SAMPLE), participant="ann", db=db)
    app = make_app(options, [ids["agent"], ids["b_agent"]])  # the screen refuses too
    async with app.run_test(size=SIZE) as pilot:
        # (the refusal is the load worker's error: no waiting on the workers)
        await wait_until(pilot, lambda: "cannot compare" in screen_text(app), "the refusal")
        text = screen_text(app)
        assert isinstance(app.screen, CompareScreen)
        assert "cannot compare: sessions of different tasks cannot be compared" in text
        assert app.screen.query_one("#cmp-grid", DataTable).row_count == 0


def test_fixture_shapes_used_here() -> None:
    assert json.loads(json.dumps(interactive_item(1663, clarifying=False)))["traj"][2]["role"] == (
        "assistant"
    )
