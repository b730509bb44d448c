"""Schema version 10: the sessions database made for browsing (Datasette, `sqlite-utils`, any
SQLite client), without changing what the project reads.

- `current_grades`: each session's current grade (its newest: `Store.grade`), one row a session;
  a re-grade adds rows to `grades`, this view always shows the one that counts.
- `session_overview`: one row per session without the multi-kilobyte task snapshot: who
  (participant name, kind, model), which task, its kind, status, protocol and times, the current
  grade (reward, grader, extraction, no_answer) and the counts of its labels and notes.
- `annotations.level` stored (`session` or `step`, as the reports name it; a trigger fills it for
  every writer that leaves it out, `sessions merge` and the import included).
- `studies.created_at` as ISO-8601 UTC text, like every other time (it was Unix seconds).

Schema version 15 (`storage/schema_trials.py`) makes `session_overview` again with the trial number
and the simulated user. Schema version 18 (`storage/schema_dump.py`) makes both views again in a
form that answers a page without grouping every grade first: each session's current grade is the
grade whose id is the session's highest (`CURRENT_GRADES_V18`, `SESSION_OVERVIEW_V18`), found
through the `grades_by_session` index one session at a time, so Datasette's `LIMIT 101` reads
101 sessions and a facet reads only the columns it counts.
"""

from __future__ import annotations

import sqlite3

CURRENT_GRADES = """
CREATE VIEW current_grades AS
SELECT g.*
FROM grades AS g
JOIN (SELECT session_id, MAX(id) AS id FROM grades GROUP BY session_id) AS newest
  ON newest.id = g.id
"""

SESSION_OVERVIEW = """
CREATE VIEW session_overview AS
SELECT
    s.id AS session_id,
    s.uuid AS session_uuid,
    p.name AS participant,
    p.kind AS participant_kind,
    p.model AS model,
    s.task_source,
    s.task_idx,
    s.task_type,
    s.kind AS session_kind,
    s.parent_session_id,
    s.interactive,
    s.aided,
    s.status,
    s.protocol,
    s.started_at,
    s.ended_at,
    s.active_seconds,
    g.reward,
    g.grader,
    g.extraction,
    json_extract(g.metrics, '$.no_answer') AS no_answer,
    g.protocol AS grade_protocol,
    (SELECT COUNT(*) FROM annotations a WHERE a.session_id = s.id AND a.kind = 'label') AS labels,
    (SELECT COUNT(*) FROM annotations a WHERE a.session_id = s.id AND a.kind = 'note') AS notes,
    st.name AS study
FROM sessions AS s
JOIN participants AS p ON p.id = s.participant_id
LEFT JOIN current_grades AS g ON g.session_id = s.id
LEFT JOIN studies AS st ON st.id = s.study_id
"""

# schema 18: the newest grade of each session found by its id, per row, never by a GROUP BY
CURRENT_GRADES_V18 = """
CREATE VIEW current_grades AS
SELECT g.*
FROM grades AS g
WHERE g.id = (SELECT MAX(n.id) FROM grades AS n WHERE n.session_id = g.session_id)
"""


def _of(table: str, where: str, columns: dict[str, str]) -> str:
    return "".join(
        f"    (SELECT {expr} FROM {table} WHERE {where}) AS {name},\n"
        for name, expr in columns.items()
    )


_NEWEST = "g.session_id = s.id ORDER BY g.id DESC LIMIT 1"
# schema 18: every column read from another table a scalar subquery on a key, so that a page
# computes them for its rows only, and a count or a facet of other columns never does
SESSION_OVERVIEW_V18 = (
    "\nCREATE VIEW session_overview AS\nSELECT\n"
    "    s.id AS session_id,\n"
    "    s.uuid AS session_uuid,\n"
    + _of(
        "participants AS p",
        "p.id = s.participant_id",
        {"participant": "p.name", "participant_kind": "p.kind", "model": "p.model"},
    )
    + "".join(f"    s.{c},\n" for c in ("task_source", "task_idx", "trial", "task_type"))
    + "    s.kind AS session_kind,\n"
    + "".join(
        f"    s.{c},\n"
        for c in (
            "parent_session_id",
            "interactive",
            "aided",
            "user_simulator",
            "status",
            "protocol",
            "started_at",
            "ended_at",
            "active_seconds",
        )
    )  # fmt: skip
    + _of(
        "grades AS g",
        _NEWEST,
        {
            "reward": "g.reward",
            "grader": "g.grader",
            "extraction": "g.extraction",
            "no_answer": "json_extract(g.metrics, '$.no_answer')",
            "grade_protocol": "g.protocol",
        },
    )
    + "    (SELECT COUNT(*) FROM annotations a WHERE a.session_id = s.id AND a.kind = 'label')"
    " AS labels,\n"
    "    (SELECT COUNT(*) FROM annotations a WHERE a.session_id = s.id AND a.kind = 'note')"
    " AS notes,\n"
    "    (SELECT st.name FROM studies AS st WHERE st.id = s.study_id) AS study\n"
    "FROM sessions AS s\n"
)

LEVEL_TRIGGER = """
CREATE TRIGGER annotations_level AFTER INSERT ON annotations WHEN NEW.level IS NULL
BEGIN
    UPDATE annotations
    SET level = CASE WHEN NEW.event_seq IS NULL THEN 'session' ELSE 'step' END
    WHERE id = NEW.id;
END
"""


def v10_browsing(db: sqlite3.Connection) -> None:
    """The views, the stored annotation level, ISO study times (module docstring)."""
    db.execute("ALTER TABLE annotations ADD COLUMN level TEXT")
    db.execute(
        "UPDATE annotations SET level = CASE WHEN event_seq IS NULL THEN 'session' ELSE 'step' END"
    )
    db.execute(LEVEL_TRIGGER)
    db.execute(
        "UPDATE studies SET created_at = strftime('%Y-%m-%dT%H:%M:%fZ', created_at, 'unixepoch')"
        " WHERE typeof(created_at) IN ('real', 'integer')"
    )
    db.execute(CURRENT_GRADES)
    db.execute(SESSION_OVERVIEW)
