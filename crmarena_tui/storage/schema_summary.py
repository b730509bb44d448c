"""Schema version 22: `session_summary`, one small row per session holding every column of
`session_overview`, kept in step by triggers, and the view made again as a plain read of it
(issue 40: Datasette's facets at 100,000 sessions under its default limits).

Datasette counts a facet as `GROUP BY` over the whole view. Over the view of schema 18 that read
every session's row (a few kilobytes each: the task snapshot is stored inline) and, for a facet
of the participant, the reward or the grader, ran a subquery per session: 0.2 to 1.5 s at
100,000 sessions, past Datasette's 200 ms facet limit on a loaded machine. A facet now groups
the summary's rows (about a hundred bytes each), through an index on the column it counts.

The summary is kept in step by triggers, so every writer (the store, `import`'s bulk writer,
`sessions merge`, labelling, a study's renaming) keeps it current without knowing it exists: a
new session's row is written whole (`ROW`, the same SELECT the migration fills the table with,
after deleting any row of its id rather than `INSERT OR REPLACE`, whose conflict policy a
trigger would take from the statement that fired it); a change to a session, a new grade or an
annotation updates only the columns it changes; a grade changed or deleted writes the row again.
The cost falls on writers, mostly the indexes: importing 10,000 upstream-shaped sessions took
34.7 s of CPU against 30.4 s without the table (2026-12-02, loaded 2-core machine); `FACETED` is
the list to shorten should an import need it back (a facet of an unindexed column scans the
table: 0.2 to 0.35 s at 100,000 sessions under load, past Datasette's 200 ms). The grade shown is the
session's newest (highest id), as `current_grades` says; `labels` and `notes` count its
annotations of each kind. `grade_id` says which grade that is (not shown in the view).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

CREATE_TABLE = """
CREATE TABLE session_summary (
    session_id INTEGER PRIMARY KEY,
    session_uuid TEXT,
    participant TEXT,
    participant_kind TEXT,
    model TEXT,
    task_source TEXT,
    task_idx INTEGER,
    trial INTEGER,
    task_type TEXT,
    session_kind TEXT,
    parent_session_id INTEGER,
    interactive INTEGER,
    aided INTEGER,
    user_simulator TEXT,
    status TEXT,
    protocol TEXT,
    started_at TEXT,
    ended_at TEXT,
    active_seconds REAL,
    grade_id INTEGER,
    reward REAL,
    grader TEXT,
    extraction TEXT,
    no_answer,
    grade_protocol TEXT,
    labels INTEGER NOT NULL DEFAULT 0,
    notes INTEGER NOT NULL DEFAULT 0,
    study TEXT
)
"""

# the columns Datasette offers as facets, each indexed: a facet reads its index alone
FACETED = (
    "participant",
    "participant_kind",
    "model",
    "task_source",
    "task_type",
    "session_kind",
    "status",
    "protocol",
    "reward",
    "grader",
    "trial",
    "study",
)

_NEWEST = "(SELECT MAX(n.id) FROM grades AS n WHERE n.session_id = s.id)"
# the summary row of each session `s` the WHERE clause appended to it keeps
ROW = f"""
SELECT
    s.id, s.uuid, p.name, p.kind, p.model, s.task_source, s.task_idx, s.trial, s.task_type,
    s.kind, s.parent_session_id, s.interactive, s.aided, s.user_simulator, s.status, s.protocol,
    s.started_at, s.ended_at, s.active_seconds,
    g.id, g.reward, g.grader, g.extraction, json_extract(g.metrics, '$.no_answer'), g.protocol,
    (SELECT COUNT(*) FROM annotations a WHERE a.session_id = s.id AND a.kind = 'label'),
    (SELECT COUNT(*) FROM annotations a WHERE a.session_id = s.id AND a.kind = 'note'),
    (SELECT st.name FROM studies AS st WHERE st.id = s.study_id)
