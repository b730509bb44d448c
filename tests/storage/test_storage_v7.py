"""Schema version 7: the events table's actor rule without an IN list (bulk inserts pay for an IN
list on every row); a version 6 database keeps every event and annotation, and the rules hold."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from crmarena_tui.storage import Store
from crmarena_tui.storage import schema as schema_mod
from tests.support.agents_llm_support import make_task
from tests.support.storage_support import integrity, v1_session

STAMP = "2025-01-01T00:00:00.000000Z"


def _v6_database(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    with monkeypatch.context() as old:
        old.setattr(schema_mod, "MIGRATIONS", schema_mod.MIGRATIONS[:6])
        old.setattr(schema_mod, "SCHEMA_VERSION", 6)
        with Store(path) as store:
            who = store.participant("human", "ana")
    with closing(sqlite3.connect(path)) as conn:
        sid = v1_session(conn, who.id, make_task(3))
        conn.executemany(
            "INSERT INTO events (session_id, seq, ts, actor, kind, payload) VALUES (?, ?, ?, ?, ?, ?)",
            [
                (sid, 1, STAMP, "human", "query", '{"text":"SELECT Id FROM Case"}'),
                (sid, 2, None, "system", "observation", '{"observation":"[]"}'),
                (sid, 3, STAMP, "agent", "thought", '{"text":"look"}'),
                (sid, 4, STAMP, "user", "message", '{"text":"hi"}'),
            ],
        )
        conn.execute(
            "INSERT INTO annotations (session_id, event_seq, kind, label, note, annotator,"
            " created_at) VALUES (?, 2, 'label', 'empty result', 'x', 'bo', ?)",
            (sid, STAMP),
        )
        conn.commit()
    return who.id, sid


def test_a_version_6_database_keeps_its_events_and_annotations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "v6.db"
    _, sid = _v6_database(path, monkeypatch)
    with Store(path) as store:
        assert store.schema_version == schema_mod.SCHEMA_VERSION >= 7
        events = store.events(sid)
        assert [(e.seq, e.actor, e.kind, e.ts is None) for e in events] == [
            (1, "human", "query", False),
            (2, "system", "observation", True),
            (3, "agent", "thought", False),
            (4, "user", "message", False),
        ]
        assert events[0].payload == {"text": "SELECT Id FROM Case"}
        labels = store.annotations.find(sid)
        assert [(a.label, a.event_seq, a.annotator) for a in labels] == [("empty result", 2, "bo")]
        assert integrity(store) == "ok"
        with pytest.raises(Exception, match="does not exist"):
            store.annotations.add(
                sid, "x", annotator="bo", event_seq=99
            )  # still tied to the events


def test_the_rules_hold_after_the_rebuild(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "v6.db"
    _, sid = _v6_database(path, monkeypatch)
    Store(path).close()
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA foreign_keys = ON")
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            conn.execute(
                "INSERT INTO events (session_id, seq, actor, kind) VALUES (?, 9, 'robot', 'x')",
                (sid,),
            )
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            conn.execute(
                "INSERT INTO annotations (session_id, kind, label, annotator, created_at)"
                " VALUES (?, 'comment', 'x', 'bo', ?)",
                (sid, STAMP),
            )
        with pytest.raises(sqlite3.IntegrityError, match="UNIQUE|PRIMARY"):
            conn.execute(
                "INSERT INTO events (session_id, seq, actor, kind) VALUES (?, 1, 'human', 'x')",
                (sid,),
            )
        with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
            conn.execute(
                "INSERT INTO events (session_id, seq, actor, kind) VALUES (999, 1, 'human', 'x')"
            )
        tables = {
            name: sql
            for name, sql in conn.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'table'"
            )
        }
        # The per-row rules of the two largest tables use no IN list (see _v7_cheaper_event_checks).
        assert " IN (" not in tables["events"] and " IN (" not in tables["annotations"]
