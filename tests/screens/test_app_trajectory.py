"""The trajectory viewer: steps beside their detail, moving, next error, search, labels, notes,
hidden labels, forking (as a human and as an agent), re-running a step's query, live tailing."""

from __future__ import annotations

import io
from datetime import date
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text
from textual.widgets import ContentSwitcher, Input, OptionList

from crmarena_tui.screens.fork_dialog import ForkDialog
from crmarena_tui.screens.label_dialog import LabelDialog
from crmarena_tui.screens.note_dialog import NoteDialog
from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer
from crmarena_tui.screens.workspace import Workspace
from crmarena_tui.storage import Store
from crmarena_tui.widgets.query_editor import QueryEditor
from crmarena_tui.widgets.results_table import ResultsTable
from crmarena_tui.widgets.step_detail import StepDetail
from crmarena_tui.widgets.step_list import StepList
from crmarena_tui.widgets.step_records import StepRecords
from tests.support.app_support import SAMPLE, SIZE, FakeOrg, screen_text, wait_for_workers
from tests.support.app_trajectory_support import (
    AGENT,
    Q1,
    Q2,
    Q3,
    Q3_ERROR,
    T0,
    push,
    research_app,
    seed,
)
from tests.support.pilot_wait_support import wait_until
from tests.support.spec_support import session_spec


@pytest.fixture
def ids(tmp_path: Path) -> dict[str, int]:
    return seed(tmp_path / "sessions.db")


def _viewer(app) -> TrajectoryViewer:
    assert isinstance(app.screen, TrajectoryViewer)
    return app.screen


def _detail(app) -> str:
    """The text of the detail pane (all its shown parts), however long."""
    detail = app.screen.query_one("#tv-detail", StepDetail)
    console = Console(width=200, file=io.StringIO(), record=True, markup=True)
    for part in detail.query("Static"):
        if part.display:
            content = part.content
            console.print(Text.from_markup(content) if isinstance(content, str) else content)
    return console.export_text()


async def test_steps_beside_detail_and_moving_keys(tmp_path: Path, ids) -> None:
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, TrajectoryViewer(ids["agent"]))
        viewer = _viewer(app)
        steps = viewer.query_one("#tv-steps", StepList)
        assert [s.kind for s in steps.steps] == ["query", "query", "query", "submit"]
        text = screen_text(app)
        assert f"Session {ids['agent']}" in text and AGENT in text and "reward 1.00" in text
        assert "Step 1 of 4" in text and "Cases closed in the window." in text
        # the session's totals (issue 29): four model calls, their tokens and cost
        assert "4 model calls, 5,000 tokens, $0.0400" in text
        table = viewer.query_one("#sd-table", ResultsTable)
        assert table.display and table.row_count == 3  # the observation as a table
        await pilot.press("l", "l")
        assert steps.cursor == 2 and "Step 3 of 4" in screen_text(app)
        assert Q3_ERROR in _detail(app) and not table.display  # the error, no table
        await pilot.press("h")
        assert steps.cursor == 1 and Q2 in _detail(app)
        await pilot.press("dollar_sign")
        assert steps.cursor == 3
        assert "Submitted answer: 005Wt000003NIvNIAW" in _detail(app)
        assert "Grade 1.0" in _detail(app)
        await pilot.press("0")
        assert steps.cursor == 0 and Q1 in _detail(app)
        await pilot.press("ctrl+j")  # the observation as text
        assert not table.display and "500Wt00000DDxW0IA1" in _detail(app)


async def test_e_jumps_to_the_next_error_and_slash_searches(tmp_path: Path, ids) -> None:
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, TrajectoryViewer(ids["agent"]))
        steps = app.screen.query_one("#tv-steps", StepList)
        await pilot.press("e")
        assert steps.cursor == 2 and steps.current.has_error
        await pilot.press("l", "e")  # wraps round to the error
        assert steps.cursor == 2
        await pilot.press("slash")
        box = app.screen.query_one("#tv-search", Input)
        assert box.display and box.has_focus
        await pilot.press(*"owner")  # in a query and a thought
        assert steps.matches == {0, 1}
        assert "2 steps match" in screen_text(app)
        await pilot.press("enter")
        assert steps.cursor == 0 and not box.display and steps.has_focus
        await pilot.press("slash", "enter")  # again: the next match
        assert steps.cursor == 1
        await pilot.press("slash")
        box.value = "no such text anywhere"
        await pilot.press("enter")
        assert steps.cursor == 1 and box.display  # nothing found: stays put
        await pilot.press("escape")
        assert isinstance(app.screen, TrajectoryViewer) and not box.display


