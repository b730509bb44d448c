"""`session_summary` (schema 22, issue 40): the table `session_overview` reads stays equal to
what the base tables say (schema 18's view, computed from sessions, grades and annotations)
through every writer: the store, a re-grade, labels and notes added and removed, a session's
end, a merge into another database, and a database migrated from before the table existed."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from crmarena_tui.storage import Store
from crmarena_tui.storage.schema_views import SESSION_OVERVIEW_V18
from tests.support.study_support import cli, grade, work, write_tasks

_TRUTH = SESSION_OVERVIEW_V18.replace("VIEW session_overview", "TEMP VIEW truth")


def _rows(path: Path) -> tuple[list[tuple], list[tuple]]:
    """(session_overview's rows, the same columns computed from the base tables), by id."""
    with closing(sqlite3.connect(path)) as db:
        db.execute(_TRUTH)
        columns = [r[1] for r in db.execute("PRAGMA table_info(session_overview)")]
        names = ", ".join(columns)
        shown = db.execute(f"SELECT {names} FROM session_overview ORDER BY session_id")
        truth = db.execute(f"SELECT {names} FROM temp.truth ORDER BY session_id")
        return shown.fetchall(), truth.fetchall()


def _sessions(tmp_path: Path, path: Path) -> list[int]:
    tasks = write_tasks(tmp_path / "tasks.json", per_type=2)
    with Store(path) as store:
        a = work(store, "ana", tasks[0], study_id=None, reward=0.0)
        b = work(store, "bo", tasks[1], study_id=None, reward=1.0)
        c = work(store, "agent-x", tasks[2], study_id=None, reward=1.0, kind="agent", model="m")
        d = work(store, "ana", tasks[3], study_id=None)  # in progress, ungraded
        store.add_grade(a.id, grade(1.0, grader="fuzzy_match"))  # re-graded: this one counts
        store.annotations.add(a.id, "gave up", annotator="ann")
        store.annotations.add(a.id, "wrong field", annotator="ann", event_seq=1)
        store.annotations.add(b.id, "", "looked, fine", annotator="ann", kind="note")
        store.annotations.add(c.id, "gave up", annotator="bo")
        for mark in store.annotations.find(c.id):  # added, then removed
            store.annotations.remove(mark.id)
    return [a.id, b.id, c.id, d.id]


def test_the_overview_equals_the_base_tables_after_every_writer(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    ids = _sessions(tmp_path, path)
    shown, truth = _rows(path)
    assert shown == truth and len(shown) == 4
    by_id = {row[0]: row for row in shown}
    columns = [r[1] for r in sqlite3.connect(path).execute("PRAGMA table_info(session_overview)")]
    reward, labels, grader = (columns.index(c) for c in ("reward", "labels", "grader"))
    assert (by_id[ids[0]][reward], by_id[ids[0]][grader], by_id[ids[0]][labels]) == (
        1.0,
        "fuzzy_match",
        2,
    )
    assert by_id[ids[2]][labels] == 0  # added, then removed
    assert by_id[ids[3]][reward] is None
    merged = tmp_path / "merged.db"
    other = tmp_path / "other.db"
    _sessions(tmp_path, other)
    code, _out, err = cli("sessions", "merge", str(path), str(other), "--out", str(merged))
    assert code == 0, err
    shown, truth = _rows(merged)
    assert shown == truth and len(shown) == 8


def test_a_database_from_before_gets_the_summary_filled(tmp_path: Path, monkeypatch) -> None:
    from crmarena_tui.storage import schema as schema_mod

    path = tmp_path / "sessions.db"
    with monkeypatch.context() as old:  # a database as schema 20 made it
        old.setattr(schema_mod, "MIGRATIONS", schema_mod.MIGRATIONS[:20])
        old.setattr(schema_mod, "SCHEMA_VERSION", 20)
        _sessions(tmp_path, path)
    with closing(sqlite3.connect(path)) as db:
        assert not db.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'session_summary'"
        ).fetchall()
    with Store(path) as store:
        assert store.schema_version == schema_mod.SCHEMA_VERSION
    shown, truth = _rows(path)
    assert shown == truth and len(shown) == 4


def test_a_facet_reads_an_index_of_the_summary(tmp_path: Path) -> None:
    """Datasette's facet query groups the summary through its index: no session row is read,
    no grade looked up."""
    path = tmp_path / "sessions.db"
    _sessions(tmp_path, path)
    facet = (
        "SELECT {c} AS value, count(*) AS count FROM (SELECT * FROM session_overview)"
        " WHERE {c} IS NOT NULL GROUP BY {c} ORDER BY count DESC, value LIMIT 31"
    )
    with closing(sqlite3.connect(path)) as db:
        for column in ("status", "participant", "reward", "grader", "task_type", "model"):
            plan = " / ".join(
                r[3] for r in db.execute("EXPLAIN QUERY PLAN " + facet.format(c=column))
            )
            assert f"COVERING INDEX session_summary_{column}" in plan, plan
            assert "sessions" not in plan.replace("session_summary", ""), plan


def test_every_facet_suggestion_of_the_default_page_reads_an_index(tmp_path: Path) -> None:
    """Datasette's default page of the view suggests facets by grouping every column (schema
    23): each reads that column's index, also after the migration runs again."""
    path = tmp_path / "sessions.db"
    _sessions(tmp_path, path)
    suggestion = (
        "SELECT {c} AS value, count(*) AS n FROM (SELECT * FROM session_overview)"
        " WHERE value IS NOT NULL GROUP BY value LIMIT 31"
    )
    for again in (False, True):
        if again:
            with closing(sqlite3.connect(path)) as db:
                db.execute("PRAGMA user_version = 22")
            with Store(path) as store:
                assert store.schema_version == 24
        with closing(sqlite3.connect(path)) as db:
            columns = [r[1] for r in db.execute("PRAGMA table_info(session_overview)")]
            for column in columns[1:]:
                plan = " / ".join(
                    r[3] for r in db.execute("EXPLAIN QUERY PLAN " + suggestion.format(c=column))
                )
                assert f"COVERING INDEX session_summary_{column}" in plan, plan
    shown, truth = _rows(path)
    assert shown == truth


def test_an_import_writes_the_summary_of_its_sessions_in_bulk(tmp_path: Path) -> None:
    """`import` writes its sessions' summary rows once a batch (storage/bulk.py): equal to the
    base tables, beside older sessions a store wrote, with the session trigger back after."""
    from crmarena_tui.storage.upstream import UpstreamImporter

    path = tmp_path / "sessions.db"
    _sessions(tmp_path, path)
    upstream = Path(__file__).resolve().parents[1] / "data" / "upstream"
    with Store(path) as store:
        summary = UpstreamImporter(store, index=True).import_paths([upstream])
    assert summary.imported > 4
    shown, truth = _rows(path)
    assert shown == truth and len(shown) == 4 + summary.imported
    with closing(sqlite3.connect(path)) as db:
        assert db.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'sessions_summary_insert'"
        ).fetchone()
