"""What the report reads, for databases of 100,000 sessions: two queries, no task snapshots.

A session's row holds its whole task (`task_json`, ground truth and metadata: most of the table's
bytes); the report needs only two of its keys, `org_type` (the split, `storage.configuration`) and
`reward_metric` (an ungraded attempt's metric). `report_sessions` reads every session without its
snapshot, those two keys taken out by SQLite (`json_type` / `json_extract`), and the latest grade
of every graded session (the highest grade id, as `Store.grade`) without its judge's raw reply. A
session whose two keys are not plain text (a number, an object: never written by this project)
has its whole snapshot read, so the figures are those of the full models whatever the database.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from crmarena_tui.storage import convert

if TYPE_CHECKING:
    from crmarena_tui.storage.models import GradeRow, Session
    from crmarena_tui.storage.store import Store

KEPT_TASK_KEYS = ("org_type", "reward_metric")  # the only task keys a report reads
_SESSION_COLUMNS = (
    "id, participant_id, task_source, task_idx, task_type, org_kind, org_ref, interactive,"
    " aided, blind, status, started_at, ended_at, active_seconds, app_version, settings_key,"
    " settings, user_simulator, parent_session_id, fork_seq, kind, protocol, uuid, study_id"
)
_KEYS = ", ".join(
    f"json_type(task_json, '$.{k}'), json_extract(task_json, '$.{k}')" for k in KEPT_TASK_KEYS
)
_SESSIONS = f"SELECT {_SESSION_COLUMNS}, {_KEYS} FROM sessions ORDER BY id"
_GRADE_COLUMNS = (
    "id, session_id, answer, parsed_answer, reward, metrics, grader, grader_version,"
    " judge_model, NULL AS judge_raw, extraction, imported, graded_at, protocol"
)
_LATEST_GRADES = (
    f"SELECT {_GRADE_COLUMNS} FROM grades"
    " WHERE id IN (SELECT MAX(id) FROM grades GROUP BY session_id)"
)


def report_sessions(store: Store) -> tuple[list[Session], dict[int, GradeRow]]:
    """Every session in id order, its `task_json` holding only `KEPT_TASK_KEYS` (those it has),
    and {session id: its latest grade}."""
    names = [c.strip() for c in _SESSION_COLUMNS.split(",")]
    width = len(names)
    sessions = []
    for row in store.read(_SESSIONS):
        fields: dict[str, Any] = dict(zip(names, row[:width], strict=True))
        task: dict[str, Any] = {}
        plain = True
        for k, key in enumerate(KEPT_TASK_KEYS):
            kind, value = row[width + 2 * k], row[width + 2 * k + 1]
            if kind == "text":
                task[key] = value
            elif kind is not None:
                plain = False
        if not plain:  # an odd snapshot: read it whole, keep the same two keys
            (text,) = store.read("SELECT task_json FROM sessions WHERE id = ?", (fields["id"],))[0]
            whole = convert.loads(text, {})
            task = {key: whole[key] for key in KEPT_TASK_KEYS if key in whole}
        fields["task_json"] = json.dumps(task) if task else None
        sessions.append(convert.session_from_row(fields))
    grade_names = [c.strip().split(" AS ")[-1] for c in _GRADE_COLUMNS.split(",")]
    grades = {}
    for row in store.read(_LATEST_GRADES):
        grade = convert.grade_from_row(dict(zip(grade_names, row, strict=True)))
        grades[grade.session_id] = grade
    return sessions, grades
