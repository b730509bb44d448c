"""Datasette metadata for a sessions database (`crmarena-tui sessions datasette-metadata`): the
tables that are the project's own bookkeeping hidden, so that Datasette's database page lists
what a researcher reads (sessions, events, grades, annotations, studies, the views).

Hidden (still queryable, and listed under "hidden tables"): the full-text index `event_search`
and its shadow tables (storage/search_index.py, read by `crmarena-tui search`, whose rows are
index entries, not text), the sessions it has still to index (`search_pending`), who works which
attempt (`leases`), who took which review item (`review_assignments`: `review status` reads it),
the copy of the schema version a dump carries (`schema_version`), and the summary table
`session_overview` reads (`session_summary`, storage/schema_summary.py). The scanners' and review
queues' tables (issue 41) are described.
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
    "review_assignments",
    "session_summary",
)
DESCRIPTIONS = {
    "session_overview": "One row per session: who, which task, its status and current grade.",
    "current_grades": "Each session's current grade (its newest).",
    "scans": "Runs of a model scanner (crmarena-tui scan): what it asked (labels, a rubric, "
    "themes), the model, the prompt version, the selection; a themes pass's own tokens and cost.",
    "scan_readings": "One row per session a scan read: ok or failed (with its error), tokens, "
    "cost in USD (empty: unknown price), seconds.",
    "suggestions": "What a scan proposed about a session or a step (event_seq): a failure-mode "
    "label or a rubric's answer (JSON), with a reason. Suggestions, never labels.",
    "rubrics": "Questions a scan answers by name, with the JSON Schema of the answer and whether "
    "the transcript shows the task's expected answer.",
    "themes": "Themes a themes pass (a scan of kind themes) named over reasons and notes.",
    "theme_members": "Each reason (a suggestion's) or note (an annotation's) a theme holds, with "
    "its session and step.",
    "review_queues": "Review queues (crmarena-tui review): the level of their items, people per "
    "item (reviews), blind or not, the scan their suggestions come from.",
    "review_items": "A queue's items in order: a session or a step, and the suggestion asked.",
    "review_decisions": "What each annotator did on an item: label, accept (the suggestion taken "
    "as their label), reject or note; annotation_id names the label or note written.",
}


def metadata(db: Path) -> dict[str, Any]:
    """The metadata (`datasette DB --metadata FILE`) for the sessions database at `db`."""
    tables: dict[str, dict[str, Any]] = {name: {"hidden": True} for name in INTERNAL}
    tables.update({name: {"description": text} for name, text in DESCRIPTIONS.items()})
    return {"databases": {Path(db).stem: {"tables": tables}}}
