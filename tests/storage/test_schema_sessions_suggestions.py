"""Schema 24 (issue 40): Datasette's default page of the `sessions` table suggests facets by
grouping, typing and date-testing every column; each such query on a column other than the two
JSON texts reads that column's index, not the table's rows, also after the migration runs again."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from crmarena_tui.storage import Store
from crmarena_tui.storage import schema as schema_mod
from tests.support.agents_llm_support import make_task
from tests.support.spec_support import session_spec

# Datasette 0.65's three suggestion queries (facets.py), over the table page's own SELECT
SUGGESTIONS = (
    "SELECT {c} AS value, count(*) AS n FROM (SELECT * FROM sessions)"
    " WHERE value IS NOT NULL GROUP BY value LIMIT 31",
    "SELECT DISTINCT json_type({c}) FROM (SELECT * FROM sessions)"
    " WHERE {c} IS NOT NULL AND {c} != ''",
    "SELECT date({c}) FROM (SELECT * FROM sessions) WHERE {c} GLOB '????-??-*' LIMIT 100",
)
UNINDEXED = ("id", "task_json", "settings")  # (the rowid; two JSON texts an index would copy)


def _plans(path: Path) -> dict[str, list[str]]:
    with closing(sqlite3.connect(path)) as db:
        columns = [r[1] for r in db.execute("PRAGMA table_info(sessions)")]
        return {
            column: [
                " / ".join(r[3] for r in db.execute("EXPLAIN QUERY PLAN " + sql.format(c=column)))
                for sql in SUGGESTIONS
            ]
            for column in columns
            if column not in UNINDEXED
        }


def test_every_suggestion_on_the_sessions_page_reads_an_index(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    with Store(path) as store:
        who = store.participant("human", "ana")
        store.create_session(session_spec(who, make_task(1), "local", "demo"))
    for again in (False, True):
        if again:
            with closing(sqlite3.connect(path)) as db:
                db.execute("PRAGMA user_version = 23")
            with Store(path) as store:
                assert store.schema_version == schema_mod.SCHEMA_VERSION == 24
        plans = _plans(path)
        assert len(plans) == 23
        for column, shown in plans.items():
            for plan in shown:
                assert "COVERING INDEX" in plan, (column, plan)
