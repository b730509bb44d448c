"""Schema 18 (issue 40): the sessions database backed up and restored by every tool the README
names. `sqlite-utils dump`, Python's `Connection.iterdump` and the `sqlite3` shell's `.dump` write
a script that restores an equal database, which opens as a sessions database and searches at once
(a dump carries no `PRAGMA user_version`, and the full-text index travels as its shadow tables);
an older database migrates to the form that dumps."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from crmarena_tui.storage import Store, search
from crmarena_tui.storage import schema as schema_mod
from tests.support.agents_llm_support import make_task
from tests.support.spec_support import session_spec
from tests.support.study_support import grade


def _fill(store: Store) -> list[int]:
    """Two sessions with queries, an error and a submitted answer; the first graded twice."""
    who = store.participant("human", "ana")
    ids = []
    for n in (1, 2):
        sid = store.create_session(session_spec(who, make_task(n), "local", "d")).id
        store.append_event(sid, "human", "query", {"text": "SELECT Id FROM Case"})
        store.append_event(sid, "system", "error", {"error": "INVALID_FIELD: no Zebrafish__c"})
        store.append_event(sid, "human", "submit", {"answer": f"answer {n}"})
        ids.append(sid)
    return ids


def _content(path: Path) -> dict[str, list[tuple]]:
    """Every table's rows (the full-text index's shadow tables included) and the schema."""
    with closing(sqlite3.connect(path)) as db:
        schema = db.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name"
        ).fetchall()
        rows = {"": sorted(schema)}
        for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'"
            " AND name NOT LIKE 'sqlite_%'"
        ).fetchall():
            rows[name] = sorted(db.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr)
    return rows


def _iterdump(path: Path) -> str:
    with closing(sqlite3.connect(path)) as db:
        return "\n".join(db.iterdump())


def _sqlite_utils(path: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "sqlite_utils", "dump", str(path)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def _shell(path: Path) -> str:
    done = subprocess.run(
        ["sqlite3", str(path), ".dump"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


DUMPS = {"iterdump": _iterdump, "sqlite-utils": _sqlite_utils, "sqlite3 .dump": _shell}


@pytest.mark.parametrize("tool", sorted(DUMPS))
def test_a_dump_restores_an_equal_database_that_searches_at_once(tmp_path: Path, tool: str) -> None:
    if tool == "sqlite3 .dump" and shutil.which("sqlite3") is None:
        pytest.skip("no sqlite3 shell on this machine")
    path = tmp_path / "sessions.db"
    with Store(path) as store:
        ids = _fill(store)
        before = search.run(store, "error:invalid_field Zebrafish").hits
        assert before == [(ids[0], 2), (ids[1], 2)]
    script = DUMPS[tool](path)
    restored = tmp_path / "restored.db"
    with closing(sqlite3.connect(restored)) as db:
        db.executescript(script)
    assert _content(restored) == _content(path)
    with Store(restored) as store:  # a sessions database at the current version, index kept
        assert store.schema_version == schema_mod.SCHEMA_VERSION
        assert store.read("SELECT COUNT(*) FROM search_pending")[0][0] == 0
        assert search.run(store, "error:invalid_field Zebrafish").hits == before
        new = store.create_session(
            session_spec(store.participant("human", "bo"), make_task(3), "local", "d")
        ).id
        store.append_event(new, "human", "query", {"text": "SELECT Id FROM Zebrafish__c"})
        assert search.run(store, "Zebrafish").session_count == 3  # the index grows on


def test_a_database_from_schema_17_migrates_and_dumps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "v17.db"
    with monkeypatch.context() as old:
        old.setattr(schema_mod, "MIGRATIONS", schema_mod.MIGRATIONS[:17])
        old.setattr(schema_mod, "SCHEMA_VERSION", 17)
        with Store(path) as store:
            ids = _fill(store)
            store.add_grade(ids[0], grade(0.0))
            store.add_grade(ids[0], grade(1.0))  # re-graded: this one counts
            assert search.run(store, "Zebrafish").session_count == 2  # the old index, built
    with closing(sqlite3.connect(path)) as db, pytest.raises(sqlite3.OperationalError):
        list(db.iterdump())  # "event_search: table does not support scanning"
    with Store(path) as store:
        assert store.schema_version == schema_mod.SCHEMA_VERSION >= 18
        assert store.read("SELECT version FROM schema_version") == [(store.schema_version,)]
        overview = store.read("SELECT session_id, reward FROM session_overview ORDER BY 1")
        assert [tuple(r) for r in overview] == [(ids[0], 1.0), (ids[1], None)]
        assert search.run(store, "error:invalid_field Zebrafish").hits == [
            (ids[0], 2), (ids[1], 2),
        ]  # fmt: skip
    assert "event_search" in _iterdump(path)
