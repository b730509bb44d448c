"""Studies in the sessions database: schema v6 from a v5 file, seats, joining, queues, and the
`study create|list|status|close` commands as a researcher sees them."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from crmarena_tui.storage import Store
from crmarena_tui.storage import schema as schema_mod
from crmarena_tui.studies import db
from crmarena_tui.studies.model import StudyError
from tests.support.agents_llm_support import make_task
from tests.support.spec_support import session_spec
from tests.support.storage_support import integrity, v1_session
from tests.support.study_support import cli, work, write_tasks


def test_a_version_5_database_gets_session_uuids_and_study_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "v5.db"
    with monkeypatch.context() as old:
        old.setattr(schema_mod, "MIGRATIONS", schema_mod.MIGRATIONS[:5])
        old.setattr(schema_mod, "SCHEMA_VERSION", 5)
        with Store(path) as store:
            who = store.participant("human", "ana")
    with closing(sqlite3.connect(path)) as conn:
        first = v1_session(conn, who.id, make_task(3))
        second = v1_session(conn, who.id, make_task(4))
    with Store(path) as store:
        assert store.schema_version == schema_mod.SCHEMA_VERSION
        old_ids = [store.session(first).uuid, store.session(second).uuid]
        assert all(re.fullmatch(r"[0-9a-f]{32}", u) for u in old_ids)
        assert old_ids[0] != old_ids[1]
        assert store.session(first).study_id is None
        fresh = store.create_session(session_spec(who, make_task(5), "local", "demo"))
        assert len(fresh.uuid) == 32 and fresh.uuid not in old_ids
        assert db.list_studies(store) == []
        assert integrity(store) == "ok"
    with closing(sqlite3.connect(path)) as conn:
        v1_session(conn, who.id, make_task(6))  # an insert that names no uuid still gets one
        with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
            conn.execute("UPDATE sessions SET uuid = ? WHERE id = ?", (old_ids[0], second))
        assert conn.execute("SELECT COUNT(*) FROM sessions WHERE uuid IS NULL").fetchone() == (0,)


def _create(tmp_path: Path, *extra: str) -> tuple[Path, list, str]:
    tasks = write_tasks(tmp_path / "tasks.json")
    dbfile = tmp_path / "s.db"
    code, out, err = cli(
        "study", "create", "pilot", "--tasks", str(tmp_path / "tasks.json"),
        "--per-task", "2", "--participants", "ana,bo,cy", "--db", str(dbfile), *extra,
    )  # fmt: skip
    assert code == 0, err
    return dbfile, tasks, out


def test_create_prints_each_participants_load_and_join_code_and_how_to_start(
    tmp_path: Path,
) -> None:
    dbfile, _tasks, out = _create(tmp_path, "--time-limit", "15", "--seed", "7")
    assert "12 tasks" in out and "each for 2 of 3 participants" in out and "15 min" in out
    rows = dict(re.findall(r"^(ana|bo|cy)\s+(\d+)\s+[A-Z0-9]{6}$", out, re.M))
    assert rows == {"ana": "8", "bo": "8", "cy": "8"}
    assert f"crmarena-tui play --study pilot --as ana --db {dbfile}" in out
    assert "crmarena-tui serve --study pilot" in out
    with Store(dbfile) as store:
        study = db.get_study(store, "pilot")
        assert (study.per_task, study.seed, study.time_limit_minutes) == (2, 7, 15.0)
        assert (study.show_grade, study.status, study.org) == ("after-submit", "open", None)
        codes = dict(db.participants(store, study))
        assert re.search(rf"^ana\s+8\s+{codes['ana']}$", out, re.M)
    code, _, err = cli(
        "study", "create", "pilot", "--tasks", str(tmp_path / "tasks.json"), "--per-task", "1",
        "--participants", "dee", "--db", str(dbfile),
    )  # fmt: skip
    assert code == 1 and "a study named 'pilot' already exists" in err


def test_create_samples_filters_and_refuses_what_cannot_be_planned(tmp_path: Path) -> None:
    dbfile, _tasks, out = _create(tmp_path, "--task", "handle_time,case_routing", "--sample", "6")
    assert "6 tasks" in out
    with Store(dbfile) as store:
        plan = db.assignments(store, db.get_study(store, "pilot"))
    assert {t for *_, t in plan} == {"handle_time", "case_routing"}
    assert sorted(t for *_, t in plan).count("handle_time") == 6  # 3 tasks x 2 participants
    tasks = str(tmp_path / "tasks.json")
    base = ("study", "create", "x", "--tasks", tasks, "--db", str(dbfile), "--participants")
    code, _, err = cli(*base, "ana,bo", "--per-task", "3")
    assert code == 2 and "--per-task 3 needs at least 3 participants" in err
    code, _, err = cli(*base, "ana,bo", "--per-task", "1", "--task", "no_such_type")
    assert code == 2 and "unknown task type no_such_type" in err
    code, _, err = cli(*base, "ana,bo", "--per-task", "1", "--sample", "50")
    assert code == 2 and "--sample 50 asks for more tasks than the 12 selected" in err
    code, _, err = cli(*base, "ana,bo", "--per-task", "1", "--time-limit", "0")
    assert code == 2 and "--time-limit must be more than 0" in err


def test_seats_queues_and_joining(tmp_path: Path) -> None:
    dbfile, tasks, _ = _create(tmp_path)
    by_key = {(t.source, t.idx): t for t in tasks}
    with Store(dbfile) as store:
        seat = db.seat(store, "pilot", "ana")
        assert len(seat.queue) == 8 and len(set(seat.queue)) == 8
        assert db.next_task(store, seat) == seat.queue[0]
        with pytest.raises(StudyError, match="^'dee' is not a participant of study 'pilot'$"):
            db.seat(store, "pilot", "dee")  # (no list of the others: issue 28)
        with pytest.raises(StudyError, match="no study named 'nope'.*known studies: pilot"):
            db.get_study(store, "nope")
        with pytest.raises(StudyError, match="wrong join code for 'ana'"):
            db.join(store, "pilot", "ana", "ZZZZZZ")
        assert db.join(store, "pilot", "ana", seat.join_code.lower()).queue == seat.queue
        study_id = seat.study.id
        work(store, "ana", by_key[seat.queue[0]], study_id=study_id, reward=1.0)
        work(store, "ana", by_key[seat.queue[2]], study_id=study_id)  # opened, not submitted
        work(store, "ana", by_key[seat.queue[1]], study_id=None, reward=1.0)  # outside the study
        work(store, "bo", by_key[seat.queue[1]], study_id=study_id, reward=1.0)  # someone else
        states = [state for _key, state in db.queue_status(store, seat)]
        assert states == ["done", "left", "in_progress"] + ["left"] * 5
        assert db.next_task(store, seat) == seat.queue[2]  # the open one first
        assert store.session(1).study_id == study_id
        db.close_study(store, "pilot")
        with pytest.raises(StudyError, match="study 'pilot' is closed"):
            db.join(store, "pilot", "ana", seat.join_code)


def test_status_counts_per_participant_and_close_refuses_joining(tmp_path: Path) -> None:
    dbfile, tasks, _ = _create(tmp_path)
    by_key = {(t.source, t.idx): t for t in tasks}
    with Store(dbfile) as store:
        seat = db.seat(store, "pilot", "bo")
        for key in seat.queue[:3]:
            work(store, "bo", by_key[key], study_id=seat.study.id, reward=0.0, seconds=90)
        work(store, "bo", by_key[seat.queue[3]], study_id=seat.study.id)  # 10 s in so far
    code, out, _ = cli("study", "status", "pilot", "--db", str(dbfile))
    assert code == 0
    assert re.search(r"^bo\s+3\s+1\s+4\s+4m 40s$", out, re.M)  # 3 x 90 s + 10 s
    assert re.search(r"^ana\s+0\s+0\s+8\s+0s$", out, re.M)
    assert "Completion: 3 of 24 done (12.5%)" in out
    code, out, _ = cli("study", "list", "--db", str(dbfile))
    assert re.search(r"^pilot\s+open\s+12\s+2\s+3\s", out, re.M)
    assert cli("study", "close", "pilot", "--db", str(dbfile))[0] == 0
    code, out, _ = cli("study", "status", "pilot", "--db", str(dbfile))
    assert "(closed: no more joining)" in out
    code, _, err = cli("study", "close", "other", "--db", str(dbfile))
    assert code == 1 and "no study named 'other'" in err and "known studies: pilot" in err
