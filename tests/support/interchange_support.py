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


def played_sessions(db: Path) -> list[int]:
    """Real sessions on demo tasks (`demo:small`): the reference agent's on three single-turn
    b2b tasks and one chat with the scripted user, one of them graded again under the other
    protocol (two grades), a label on a step and a note on a session; their ids."""
    from crmarena_tui.demo.generator import ensure_demo_org
    from crmarena_tui.demo.tasks import demo_tasks
    from crmarena_tui.orgs.local import LocalOrg
    from crmarena_tui.session.service import SessionService
    from crmarena_tui.settings.config import load_settings
    from tests.support.reference_agent_support import Player

    tasks = demo_tasks("b2b", size="small")
    chosen = [t for t in tasks if not t.interactive][:3] + [t for t in tasks if t.interactive][:1]
    player = Player(db)
    org = LocalOrg(ensure_demo_org("b2b"))
    try:
        ids = [player.play(task, org).episode.session_id for task in chosen]
        store = player.store
        SessionService(load_settings()).regrade(store, ids[0], "upstream")
        store.annotations.add(ids[1], "wrong_filter", "the date range is off", "ann", 2)
        store.annotations.add(ids[2], "", "a clean run", "bob", kind="note")
    finally:
        org.close()
        player.close()
    return ids