async def test_m_labels_the_step_and_again_takes_it_back(tmp_path: Path, ids) -> None:
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, TrajectoryViewer(ids["agent"]))
        steps = app.screen.query_one("#tv-steps", StepList)
        await pilot.press("l")  # step 2: the second query
        await pilot.press("m")
        dialog = app.screen
        assert isinstance(dialog, LabelDialog)
        options = dialog.query_one("#label-options", OptionList)
        wanted = dialog.taxonomy.index("wrong field")
        options.highlighted = wanted
        await pilot.press("tab")
        dialog.query_one("#label-note", Input).value = "NewValue__c is not the owner"
        await pilot.press("enter")  # from the note: applies
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, TrajectoryViewer)
        store = Store(tmp_path / "sessions.db")
        query_seq = steps.steps[1].anchor_seq
        [label] = store.annotations.find(session_id=ids["agent"], annotator="ann")[-1:]
        assert (label.label, label.event_seq, label.note) == (
            "wrong field",
            query_seq,
            "NewValue__c is not the owner",
        )
        assert steps.marks.get(1) == "⚑1"
        assert "wrong field" in _detail(app) and "NewValue__c is not the owner" in _detail(app)
        await pilot.press("m")  # ticked now: enter removes
        assert "✓ wrong field" in str(
            app.screen.query_one("#label-options", OptionList).get_option_at_index(wanted).prompt
        )
        app.screen.query_one("#label-options", OptionList).highlighted = wanted
        await pilot.press("enter")
        await wait_for_workers(pilot, app)
        assert not [
            a
            for a in store.annotations.find(session_id=ids["agent"], annotator="ann")
            if a.event_seq == query_seq
        ]
        assert 1 not in steps.marks


async def test_shift_m_labels_the_session_and_n_writes_a_note(tmp_path: Path, ids) -> None:
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, TrajectoryViewer(ids["ann"]))
        await pilot.press("M")
        assert isinstance(app.screen, LabelDialog)
        await pilot.press("down", "enter")  # the second label
        await wait_for_workers(pilot, app)
        store = Store(tmp_path / "sessions.db")
        [label] = store.annotations.find(session_id=ids["ann"])
        taxonomy = app.screen.data.taxonomy
        assert (label.label, label.event_seq, label.annotator) == (taxonomy[1], None, "ann")
        assert f"Session: ⚑ {taxonomy[1]}" in screen_text(app)
        await pilot.press("n")
        assert isinstance(app.screen, NoteDialog)
        app.screen.query_one("#note-text", Input).value = "tried the users table"
        await pilot.press("enter")
        await wait_for_workers(pilot, app)
        [note] = store.annotations.find(session_id=ids["ann"], kind="note")
        first = app.screen.query_one("#tv-steps", StepList).steps[0]
        assert (note.note, note.annotator, note.event_seq, note.label) == (
            "tried the users table",
            "ann",
            first.anchor_seq,
            "",
        )
        assert store.events(ids["ann"])[-1].kind == "grade"  # the trajectory is left as it was
        assert [a.label for a in store.annotations.find(session_id=ids["ann"])] == [taxonomy[1]]
        assert "ann: tried the users table" in _detail(app)
        assert app.screen.query_one("#tv-steps", StepList).marks[0] == "✎"
        assert len(app.screen.steps) == 3  # a note is not a step
        await pilot.press("N")
        app.screen.query_one("#note-text", Input).value = "never looked at owners"
        await pilot.press("enter")
        await wait_for_workers(pilot, app)
        assert "✎ never looked at owners (ann)" in screen_text(app)


async def test_hidden_labels_hide_other_annotators(tmp_path: Path, ids, monkeypatch) -> None:
    monkeypatch.setenv("CRMARENA_TUI_HIDDEN_LABELS", "true")
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, TrajectoryViewer(ids["agent"]))
        steps = app.screen.query_one("#tv-steps", StepList)
        await pilot.press("e")  # bob labelled this step
        # (the key bar is laid out a frame or two after the screen: coalesced, then fitted)
        await wait_until(
            pilot, lambda: "b Others' labels: hidden" in screen_text(app), "the key bar's b"
        )
        text = screen_text(app)
        assert "others' labels hidden" in text and "b Others' labels: hidden" in text
        assert "unrecovered tool error" not in _detail(app) and not steps.marks
        assert "(bob)" not in text and "Session: ⚑ gave up (ann)" in text  # own label shows
        await pilot.press("b")  # the toggle shows them
        await pilot.pause()
        assert "unrecovered tool error" in _detail(app) and "kept guessing" in _detail(app)
        assert steps.marks == {2: "⚑1"} and "gave up (bob)" in screen_text(app)
        assert "b Others' labels: shown" in screen_text(app)
        await pilot.press("b")
        assert not steps.marks


