"""The schema of baseline studies (studies/): version 6 (`studies`, their participants and queues,
and a `uuid` on every session so that sessions travel between databases) and version 9 (every try
at a study's join screen). `storage/schema.py` lists them in its migrations."""

from __future__ import annotations

import sqlite3
import uuid

_V6 = [
    """
    CREATE TABLE studies (
        id INTEGER PRIMARY KEY,
        uuid TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL UNIQUE,
        tasks TEXT NOT NULL,
        org TEXT,
        per_task INTEGER NOT NULL CHECK (per_task >= 1),
        seed INTEGER NOT NULL,
        time_limit_minutes REAL,
        show_grade TEXT NOT NULL DEFAULT 'after-submit'
            CHECK (show_grade IN ('after-submit', 'never')),
        status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
        created_at REAL NOT NULL
    )
    """,
    """
    CREATE TABLE study_participants (
        study_id INTEGER NOT NULL REFERENCES studies(id),
        name TEXT NOT NULL,
        join_code TEXT NOT NULL,
        position INTEGER NOT NULL,
        PRIMARY KEY (study_id, name)
    )
    """,
    """
    CREATE TABLE study_assignments (
        study_id INTEGER NOT NULL,
        participant TEXT NOT NULL,
        position INTEGER NOT NULL,
        task_source TEXT NOT NULL,
        task_idx INTEGER NOT NULL,
        task_type TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (study_id, participant, position),
        UNIQUE (study_id, participant, task_source, task_idx),
        FOREIGN KEY (study_id, participant) REFERENCES study_participants(study_id, name)
    )
    """,
    "ALTER TABLE sessions ADD COLUMN uuid TEXT",
    "ALTER TABLE sessions ADD COLUMN study_id INTEGER REFERENCES studies(id)",
    "CREATE INDEX sessions_by_study ON sessions (study_id, participant_id)",
    # A row inserted without a uuid (by hand, or by an older writer) still gets one.
    """
    CREATE TRIGGER sessions_get_a_uuid AFTER INSERT ON sessions WHEN NEW.uuid IS NULL
    BEGIN
        UPDATE sessions SET uuid = lower(hex(randomblob(16))) WHERE id = NEW.id;
    END
    """,
]


def v6_studies(db: sqlite3.Connection) -> None:
    """Baseline studies, and sessions that travel between databases. Each session has a `uuid`
    (32 hex digits; existing rows get a random uuid4 each), unique across every copy of the
    database, by which `sessions merge` recognises it; and the `study_id` it was worked in (NULL
    outside a study). A study (`studies`, named, with its own uuid so an exported copy is
    recognised on import) has participants by name with a join code (`study_participants`) and
    each participant's queue of tasks in order (`study_assignments`)."""
    for statement in _V6[:5]:
        db.execute(statement)
    ids = [row[0] for row in db.execute("SELECT id FROM sessions ORDER BY id")]
    db.executemany(
        "UPDATE sessions SET uuid = ? WHERE id = ?", [(uuid.uuid4().hex, i) for i in ids]
    )
    db.execute("CREATE UNIQUE INDEX sessions_by_uuid ON sessions (uuid)")
    for statement in _V6[5:]:
        db.execute(statement)


_V9 = [
    """
    CREATE TABLE study_join_attempts (
        id INTEGER PRIMARY KEY,
        study_id INTEGER NOT NULL REFERENCES studies(id),
        participant TEXT NOT NULL,
        at TEXT NOT NULL,
        connection TEXT NOT NULL DEFAULT '',
        outcome TEXT NOT NULL CHECK (
            outcome = 'joined' OR outcome = 'wrong_code' OR outcome = 'unknown_name'
            OR outcome = 'locked'
        )
    )
    """,
    "CREATE INDEX study_join_attempts_by_name ON study_join_attempts (study_id, participant, id)",
]


def v9_study_join_attempts(db: sqlite3.Connection) -> None:
    """Every try at a study's join screen (`studies/joins.py`): the name as typed, when (ISO
    text), from which connection, and how it went (`joined`, `wrong_code`, `unknown_name`,
    or `locked`: refused unread because the name had too many wrong codes). Kept in the database
    so the lockout holds across connections, each its own `play` process."""
    for statement in _V9:
        db.execute(statement)