FROM sessions AS s
JOIN participants AS p ON p.id = s.participant_id
LEFT JOIN grades AS g ON g.id = {_NEWEST}
"""

VIEW_COLUMNS = (
    "session_id",
    "session_uuid",
    "participant",
    "participant_kind",
    "model",
    "task_source",
    "task_idx",
    "trial",
    "task_type",
    "session_kind",
    "parent_session_id",
    "interactive",
    "aided",
    "user_simulator",
    "status",
    "protocol",
    "started_at",
    "ended_at",
    "active_seconds",
    "reward",
    "grader",
    "extraction",
    "no_answer",
    "grade_protocol",
    "labels",
    "notes",
    "study",
)
SESSION_OVERVIEW_V22 = (
    f"CREATE VIEW session_overview AS SELECT {', '.join(VIEW_COLUMNS)} FROM session_summary"
)


def _again(session: str) -> str:
    """Trigger statements writing the summary row of the session `session` names again."""
    return (
        f"DELETE FROM session_summary WHERE session_id = {session};\n"
        f"INSERT INTO session_summary {ROW} WHERE s.id = {session};\n"
    )


def _counts(session: str) -> str:
    """Trigger statement counting the labels and notes of the session `session` names again."""
    return (
        "UPDATE session_summary SET"
        f" labels = (SELECT COUNT(*) FROM annotations a WHERE a.session_id = {session}"
        " AND a.kind = 'label'),"
        f" notes = (SELECT COUNT(*) FROM annotations a WHERE a.session_id = {session}"
        " AND a.kind = 'note')"
        f" WHERE session_id = {session};\n"
    )


# a session's own columns, as a session's row changes them (its grade and counts unchanged)
_SESSION_SET = (
    "session_id = NEW.id, session_uuid = NEW.uuid,"
    " participant = (SELECT p.name FROM participants p WHERE p.id = NEW.participant_id),"
    " participant_kind = (SELECT p.kind FROM participants p WHERE p.id = NEW.participant_id),"
    " model = (SELECT p.model FROM participants p WHERE p.id = NEW.participant_id),"
    " task_source = NEW.task_source, task_idx = NEW.task_idx, trial = NEW.trial,"
    " task_type = NEW.task_type, session_kind = NEW.kind,"
    " parent_session_id = NEW.parent_session_id, interactive = NEW.interactive,"
    " aided = NEW.aided, user_simulator = NEW.user_simulator, status = NEW.status,"
    " protocol = NEW.protocol, started_at = NEW.started_at, ended_at = NEW.ended_at,"
    " active_seconds = NEW.active_seconds,"
    " study = (SELECT st.name FROM studies st WHERE st.id = NEW.study_id)"
)
# a new grade is the session's current one unless a newer one is already there
_NEW_GRADE = (
    "UPDATE session_summary SET grade_id = NEW.id, reward = NEW.reward, grader = NEW.grader,"
    " extraction = NEW.extraction, no_answer = json_extract(NEW.metrics, '$.no_answer'),"
    " grade_protocol = NEW.protocol"
    " WHERE session_id = NEW.session_id AND (grade_id IS NULL OR grade_id < NEW.id);\n"
)

# (name, event, statements): every change to a table the summary reads; a new session's row is
# written whole, a change writes only the columns it changes (an import's sessions and grades
# come one after the other: each index of the summary written once a session, then the grade's)
_TRIGGERS = (
    ("sessions_summary_insert", "AFTER INSERT ON sessions", _again("NEW.id")),
    (
        "sessions_summary_update",
        "AFTER UPDATE OF id, uuid, participant_id, task_source, task_idx, trial, task_type, kind,"
        " parent_session_id, interactive, aided, user_simulator, status, protocol, started_at,"
        " ended_at, active_seconds, study_id ON sessions",
        f"UPDATE session_summary SET {_SESSION_SET} WHERE session_id = OLD.id;\n",
    ),
    (
        "sessions_summary_delete",
        "AFTER DELETE ON sessions",
        "DELETE FROM session_summary WHERE session_id = OLD.id;\n",
    ),
    ("grades_summary_insert", "AFTER INSERT ON grades", _NEW_GRADE),
    (
        "grades_summary_update",
        "AFTER UPDATE ON grades",
        _again("OLD.session_id") + _again("NEW.session_id"),
    ),
    ("grades_summary_delete", "AFTER DELETE ON grades", _again("OLD.session_id")),
    ("annotations_summary_insert", "AFTER INSERT ON annotations", _counts("NEW.session_id")),
    (
        "annotations_summary_update",
        "AFTER UPDATE OF session_id, kind ON annotations",
        _counts("OLD.session_id") + _counts("NEW.session_id"),
    ),
    ("annotations_summary_delete", "AFTER DELETE ON annotations", _counts("OLD.session_id")),
    (
        "participants_summary_update",
        "AFTER UPDATE OF name, kind, model ON participants",
        "UPDATE session_summary SET participant = NEW.name, participant_kind = NEW.kind,"
        " model = NEW.model WHERE session_id IN"
        " (SELECT id FROM sessions WHERE participant_id = NEW.id);\n",
    ),
    (
        "studies_summary_update",
        "AFTER UPDATE OF name ON studies",
        "UPDATE session_summary SET study = NEW.name WHERE session_id IN"
        " (SELECT id FROM sessions WHERE study_id = NEW.id);\n",
    ),
)
TRIGGERS = tuple(
    f"CREATE TRIGGER {name} {event}\nBEGIN\n{body}END" for name, event, body in _TRIGGERS
)


def v22_session_summary(db: sqlite3.Connection) -> None:
    """Schema 22 (module docstring): the summary table filled from every session, its facet
    indexes, the triggers that keep it in step, and `session_overview` reading it. Built anew
    when it runs again (a database whose version was set back): the table is derived data."""
    for name, _, _ in _TRIGGERS:
        db.execute(f"DROP TRIGGER IF EXISTS {name}")
    db.execute("DROP VIEW IF EXISTS session_overview")
    db.execute("DROP TABLE IF EXISTS session_summary")
    db.execute(CREATE_TABLE)
    db.execute(f"INSERT INTO session_summary {ROW} ORDER BY s.id")
    for column in FACETED:
        db.execute(f"CREATE INDEX session_summary_{column} ON session_summary ({column})")
    for trigger in TRIGGERS:
        db.execute(trigger)
    db.execute("DROP VIEW IF EXISTS session_overview")
    db.execute(SESSION_OVERVIEW_V22)


# every other column of the view (issue 40): Datasette's default page runs, for each column, a
# facet suggestion (a GROUP BY, a json_type() and a date glob over every row, 50 ms each); each
# reads the column's index instead of the summary's rows
SUGGESTED = tuple(c for c in VIEW_COLUMNS if c not in FACETED and c != "session_id")


def v23_every_column_indexed(db: sqlite3.Connection) -> None:
    """Schema 23: an index on each column of `session_overview` schema 22 left without one, so
    that Datasette's default page (its facet suggestions) at 100,000 sessions reads indexes of a
    few megabytes rather than the summary 81 times. Rerunnable (`IF NOT EXISTS`)."""
    for column in SUGGESTED:
        db.execute(
            f"CREATE INDEX IF NOT EXISTS session_summary_{column} ON session_summary ({column})"
        )


@contextmanager
def summary_after(conn: sqlite3.Connection, first: int, last: int) -> Iterator[None]:
    """Inside the caller's write transaction (a bulk writer's batch of new sessions, ids `first`
    to `last`): the sessions inserted in the block get their summary rows in one statement at
    its end rather than a trigger's DELETE and INSERT each, and their grades (whose trigger finds
    no row yet) are read then; grades and annotations of older sessions still update theirs."""
    conn.execute("DROP TRIGGER sessions_summary_insert")
    try:
        yield
        conn.execute(
            f"INSERT INTO session_summary {ROW} WHERE s.id BETWEEN ? AND ? AND NOT EXISTS"
            " (SELECT 1 FROM session_summary AS o WHERE o.session_id = s.id) ORDER BY s.id",
            (first, last),
        )
    finally:
        conn.execute(TRIGGERS[0])
