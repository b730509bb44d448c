"""Schema version 4: events may have no time (imported upstream steps), and annotators' notes are
annotations (kind `note`) rather than events inside the trajectory they comment on."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from crmarena_tui.storage import Store
from crmarena_tui.storage import schema as schema_mod
from tests.support.agents_llm_support import make_task
from tests.support.storage_support import integrity, v1_session

STAMP = "2025-01-01T00:00:00.000000Z"


def _event(conn: sqlite3.Connection, sid: int, seq: int, kind: str, payload: dict) -> None:
    conn.execute(
        "INSERT INTO events (session_id, seq, ts, actor, kind, payload) VALUES (?, ?, ?, ?, ?, ?)",
        (sid, seq, STAMP, "human", kind, json.dumps(payload)),
    )


def test_a_version_3_database_moves_notes_to_annotations_and_forgets_invented_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "v3.db"
    with monkeypatch.context() as old:
        old.setattr(schema_mod, "MIGRATIONS", schema_mod.MIGRATIONS[:3])
        old.setattr(schema_mod, "SCHEMA_VERSION", 3)
        with Store(path) as store:
            who = store.participant("human", "ana")
    with closing(sqlite3.connect(path)) as conn:
        played = v1_session(conn, who.id, make_task(3))
        imported = v1_session(conn, who.id, make_task(4))
        conn.execute(
            "UPDATE sessions SET settings = ? WHERE id = ?",
            (json.dumps({"imported_from": "upstream"}), imported),
        )
        _event(conn, played, 1, "query", {"text": "SELECT Id FROM Case"})
        _event(conn, played, 2, "note", {"text": "my own scratch note"})  # the player's: stays
        _event(conn, played, 3, "note", {"text": "wrong object", "annotator": "bo", "about_seq": 1})
        _event(conn, played, 4, "note", {"text": "gave up", "annotator": "cy", "about_seq": None})
        _event(conn, imported, 1, "query", {"text": "SELECT Id FROM User"})
        conn.execute(
            "INSERT INTO annotations (session_id, event_seq, label, note, annotator, created_at)"
            " VALUES (?, 1, 'wrong field', 'x', 'bo', ?)",
            (played, STAMP),
        )
        conn.commit()
    with Store(path) as store:
        assert store.schema_version == schema_mod.SCHEMA_VERSION  # every later migration runs too
        assert [e.kind for e in store.events(played)] == ["query", "note"]
        assert store.events(played)[0].ts is not None
        assert [e.ts for e in store.events(imported)] == [None]
        labels = store.annotations.find(played)
        assert [(a.label, a.kind, a.event_seq) for a in labels] == [("wrong field", "label", 1)]
        notes = store.annotations.find(played, kind="note")
        assert [(n.note, n.annotator, n.event_seq, n.level) for n in notes] == [
            ("wrong object", "bo", 1, "step"),
            ("gave up", "cy", None, "session"),
        ]
        assert integrity(store) == "ok"
        with pytest.raises(Exception, match="does not exist"):
            store.annotations.add(played, "x", annotator="bo", event_seq=99)
        note = store.annotations.add(
            played, "", "look again", annotator="bo", event_seq=1, kind="note"
        )
        assert (note.kind, note.label, note.note) == ("note", "", "look again")
