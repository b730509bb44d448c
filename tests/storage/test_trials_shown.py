"""Where a session's trial number shows (`run --trials K`): the sessions list (a Trial column
once a list holds a later trial), the viewer's header, exports, `search trial:N`, the Datasette
overview (schema 15), `sessions merge`; a study's sessions are never a later trial."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from crmarena_tui.graders import Grade
from crmarena_tui.reports.trajectory import Trajectory
from crmarena_tui.storage import Store
from crmarena_tui.storage import schema as schema_mod
from crmarena_tui.storage.exporter import session_rows
from crmarena_tui.storage.listing import list_extent, list_sessions
from crmarena_tui.storage.search import run as search
from crmarena_tui.storage.search_query import SearchSyntaxError, parse
from crmarena_tui.tasks.model import Task
from tests.support.app_support import screen_text
from tests.support.app_trajectory_support import push, research_app
from tests.support.spec_support import session_spec


def attempts(store: Store, trials: int, tasks: int = 2) -> dict[tuple[int, int], int]:
    """{(task idx, trial): session id}: an agent's graded attempts, trials 1 to `trials`."""
    who = store.participant("agent", "openai/gpt-4o/react", model="openai/gpt-4o")
    made = {}
    for trial in range(1, trials + 1):
        for idx in range(1, tasks + 1):
            task = Task(
                idx=idx,
                task="handle_time",
                query=f"q{idx}",
                source="test",
                answer=["x"],
                reward_metric="exact_match",
            )
            session = store.create_session(
                session_spec(who, task, "local", "demo:b2b", trial=trial),
                status="submitted",
                started_at=1_700_000_000.0,
            )
            store.add_grade(
                session.id,
                Grade(
                    answer="x",
                    parsed_answer=["x"],
                    reward=1.0,
                    grader="exact_match",
                    extraction="strip",
                ),  # fmt: skip
            )
            store.append_event(session.id, "agent", "submit", {"answer": "x"})
            made[(idx, trial)] = session.id
    return made


def test_listing_export_and_search_carry_the_trial(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        made = attempts(store, 3)
        listed = {r.id: r.trial for r in list_sessions(store)}
        assert listed == {sid: trial for (_, trial), sid in made.items()}
        assert list_extent(store).max_trial == 3
        assert list_extent(store, ("test", 1)).max_trial == 3
        rows = {r["session_id"]: r["trial"] for r in session_rows(store)}
        assert rows == listed
        found = search(store, "kind:submit trial:2,3", page=None)
        assert set(found.sessions) == {made[(i, t)] for i in (1, 2) for t in (2, 3)}
    for bad in ("trial:0", "trial:two"):
        with pytest.raises(SearchSyntaxError, match="not a trial number"):
            parse(bad)


def test_the_overview_view_and_the_list_index_have_the_trial(tmp_path: Path, monkeypatch) -> None:
    with monkeypatch.context() as old:  # a database of schema 14
        old.setattr(schema_mod, "MIGRATIONS", schema_mod.MIGRATIONS[:14])
        old.setattr(schema_mod, "SCHEMA_VERSION", 14)
        with Store(tmp_path / "s.db") as store:
            made = attempts(store, 2)
    with Store(tmp_path / "s.db") as store:  # migrated to 15
        assert store.schema_version == schema_mod.SCHEMA_VERSION >= 15
        assert {r.trial for r in list_sessions(store)} == {1, 2}
    with closing(sqlite3.connect(tmp_path / "s.db")) as db:
        rows = db.execute("SELECT session_id, trial, user_simulator FROM session_overview")
        assert {sid: trial for sid, trial, _ in rows} == {s: t for (_, t), s in made.items()}
        plan = " ".join(
            str(r) for r in db.execute("EXPLAIN QUERY PLAN SELECT id, trial FROM sessions")
        )
        assert "COVERING INDEX" in plan  # the list reads it without the rows


def test_the_viewer_header_names_a_later_trial(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        made = attempts(store, 2, tasks=1)
        first, second = (store.session(made[(1, t)]) for t in (1, 2))
        person = store.get_participant(first.participant_id)

    def top(session) -> str:
        return Trajectory(session, person, [], None, []).header(0, False)[0]

    assert "#1 · trial 2 ·" in top(second)
    assert "trial" not in top(first)  # a first trial reads as every attempt did


@pytest.mark.parametrize("trials", [1, 3])
async def test_the_sessions_list_shows_a_trial_column_once_there_are_trials(
    tmp_path: Path, trials: int
) -> None:
    from crmarena_tui.screens.sessions_screen import SessionsScreen

    with Store(tmp_path / "sessions.db") as store:
        attempts(store, trials)
    app = research_app(tmp_path)
    async with app.run_test(size=(200, 30)) as pilot:
        await push(pilot, SessionsScreen())
        await pilot.pause()
        text = screen_text(app)
    header = next(line for line in text.splitlines() if "Session" in line and "Task" in line)
    assert ("Trial" in header) == (trials > 1)
    if trials > 1:
        column = header.index("Trial")
        cells = [
            line[column : column + 5].strip()
            for line in text.splitlines()
            if "openai/gpt-4o/react" in line
        ]
        assert sorted(cells) == ["1", "1", "2", "2", "3", "3"]


def test_sessions_merge_keeps_the_trial(tmp_path: Path) -> None:
    from crmarena_tui.cli import main

    for name in ("a", "b"):
        with Store(tmp_path / f"{name}.db") as store:
            attempts(store, 2 if name == "a" else 3, tasks=1)
    out = tmp_path / "merged.db"
    assert main(["sessions", "merge", str(tmp_path / "a.db"), str(tmp_path / "b.db"),
                 "--out", str(out)]) == 0  # fmt: skip
    with closing(sqlite3.connect(out)) as db:
        trials = sorted(t for (t,) in db.execute("SELECT trial FROM sessions"))
    assert trials == [1, 1, 2, 2, 3]


def test_a_study_session_is_never_a_later_trial(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        who = store.participant("human", "ann")
        task = Task(idx=1, task="handle_time", query="q", answer=["x"], reward_metric="exact_match")
        with pytest.raises(ValueError, match="one attempt per task"):
            store.create_session(session_spec(who, task, study_id=1, trial=2))


def test_an_imported_upstream_run_is_trial_one(tmp_path: Path) -> None:
    from tests.support.upstream_results_support import imported_database

    with Store(imported_database(tmp_path, 6)) as store:
        rows = list(session_rows(store))
        listed = list_sessions(store)
    assert len(rows) == len(listed) == 6
    assert {r["trial"] for r in rows} == {1} and {r.trial for r in listed} == {1}
    assert {(r["interactive"], r["user_model"]) for r in rows} == {(False, None)}
