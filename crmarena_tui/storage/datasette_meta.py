"""Datasette metadata for a sessions database (`crmarena-tui sessions datasette-metadata`): the
tables that are the project's own bookkeeping hidden, so that Datasette's database page lists
what a researcher reads (sessions, events, grades, annotations, studies, the views).

Hidden (still queryable, and listed under "hidden tables"): the full-text index `event_search`
and its shadow tables (storage/search_index.py, read by `crmarena-tui search`, whose rows are
index entries, not text), the sessions it has still to index (`search_pending`), who works which
attempt (`leases`), the copy of the schema version a dump carries (`schema_version`), and the
summary table `session_overview` reads (`session_summary`, storage/schema_summary.py).
Datasette names a database by its file's stem, so the metadata is keyed on it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

INTERNAL = (
    "event_search",
    "event_search_config",
    "event_search_data",
    "event_search_idx",
    "search_pending",
    "leases",
    "schema_version",
    "session_summary",
)
DESCRIPTIONS = {
    "session_overview": "One row per session: who, which task, its status and current grade.",
    "current_grades": "Each session's current grade (its newest).",
}


def metadata(db: Path) -> dict[str, Any]:
    """The metadata (`datasette DB --metadata FILE`) for the sessions database at `db`."""
    tables: dict[str, dict[str, Any]] = {name: {"hidden": True} for name in INTERNAL}
    tables.update({name: {"description": text} for name, text in DESCRIPTIONS.items()})
    return {"databases": {Path(db).stem: {"tables": tables}}}
