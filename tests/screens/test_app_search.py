"""Search across trajectories in the app: the sessions list's `?` filter keeps the sessions with a
matching step, and the viewer opened from it starts on the first match and `g` walks the rest."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from crmarena_tui.screens.sessions_screen import SessionsScreen
from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer
from crmarena_tui.storage import Store, search, search_index
from tests.support.agents_llm_support import make_task
from tests.support.app_support import SIZE, screen_text, wait_for_workers
from tests.support.app_trajectory_support import research_app
from tests.support.pilot_wait_support import wait_until
from tests.support.spec_support import session_spec
from tests.support.upstream_results_support import imported_database

SESSIONS = 40


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = imported_database(tmp_path_factory.mktemp("imported"), SESSIONS)
    with Store(path) as store:
        who = store.participant("human", "ana")
        for n in range(2):
            sid = store.create_session(session_spec(who, make_task(n + 1), "local", "d")).id
            store.append_event(sid, "human", "query", {"text": "SELECT Id FROM Case"})
            store.append_event(sid, "system", "observation", {"observation": "[]"})
            store.append_event(sid, "human", "query", {"text": "SELECT Nme FROM Contract"})
            store.append_event(
                sid,
                "system",
                "error",
                {"error": "INVALID_FIELD: No such column 'Nme' on entity 'Contract'."},
            )
            store.append_event(sid, "human", "message", {"text": "checking"})
            store.append_event(sid, "human", "query", {"text": "SELECT Naem FROM Contract"})
            store.append_event(
                sid,
                "system",
                "error",
                {"error": "INVALID_FIELD: No such column 'Naem' on entity 'Contract'."},
            )
    return path


async def test_a_question_mark_filter_searches_every_step(tmp_path: Path, database: Path) -> None:
    shutil.copy(database, tmp_path / "sessions.db")
    query = "error:INVALID_FIELD object:Contract"
    with Store(tmp_path / "sessions.db") as store:
        expected = search.run(store, query)
        sessions = expected.sessions
        matched = {sid: expected.seqs_of(sid) for sid in sessions}
    assert len(sessions) == 2
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        screen = SessionsScreen()
        app.push_screen(screen)
        await wait_for_workers(pilot, app)
        total = len(screen.positions)
        assert total == SESSIONS + 2
        await pilot.press("slash", "question_mark", *"error:INVALID_FIELD", "space")
        await pilot.press(*"object:Contract")
        assert len(screen.positions) == total  # not run until enter
        assert "enter: search every step" in screen_text(app)
        await pilot.press("enter")
        await wait_for_workers(pilot, app)
        await wait_until(pilot, lambda: "2 of " in screen_text(app), "the matching sessions")
        assert sorted(r.id for r in screen.shown) == sessions
        assert f"2 of {total:,} sessions" in screen_text(app)

        await pilot.press("enter")  # open the highlighted session
        await wait_for_workers(pilot, app)
        viewer = app.screen
        assert isinstance(viewer, TrajectoryViewer)
        seqs = matched[viewer.session_id or 0]
        assert seqs == [4, 7]
        current = viewer.steps[viewer.step_list.cursor]
        assert 4 in {ev.seq for ev in current.events}  # the first matching step is shown
        await pilot.press("g")
        current = viewer.steps[viewer.step_list.cursor]
        assert 7 in {ev.seq for ev in current.events}
        await pilot.press("g")  # wraps round to the first match
        current = viewer.steps[viewer.step_list.cursor]
        assert 4 in {ev.seq for ev in current.events}


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("kind:nope", "search: kind:nope is not an event kind"),
        ("participant:anna", "search: participant: 'anna' names no configuration"),  # (issue 40)
    ],
)
async def test_a_bad_search_says_why_in_the_status_line(
    tmp_path: Path, database: Path, query: str, reason: str
) -> None:
    shutil.copy(database, tmp_path / "sessions.db")
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        screen = SessionsScreen()
        app.push_screen(screen)
        await wait_for_workers(pilot, app)
        await pilot.press("slash", "question_mark", *query, "enter")
        await wait_for_workers(pilot, app)
        await wait_until(pilot, lambda: reason in screen_text(app), "the reason")


async def test_labels_given_from_a_saved_search_show_in_the_viewer(
    tmp_path: Path, database: Path
) -> None:
    from crmarena_tui.cli import main

    shutil.copy(database, tmp_path / "sessions.db")
    db = str(tmp_path / "sessions.db")
    assert main(["search", "error:INVALID_FIELD object:Contract", "--db", db, "--save", "nme"]) == 0
    assert main(["search", "@nme", "--db", db, "--label", "wrong field", "--as", "bob"]) == 0
    with Store(tmp_path / "sessions.db") as store:
        sid = search.run(store, "@nme").sessions[0]
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        viewer = TrajectoryViewer(sid)
        app.push_screen(viewer)
        await wait_for_workers(pilot, app)
        await wait_until(pilot, lambda: viewer.step_list.marks, "the labels' marks")
        labelled = {s.index for s in viewer.steps if any(ev.seq in (4, 7) for ev in s.events)}
        assert len(labelled) == 2
        assert viewer.step_list.marks == dict.fromkeys(labelled, "⚑1")
        viewer.step_list.move_to(min(labelled))
        await wait_until(pilot, lambda: "⚑ wrong field" in screen_text(app), "the label shown")
        assert "⚑ wrong field by bob" in screen_text(app)


async def test_a_search_after_an_import_indexes_it_and_says_so(
    tmp_path: Path, database: Path
) -> None:
    """Sessions an import left unindexed (interrupted, or an older version's import) are indexed
    by the first search (storage/search_index.py), which says so in the status line and still
    finds every match."""
    for name in ("sessions.db", "expected.db"):
        shutil.copy(database, tmp_path / name)
        with Store(tmp_path / name) as store, store.transaction() as conn:  # the index emptied
            conn.execute("INSERT INTO event_search (event_search) VALUES ('delete-all')")
            search_index.defer(conn, 0, conn.execute("SELECT MAX(id) FROM sessions").fetchone()[0])
    with Store(tmp_path / "expected.db") as store:
        assert search_index.pending(store) > 0
        expected = search.run(store, "kind:query").sessions
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        screen = SessionsScreen()
        app.push_screen(screen)
        await wait_for_workers(pilot, app)
        said: list[str] = []
        shown = screen._status
        screen._status = lambda text: (said.append(text), shown(text))[1]  # type: ignore[method-assign]
        await pilot.press("slash", "question_mark", *"kind:query", "enter")
        await wait_for_workers(pilot, app)
        await wait_until(
            pilot, lambda: sorted(r.id for r in screen.shown) == expected, "the matching sessions"
        )
        assert any(" session(s) for search (once)" in text for text in said)
        assert sorted(r.id for r in screen.shown) == expected and len(expected) > 2
    with Store(tmp_path / "sessions.db") as store:
        assert search_index.pending(store) == 0


async def test_a_question_mark_filter_takes_then_and_not(tmp_path: Path, database: Path) -> None:
    shutil.copy(database, tmp_path / "sessions.db")
    query = "error:INVALID_FIELD object:Contract then kind:message not kind:submit"
    with Store(tmp_path / "sessions.db") as store:
        expected = search.run(store, query)
        sessions = expected.sessions
        seqs = expected.seqs_of(sessions[0])
    assert len(sessions) == 2 and seqs == [4, 5, 7]  # (both steps of the search, highlighted)
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        screen = SessionsScreen()
        app.push_screen(screen)
        await wait_for_workers(pilot, app)
        keys = ["space" if ch == " " else ch for ch in query]
        await pilot.press("slash", "question_mark", *keys, "enter")
        await wait_for_workers(pilot, app)
        await wait_until(pilot, lambda: "2 of " in screen_text(app), "the sessions found")
        assert sorted(r.id for r in screen.shown) == sessions
