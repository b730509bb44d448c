"""The report's provenance read (`reports/provenance.py`): per group of `report_sql.report_rows`,
how many of its graded sessions have each combination of org clock, schema and prompt sources
and judge (`storage/provenance.py`). One query, the JSON keys taken out by SQLite."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crmarena_tui.storage.report_sql import GROUP_COLUMNS

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store

_IN_GROUP = " AND ".join(f"grp.{c} IS b.{c}" for c in GROUP_COLUMNS[1:])
_PROVENANCE = f"""
SELECT grp.rowid,
  json_extract(s.settings, '$.org_today', '$.org_clock', '$.schema_source', '$.prompt_source'),
  g.judge_model, g.extraction, g.imported,
  json_extract(g.metrics, '$.judge_temperature', '$.judge_instructions', '$.no_answer'),
  COUNT(*)
FROM temp.{{table}} b CROSS JOIN temp.{{table}}_groups grp ON {_IN_GROUP}
JOIN sessions s ON s.id = b.id
JOIN grades g ON g.id = (SELECT MAX(id) FROM grades WHERE session_id = b.id)
GROUP BY 1, 2, 3, 4, 5, 6
"""
# a row: group number, settings facts (JSON array), judge model, extraction, imported,
# grade facts (JSON array), sessions
ROW = ("group", "settings", "judge_model", "extraction", "imported", "metrics", "n")


def provenance_rows(store: Store, table: str) -> list[tuple[Any, ...]]:
    """Rows of `ROW` over every graded session of `report_rows`' table."""
    return store.read(_PROVENANCE.format(table=table))