async def test_fork_as_a_human_continues_in_the_workspace(tmp_path: Path, ids) -> None:
    org = FakeOrg()
    app = research_app(tmp_path, org)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, TrajectoryViewer(ids["agent"]))
        steps = app.screen.query_one("#tv-steps", StepList)
        await pilot.press("l")  # after the second query
        at_seq = steps.current.last_seq
        await pilot.press("f")
        assert isinstance(app.screen, ForkDialog)
        await pilot.press("enter")  # continue as me
        await wait_for_workers(pilot, app)
        workspace = app.screen
        assert isinstance(workspace, Workspace) and workspace.fork
        child = workspace.episode.session
        assert (child.parent_session_id, child.fork_seq) == (ids["agent"], at_seq)
        store = Store(tmp_path / "sessions.db")
        assert store.get_participant(child.participant_id).name == "ann"
        events = store.events(child.id)
        assert [e.payload.get("text") for e in events if e.kind == "query"] == [Q1, Q2]
        assert events[-1].kind == "fork" and events[-1].payload["from_session"] == ids["agent"]
        editor = workspace.query_one("#editor", QueryEditor)
        assert editor.past_queries == [Q1, Q2]  # the agent's queries
        editor.load_text("SELECT Id FROM Account")
        await pilot.press("ctrl+r")
        await wait_for_workers(pilot, app)
        assert store.events(child.id)[-2].payload == {"text": "SELECT Id FROM Account"}
        assert len(store.events(ids["agent"])) == 16  # the original is untouched


async def test_fork_as_an_agent_runs_it_and_opens_the_new_session(tmp_path: Path, ids) -> None:
    from tests.fakes.scripted_llm import register_script, unregister_script

    register_script(
        "fork-test",
        lambda: [
            "<thought>Check the cases.</thought><execute>SELECT Id FROM Case</execute>",
            "<thought>Done.</thought><respond>005Wt000003NIvNIAW</respond>",
        ],
    )
    try:
        app = research_app(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await push(pilot, TrajectoryViewer(ids["ann"]))  # a human session
            steps = app.screen.query_one("#tv-steps", StepList)
            at_seq = steps.current.last_seq  # after the first query
            await pilot.press("f", "down", "down", "enter")
            dialog = app.screen
            assert isinstance(dialog, ForkDialog) and dialog.query_one("#fork-model").has_focus
            dialog.query_one("#fork-model", Input).value = "scripted/fork-test"
            await pilot.press("enter")
            await wait_for_workers(pilot, app)
            viewer = _viewer(app)
            store = Store(tmp_path / "sessions.db")
            child = store.session(viewer.session_id)
            assert child.id != ids["ann"]
            assert (child.parent_session_id, child.fork_seq) == (ids["ann"], at_seq)
            assert child.status == "submitted" and store.grade(child.id).reward == 1.0
            # the agent's participant is named by its configuration
            assert store.get_participant(child.participant_id).name == "scripted/fork-test/react"
            kinds = [s.kind for s in viewer.steps]
            assert kinds[:2] == ["query", "fork"] and kinds[-1] == "submit"
            assert "fork of #2" in screen_text(app)
    finally:
        unregister_script("fork-test")


async def test_fork_is_refused_at_the_submission(tmp_path: Path, ids) -> None:
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, TrajectoryViewer(ids["agent"]))
        await pilot.press("dollar_sign", "f")
        assert isinstance(app.screen, TrajectoryViewer)
        assert len(Store(tmp_path / "sessions.db").sessions()) == 9


async def test_r_reruns_the_query_and_opens_the_records(tmp_path: Path, ids) -> None:
    org = FakeOrg(n_cases=2)
    app = research_app(tmp_path, org)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, TrajectoryViewer(ids["agent"]))
        await pilot.press("r")
        await wait_for_workers(pilot, app)
        assert org.queries == [Q1]  # against the current org
        assert org.today == date(2021, 1, 10)  # on the task's date
        assert app.screen.query_one("#tv-tabs", ContentSwitcher).current == "tv-records-pane"
        records = app.screen.query_one("#tv-records", StepRecords)
        assert records.table.row_count == 2
        assert "re-run against the current org: 2 records" in screen_text(app)
        records.table.move_cursor(row=1, column=records.table.columns_shown.index("Id"))
        await pilot.press("enter")  # open the record
        await wait_for_workers(pilot, app)
        assert records.current.kind == "record" and "Broken widget 1" in screen_text(app)
        await pilot.press("backspace")  # back to the re-run
        await wait_for_workers(pilot, app)
        assert records.current.kind == "rerun" and records.table.row_count == 2
        await pilot.press("ctrl+d", "dollar_sign", "r")  # the submit step: refused
        assert org.queries == [Q1]


