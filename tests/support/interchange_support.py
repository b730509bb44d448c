"""Sessions compared across two sessions databases by uuid, as a round trip through another
harness's format must keep them: every column but the local ids, with the participant, the
fork's parent (by uuid), the events, the grades and the labels and notes."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

_SESSION = (
    "SELECT s.uuid, p.kind, p.name, p.model, p.settings, s.task_source, s.task_idx, s.task_type,"
    " s.task_json, s.org_kind, s.org_ref, s.interactive, s.aided, s.blind, s.status,"
    " s.started_at, s.ended_at, s.active_seconds, s.app_version, s.settings_key, s.settings,"
    " s.user_simulator, s.fork_seq, s.kind, s.protocol, s.trial,"
    " (SELECT uuid FROM sessions q WHERE q.id = s.parent_session_id)"
    " FROM sessions s JOIN participants p ON p.id = s.participant_id"
)
_EVENTS = (
    "SELECT s.uuid, e.seq, e.ts, e.actor, e.kind, e.payload, e.duration_ms"
    " FROM events e JOIN sessions s ON s.id = e.session_id ORDER BY s.uuid, e.seq"
)
_GRADES = (
    "SELECT s.uuid, g.answer, g.parsed_answer, g.reward, g.metrics, g.grader, g.grader_version,"
    " g.judge_model, g.judge_raw, g.extraction, g.imported, g.graded_at, g.protocol"
    " FROM grades g JOIN sessions s ON s.id = g.session_id ORDER BY s.uuid, g.id"
)
_NOTES = (
    "SELECT s.uuid, a.event_seq, a.kind, a.label, a.note, a.annotator, a.created_at"
    " FROM annotations a JOIN sessions s ON s.id = a.session_id ORDER BY s.uuid, a.id"
)


def database_contents(db: Path, uuids: set[str] | None = None) -> dict[str, list[Any]]:
    """Sessions, events, grades and annotations of `db` (only sessions in `uuids` if given),
    without local ids, in a stable order."""
    conn = sqlite3.connect(db)
    try:
        found = {}
        for name, sql in (
            ("sessions", _SESSION + " ORDER BY s.uuid"),
            ("events", _EVENTS),
            ("grades", _GRADES),
            ("annotations", _NOTES),
        ):
            rows = conn.execute(sql).fetchall()
            found[name] = [r for r in rows if uuids is None or r[0] in uuids]
        return found
    finally:
        conn.close()
