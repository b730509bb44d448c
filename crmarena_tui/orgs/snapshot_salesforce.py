"""`org snapshot salesforce:<type>`: copy a live org into a staging snapshot, one object at a time.

Every benchmark object is described, then queried for all its fields (compound address and
location fields, and binary fields, left out), following `nextRecordsUrl` pages. Each object is
written in one transaction together with its line in `_snapshot_objects`, so a failure loses at
most the object in flight: running the snapshot again skips the objects already written. Columns
carry the describe's field type as their declared type (`sf:datetime`), which the importer reads
for fields the benchmark schema does not know; a text field's declared type ends in ` text`
(`sf:string text`) so that SQLite keeps its values as text (a bare `sf:string` would store
`00001026`, a case number, as the number 1026).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from crmarena_tui.orgs.salesforce_auth import SalesforceApiError, SalesforceConnection
from crmarena_tui.orgs.salesforce_schema import _TYPES as DESCRIBE_TYPES
from crmarena_tui.orgs.salesforce_schema import fetch_describes
from crmarena_tui.orgs.soql.schema_index import quote_ident
from crmarena_tui.orgs.upstream import ORIGINAL_OBJECTS

SKIPPED_TYPES = frozenset({"address", "location", "base64", "complexvalue"})
DECLARED_PREFIX = "sf:"
# field types whose values SQLite may store as numbers (every other type is text)
NON_TEXT_TYPES = frozenset({"int", "double", "currency", "percent", "boolean"})
Progress = Callable[[int, int, str], None]  # (objects done, objects in all, what happens now)

STATE_SQL = """
CREATE TABLE IF NOT EXISTS _snapshot_objects (
    name TEXT PRIMARY KEY, rows INTEGER NOT NULL, fields TEXT NOT NULL, written_at TEXT NOT NULL
)
"""


class SnapshotStopped(RuntimeError):
    """The live org stopped answering part way; what was written stays for the next run."""


def benchmark_objects(org_type: str) -> list[str]:
    from crmarena_tui.orgs.reference_schema import reference_schema

    return list(ORIGINAL_OBJECTS) if org_type == "original" else list(reference_schema().objects)


def _value(v: Any) -> Any:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, dict | list):
        return json.dumps(v, ensure_ascii=False)
    return v


def _fetch_all(conn: SalesforceConnection, soql: str) -> list[dict[str, Any]]:
    def first(sf: Any) -> dict[str, Any]:
        return dict(sf.query(soql))

    page = conn.call(first)
    records: list[dict[str, Any]] = list(page.get("records") or [])
    while not page.get("done", True) and page.get("nextRecordsUrl"):
        url = str(page["nextRecordsUrl"])

        def more(sf: Any, url: str = url) -> dict[str, Any]:
            return dict(sf.query_more(url, identifier_is_url=True))

        page = conn.call(more)
        records.extend(page.get("records") or [])
    return records


def _declared(describe_type: str) -> str:
    """The declared type of a staging column: `sf:<field type>`, with a text affinity for text."""
    field_type = DESCRIBE_TYPES.get(describe_type, "string")
    affinity = " text" if field_type not in NON_TEXT_TYPES else ""
    return f'"{DECLARED_PREFIX}{field_type}{affinity}"'


def _write_object(
    db: sqlite3.Connection, name: str, fields: list[dict[str, Any]], rows: list[dict[str, Any]]
) -> None:
    names = [f["name"] for f in fields]
    cols = ", ".join(f"{quote_ident(f['name'])} {_declared(f['type'])}" for f in fields)
    marks = ", ".join("?" for _ in names)
    with db:
        db.execute(f"DROP TABLE IF EXISTS {quote_ident(name)}")
        db.execute(f"CREATE TABLE {quote_ident(name)} ({cols})")
        db.executemany(
            f"INSERT INTO {quote_ident(name)} VALUES ({marks})",
            ([_value(r.get(n)) for n in names] for r in rows),
        )
        db.execute(
            "INSERT OR REPLACE INTO _snapshot_objects VALUES (?, ?, ?, ?)",
            (name, len(rows), json.dumps(names), datetime.now(UTC).isoformat()),
        )


def snapshot_org(
    org_type: str,
    staging: Path,
    *,
    env: Mapping[str, str] | None = None,
    progress: Progress | None = None,
) -> Path:
    """Copy every benchmark object of the live `org_type` org into `staging` (resumable)."""
    conn = SalesforceConnection(org_type, env=env)
    described = fetch_describes(conn, benchmark_objects(org_type))["objects"]
    staging.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(staging)
    try:
        db.execute(STATE_SQL)
        done = {row[0] for row in db.execute("SELECT name FROM _snapshot_objects")}
        total, written = len(described), len(done)
        for n, obj in enumerate(described):
            name = obj["name"]
            if name in done:
                if progress:
                    progress(n + 1, total, f"{name}: written by an earlier run")
                continue
            fields = [f for f in obj["fields"] if f["type"] not in SKIPPED_TYPES]
            soql = f"SELECT {', '.join(f['name'] for f in fields)} FROM {name}"
            if progress:
                progress(n, total, f"{name}: querying {len(fields)} fields")
            try:
                rows = _fetch_all(conn, soql)
            except SalesforceApiError as exc:
                raise SnapshotStopped(
                    f"the snapshot stopped at {name} ({exc}); {written} of {total} objects are "
                    f"written in {staging}: run the same command again to continue"
                ) from None
            _write_object(db, name, fields, rows)
            written += 1
            if progress:
                progress(n + 1, total, f"{name}: {len(rows):,} records")
    finally:
        db.close()
    return staging
