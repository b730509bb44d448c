"""A study on several laptops: `study export` / `study import` carry the plan, `sessions merge`
brings the databases back together: idempotent, conflicts listed by uuid, never overwritten."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from crmarena_tui.storage import Store
from crmarena_tui.storage import schema as schema_mod
from crmarena_tui.studies import db
from tests.support.storage_support import v1_session
from tests.support.study_support import cli, grade, work, write_tasks


@pytest.fixture
def laptops(tmp_path: Path) -> tuple[Path, Path, Path, dict]:
    """A study created on a host, exported, imported on two laptops; the tasks by key."""
    tasks = write_tasks(tmp_path / "tasks.json")
    host = tmp_path / "host.db"
    cli(
        "study", "create", "pilot", "--tasks", str(tmp_path / "tasks.json"), "--per-task", "2",
        "--participants", "ana,bo", "--db", str(host),
    )  # fmt: skip
    code, out, err = cli(
        "study", "export", "pilot", "--out", str(tmp_path / "pilot.json"), "--db", str(host)
    )
    assert code == 0, err
    assert "copy it to the same path on each laptop" in out  # a file source is named
    for laptop in ("a.db", "b.db"):
        code, out, err = cli(
            "study", "import", str(tmp_path / "pilot.json"), "--db", str(tmp_path / laptop)
        )
        assert code == 0 and "Imported study 'pilot'" in out, err
    return host, tmp_path / "a.db", tmp_path / "b.db", {(t.source, t.idx): t for t in tasks}


def _seat_and_work(path: Path, who: str, tasks: dict, rewards: list[float]) -> list[str]:
    with Store(path) as store:
        seat = db.seat(store, "pilot", who)
        return [
            work(store, who, tasks[key], study_id=seat.study.id, reward=r).uuid
            for key, r in zip(seat.queue, rewards, strict=False)
        ]


def test_import_carries_the_plan_and_codes_and_is_idempotent(laptops, tmp_path: Path) -> None:
    host, a, _b, _tasks = laptops
    with Store(host) as h, Store(a) as lap:
        assert [s.uuid for s in db.list_studies(lap)] == [s.uuid for s in db.list_studies(h)]
        for who in ("ana", "bo"):
            here, there = db.seat(h, "pilot", who), db.seat(lap, "pilot", who)
            assert (there.join_code, there.queue) == (here.join_code, here.queue)
            assert there.study == db.get_study(h, "pilot")  # settings, status, uuid, ids too
    code, out, _ = cli("study", "import", str(tmp_path / "pilot.json"), "--db", str(a))
    assert code == 0 and "already in" in out and "nothing changed" in out
    with Store(a) as lap:
        assert len(db.list_studies(lap)) == 1
        assert len(db.assignments(lap, db.get_study(lap, "pilot"))) == 24


def test_import_refuses_another_study_under_a_taken_name_and_damaged_files(
    laptops, tmp_path: Path
) -> None:
    _host, a, _b, _tasks = laptops
    other = tmp_path / "other.db"
    cli(
        "study", "create", "pilot", "--tasks", str(tmp_path / "tasks.json"), "--per-task", "1",
        "--participants", "cy", "--db", str(other),
    )  # fmt: skip
    cli("study", "export", "pilot", "--out", str(tmp_path / "other.json"), "--db", str(other))
    code, _, err = cli("study", "import", str(tmp_path / "other.json"), "--db", str(a))
    assert code == 1 and "already has another study named 'pilot'" in err
    document = json.loads((tmp_path / "pilot.json").read_text())
    document["participants"][0]["join_code"] = "AAAAAA"  # the same study, tampered with
    (tmp_path / "tampered.json").write_text(json.dumps(document))
    code, _, err = cli("study", "import", str(tmp_path / "tampered.json"), "--db", str(a))
    assert code == 1 and "another plan" in err and "nothing was imported" in err
    (tmp_path / "bad.json").write_text('{"format": "crmarena-tui study", "version": 1}')
    code, _, err = cli("study", "import", str(tmp_path / "bad.json"), "--db", str(a))
    assert code == 1 and "damaged study file" in err
    with Store(a) as lap:
        assert dict(db.participants(lap, db.get_study(lap, "pilot")))["ana"] != "AAAAAA"


def test_merge_adds_each_session_once_and_again_adds_nothing(laptops, tmp_path: Path) -> None:
    _host, a, b, tasks = laptops
    ana = _seat_and_work(a, "ana", tasks, [1.0, 0.0])
    bo = _seat_and_work(b, "bo", tasks, [1.0, 1.0, 1.0])
    with Store(b) as store:
        store.annotations.add(store.sessions()[0].id, "wrong field", annotator="rev")
    merged = tmp_path / "all.db"
    code, out, err = cli("sessions", "merge", str(a), str(b), "--out", str(merged))
    assert code == 0, err
    assert "5 session(s) added, 0 already present, 0 conflict(s)" in out
    assert "Studies added: pilot." in out
    code, out, _ = cli("sessions", "merge", str(a), str(b), "--out", str(merged))
    assert code == 0 and "0 session(s) added, 5 already present, 0 conflict(s)" in out
    assert "Nothing new" in out
    with Store(merged) as store:
        assert sorted(s.uuid for s in store.sessions()) == sorted(ana + bo)
        study = db.get_study(store, "pilot")
        assert {s.study_id for s in store.sessions()} == {study.id}
        assert [p.name for p in store.participants()] == ["ana", "bo"]
        labelled = [s for s in store.sessions() if store.annotations.find(s.id)]
        assert [s.uuid for s in labelled] == [bo[0]]
        assert [g.reward for s in store.sessions() for g in store.grades(s.id)] == [1, 0, 1, 1, 1]
        assert len(store.events(labelled[0].id)) == 2
    code, out, _ = cli("study", "status", "pilot", "--db", str(merged))
    assert re.search(r"^ana\s+2\s+0\s+10\s", out, re.M) and re.search(
        r"^bo\s+3\s+0\s+9\s", out, re.M
    )
    with Store(a) as store:  # a later label on a laptop's copy is not a conflict: it is added
        store.annotations.add(store.sessions()[1].id, "", "slow", annotator="rev", kind="note")
    code, out, _ = cli("sessions", "merge", str(a), "--out", str(merged))
    assert code == 0 and "2 already present" in out and "1 label(s) or note(s) added" in out


def test_copies_that_differ_are_listed_by_uuid_and_never_overwritten(
    laptops, tmp_path: Path
) -> None:
    _host, a, _b, tasks = laptops
    ana = _seat_and_work(a, "ana", tasks, [1.0, 0.0])
    merged = tmp_path / "all.db"
    assert cli("sessions", "merge", str(a), "--out", str(merged))[0] == 0
    copy = tmp_path / "a-copy.db"
    shutil.copy(a, copy)
    with Store(a) as store:  # regraded on the laptop after the merge
        store.add_grade(store.sessions()[1].id, grade(1.0))
    with Store(copy) as store:  # and, on another copy, worked on further
        session = store.sessions()[0]
        store.append_event(session.id, "human", "note", {"text": "one more thing"})
        fresh = work(
            store,
            "ana",
            tasks[db.seat(store, "pilot", "ana").queue[2]],
            study_id=session.study_id,
            reward=1.0,
        )
    code, out, _ = cli("sessions", "merge", str(a), str(copy), "--out", str(merged))
    assert code == 1
    assert "1 session(s) added, 0 already present, 2 conflict(s)" in out
    assert re.search(rf"^  {ana[1]}  {merged} vs {a}: grade$", out, re.M)
    assert re.search(rf"^  {ana[0]}  {merged} vs {copy}: events$", out, re.M)
    with Store(merged) as store:
        kept = {s.uuid: s for s in store.sessions()}
        assert [g.reward for g in store.grades(kept[ana[1]].id)] == [0.0]  # not overwritten
        assert len(store.events(kept[ana[0]].id)) == 2
        assert fresh.uuid in kept


def test_two_new_copies_that_differ_are_both_left_out(tmp_path: Path) -> None:
    first = write_tasks(tmp_path / "tasks.json")[0]
    one, two, same = tmp_path / "one.db", tmp_path / "two.db", "ab" * 16
    for path, reward in ((one, 1.0), (two, 0.0)):
        with Store(path) as store:
            work(store, "ana", first, study_id=None, reward=reward)
        with closing(sqlite3.connect(path)) as conn:
            conn.execute("UPDATE sessions SET uuid = ?", (same,))
            conn.commit()
    merged = tmp_path / "all.db"
    code, out, _ = cli("sessions", "merge", str(one), str(two), "--out", str(merged))
    assert code == 1 and "0 session(s) added, 0 already present, 1 conflict(s)" in out
    assert re.search(rf"^  {same}  {one} vs {two}: grade$", out, re.M)
    with Store(merged) as store:
        assert store.sessions() == []


def test_a_database_from_before_uuids_merges_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tasks = write_tasks(tmp_path / "tasks.json")
    old = tmp_path / "old.db"
    with monkeypatch.context() as m:
        m.setattr(schema_mod, "MIGRATIONS", schema_mod.MIGRATIONS[:5])
        m.setattr(schema_mod, "SCHEMA_VERSION", 5)
        with Store(old) as store:
            who = store.participant("human", "ana")
    with closing(sqlite3.connect(old)) as conn:
        for t in tasks[:3]:
            v1_session(conn, who.id, t)
    merged = str(tmp_path / "all.db")
    assert "3 session(s) added" in cli("sessions", "merge", str(old), "--out", merged)[1]
    assert (
        "0 session(s) added, 3 already present"
        in cli("sessions", "merge", str(old), "--out", merged)[1]
    )
    code, _, err = cli("sessions", "merge", str(tmp_path / "nope.db"), "--out", merged)
    assert code == 1 and "no such sessions database" in err
    code, _, err = cli("sessions", "merge", merged, "--out", merged)
    assert code == 1 and "is also an input" in err


def test_sessions_of_another_study_under_a_taken_name_are_left_out(tmp_path: Path) -> None:
    tasks = write_tasks(tmp_path / "tasks.json")
    merged = tmp_path / "all.db"
    made = []
    for name in ("one.db", "two.db"):  # two studies created apart, both named pilot
        path = tmp_path / name
        cli(
            "study", "create", "pilot", "--tasks", str(tmp_path / "tasks.json"), "--per-task",
            "1", "--participants", "ana", "--db", str(path),
        )  # fmt: skip
        made += _seat_and_work(path, "ana", {(t.source, t.idx): t for t in tasks}, [1.0])
    code, out, _ = cli(
        "sessions",
        "merge",
        str(tmp_path / "one.db"),
        str(tmp_path / "two.db"),
        "--out",
        str(merged),
    )
    assert code == 1 and "1 session(s) added, 0 already present, 1 conflict(s)" in out
    assert f"  {made[1]}  {tmp_path / 'two.db'}: its study 'pilot' is not the output's study" in out
    with Store(merged) as store:
        assert [s.uuid for s in store.sessions()] == [made[0]]
        assert len(db.list_studies(store)) == 1
