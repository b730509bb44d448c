"""Schema version 18: the sessions database opens in Datasette, `sqlite-utils` and the `sqlite3`
shell at 100,000 sessions (issue 40).

- Datasette: `session_overview` and `current_grades` made again without a `GROUP BY` over every
  grade (`storage/schema_views.py`): a page of 101 rows reads 101 sessions, each one's newest
  grade found by `grades_by_session`, its participant and study by their keys, in scalar
  subqueries that a count or a facet of other columns never runs; `annotations_by_kind` counts a session's labels and notes
  from the index alone.
- `sqlite-utils dump`, Python's `Connection.iterdump` and the `sqlite3` shell's `.dump`: the
  full-text index (`event_search`, `storage/search_index.py`) was contentless with
  `columnsize=0`, a form of FTS5 that cannot be scanned ("table does not support scanning"),
  which stopped `iterdump` at its first row. It is now an external-content table over an empty
  view (`event_search_content`): a scan of it reads the view and returns no row, so a dump
  writes no row for it and restores it as its shadow tables (`event_search_data`, `_idx`,
  `_config`), copied as they are: the restored database searches at once, without a rebuild.
  Searches read only rowids, never the content, so the view is never asked for a row. The
  migration drops the old index and leaves every stored session to the next search to index
  (`search_pending`), as version 11 did.
- `schema_version`: the schema version in a table. A dump carries no `PRAGMA user_version`, so
  a restored database would read as version 0; opening it reads the version back from this
  table (`storage/connection.py`), and every migration keeps it current (`schema.migrate`).
"""

from __future__ import annotations

import sqlite3

from crmarena_tui.storage.schema_views import CURRENT_GRADES_V18, SESSION_OVERVIEW_V18
from crmarena_tui.storage.search_index import CREATE_TABLE, CREATE_TRIGGER, defer

CONTENT_VIEW = (
    "CREATE VIEW event_search_content (key, body, facets) AS SELECT NULL, NULL, NULL WHERE 0"
)
CREATE_TABLE_V18 = CREATE_TABLE.replace(
    "content=''", "content='event_search_content', content_rowid='key'"
)
CREATE_VERSION = "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"


def v18_dumpable(db: sqlite3.Connection) -> None:
    """Schema 18 (module docstring): views that answer a page at once, a full-text index a dump
    copies, the schema version in a table. Runs again on a database already at 18 whose
    `user_version` was set back (the index is then rebuilt at the next search)."""
    db.execute("DROP VIEW IF EXISTS session_overview")
    db.execute("DROP VIEW IF EXISTS current_grades")
    db.execute(CURRENT_GRADES_V18)
    db.execute(SESSION_OVERVIEW_V18)
    db.execute("CREATE INDEX IF NOT EXISTS annotations_by_kind ON annotations (session_id, kind)")
    db.execute("DROP TRIGGER IF EXISTS events_searchable")
    db.execute("DROP TABLE IF EXISTS event_search")
    db.execute("DROP VIEW IF EXISTS event_search_content")
    db.execute(CONTENT_VIEW)
    db.execute(CREATE_TABLE_V18)
    db.execute("DELETE FROM search_pending")
    defer(db, 0, int(db.execute("SELECT COALESCE(MAX(id), 0) FROM sessions").fetchone()[0]))
    db.execute(CREATE_TRIGGER)
    db.execute(CREATE_VERSION)
    db.execute("DELETE FROM schema_version")
    db.execute("INSERT INTO schema_version (version) VALUES (18)")