async def test_an_in_progress_session_is_tailed(tmp_path: Path, ids) -> None:
    store = Store(tmp_path / "sessions.db", clock=lambda: T0)
    who = store.participant("agent", "live")
    live = store.create_session(
        session_spec(who, store.session(ids["agent"]).task(), "local", "fake")
    )
    store.append_event(live.id, "agent", "query", {"text": Q1})
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, TrajectoryViewer(live.id))
        steps = app.screen.query_one("#tv-steps", StepList)
        assert len(steps.steps) == 1
        store.append_event(live.id, "system", "observation", {"observation": "[]"})
        store.append_event(live.id, "agent", "query", {"text": Q3})
        app.screen.feed.poll()
        await wait_for_workers(pilot, app)
        assert [s.kind for s in steps.steps] == ["query", "query"] and steps.cursor == 1


async def test_an_imported_multi_turn_trajectory(tmp_path: Path) -> None:
    from crmarena_tui.storage.upstream import UpstreamImporter

    upstream = Path(__file__).parents[1] / "data" / "upstream" / "b2b" / "multi-turn"
    with Store(tmp_path / "sessions.db") as store:
        UpstreamImporter(store).import_paths([upstream])
        first = store.sessions()[0].id
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, TrajectoryViewer(first))
        steps = app.screen.query_one("#tv-steps", StepList)
        kinds = [s.kind for s in steps.steps]
        assert kinds[:5] == ["system", "user", "message", "user", "query"]
        assert kinds[6:9] == ["message", "user", "submit"]  # the user's ###STOP###, a step too
        detail = _detail(app)
        assert "System prompt\nYou work for a company" in detail and '{"' not in detail
        await pilot.press("l")  # the simulated user opens
        assert "simulated user (upstream's): Hi, I have a new lead" in _detail(app)
        await pilot.press("l")  # the agent asks the user
        detail = _detail(app)
        assert "agent → user: Sure. Which region is the lead in?" in detail
        assert "Missouri" not in detail  # the reply is the next step
        await pilot.press("l")
        assert "simulated user (upstream's): It's in Missouri" in _detail(app)
        assert "< user  It's in Missouri" in screen_text(app)


async def test_view_command_opens_the_research_screens(tmp_path: Path, ids) -> None:
    from crmarena_tui.app.app import PlayOptions
    from crmarena_tui.commands.view import make_app
    from crmarena_tui.screens.compare_screen import CompareScreen
    from crmarena_tui.screens.sessions_screen import SessionsScreen
    from crmarena_tui.screens.task_browser import TaskBrowser

    options = PlayOptions(tasks=str(SAMPLE), participant="ann", db=tmp_path / "sessions.db")
    for sessions, screen in (
        ([ids["ann"]], TrajectoryViewer),
        ([], SessionsScreen),
        ([ids["agent"], ids["bob"]], CompareScreen),
    ):
        app = make_app(options, sessions, org_factory=lambda org_type: FakeOrg())
        async with app.run_test(size=SIZE) as pilot:
            await wait_for_workers(pilot, app)
            assert isinstance(app.screen, screen)
            if sessions == [ids["ann"]]:
                assert app.screen.session_id == ids["ann"] and len(app.screen.steps) == 3
            await pilot.press("escape")  # back to the browser
            await wait_for_workers(pilot, app)
            assert isinstance(app.screen, TaskBrowser)


def test_view_command_refuses_four_sessions(capsys) -> None:
    from crmarena_tui.cli import main

    assert main(["view", "1", "2", "3", "4"]) == 2  # a usage error
    assert "at most three" in capsys.readouterr().err


async def test_every_viewer_key_is_in_the_key_bar_and_the_palette(tmp_path: Path, ids) -> None:
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, TrajectoryViewer(ids["agent"]))
        commands = {c.title for c in app.get_system_commands(app.screen)}
        keys = str(app.screen.query_one("#tv-keys").content)
        for binding in TrajectoryViewer.BINDINGS:
            assert binding.description in commands, binding.description
            assert f"{app.get_key_display(binding)} {binding.description}" in keys
