"""Every distinct query the sessions database holds for one org type, with its task's date.

`org verify` replays them on two orgs (so queries from imported upstream trajectories are checked
too). The database is opened read-only; a missing file holds no queries.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from crmarena_tui.settings.sqlite_readonly import open_readonly
from crmarena_tui.tasks.model import TODAY

SQL = """
SELECT DISTINCT
    json_extract(e.payload, '$.text'),
    json_extract(s.task_json, '$.metadata.required'),
    json_extract(s.task_json, '$.metadata.optional')
FROM events e JOIN sessions s ON s.id = e.session_id
WHERE e.kind IN ('query', 'search') AND json_extract(s.task_json, '$.org_type') = ?
"""


def session_queries(db: Path, org_type: str) -> list[tuple[str, str | None]]:
    """(query text, the task's YYYY-MM-DD or None) pairs, in first-seen order."""
    if not Path(db).is_file():
        return []
    conn = open_readonly(db)
    try:
        rows = conn.execute(SQL, (org_type,)).fetchall()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):  # a database no session was ever stored in
            return []
        raise ValueError(f"{db}: cannot read the sessions database: {exc}") from None
    except sqlite3.DatabaseError as exc:
        raise ValueError(f"{db} is not a sessions database: {exc}") from None
    finally:
        conn.close()
    out: list[tuple[str, str | None]] = []
    seen: set[tuple[str, str | None]] = set()
    for text, required, optional in rows:
        if not isinstance(text, str) or not text.strip():
            continue
        found = TODAY.search(required or "") or TODAY.search(optional or "")
        item = (text, found.group(1) if found else None)
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out
