"""Schema 20 (`v20_review_queues`): review queues (issue 41, item 4), read and written by
storage/reviews.py.

- `review_queues`: a queue by name: the level of its items (`session`, `step`; `suggestion`
  when made from a scan's suggestions, each item one suggestion at its own level), how many
  people review each item (`reviews`), whether it is `blind` (no suggestion shown to an
  annotator before their own label on the item is saved), the scan its suggestions come from
  (`scan_id`, the `scans` table of schema 19) and the selection it was made from (the
  `--where`/`--search` text).
- `review_items`: the queue's items in order (`position` from 1): a session, or a step of it
  (`event_seq`, the step's anchor event), and the suggestion the item asks about.
- `review_assignments`: who took which item, and when they finished it (`done_at`, NULL while
  it is theirs to review). An item takes at most `reviews` people; one person takes an item
  once.
- `review_decisions`: what a person did on an item: `label` (their own label, the annotation
  written), `accept` (the item's suggestion taken as a label: the annotation written, its
  origin the suggestion), `reject` (the suggestion refused, no annotation) or `note`.
  `annotation_id` names the annotation a `label`, `accept` or `note` wrote, so a label keeps
  its origin (`suggestion_id`) in the database.
Every statement is `IF NOT EXISTS`: a database whose version was set back runs it again.
"""

from __future__ import annotations

import sqlite3

_V20 = [
    """
    CREATE TABLE IF NOT EXISTS review_queues (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        level TEXT NOT NULL CHECK (level IN ('session', 'step', 'suggestion')),
        reviews INTEGER NOT NULL DEFAULT 1 CHECK (reviews >= 1),
        blind INTEGER NOT NULL DEFAULT 0,
        scan_id INTEGER REFERENCES scans(id) ON DELETE SET NULL,
        selection TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS review_items (
        id INTEGER PRIMARY KEY,
        queue_id INTEGER NOT NULL REFERENCES review_queues(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        event_seq INTEGER,
        suggestion_id INTEGER REFERENCES suggestions(id) ON DELETE SET NULL,
        UNIQUE (queue_id, position)
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS review_assignments (
        item_id INTEGER NOT NULL REFERENCES review_items(id) ON DELETE CASCADE,
        annotator TEXT NOT NULL,
        assigned_at TEXT NOT NULL,
        done_at TEXT,
        PRIMARY KEY (item_id, annotator)
    )
    """,
    "CREATE INDEX IF NOT EXISTS review_assignments_by_annotator ON review_assignments (annotator, item_id)",
    """
    CREATE TABLE IF NOT EXISTS review_decisions (
        id INTEGER PRIMARY KEY,
        item_id INTEGER NOT NULL REFERENCES review_items(id) ON DELETE CASCADE,
        annotator TEXT NOT NULL,
        decision TEXT NOT NULL CHECK (decision IN ('label', 'accept', 'reject', 'note')),
        label TEXT NOT NULL DEFAULT '',
        suggestion_id INTEGER REFERENCES suggestions(id) ON DELETE SET NULL,
        annotation_id INTEGER REFERENCES annotations(id) ON DELETE SET NULL,
        created_at TEXT NOT NULL
    )
    """,
    "CREATE INDEX IF NOT EXISTS review_decisions_by_item ON review_decisions (item_id, annotator)",
    "CREATE INDEX IF NOT EXISTS review_decisions_by_annotation ON review_decisions (annotation_id)",
]


def v20_review_queues(db: sqlite3.Connection) -> None:
    """Schema 20 (module docstring): review queues, their items, assignments and decisions."""
    for statement in _V20:
        db.execute(statement)
