"""Datasette on a generated sessions database (issue 40), with its default limits (a query gets
1 s, a facet 200 ms): `session_overview` serves its pages and facets, the full-text index's table
opens, and the metadata of `crmarena-tui sessions datasette-metadata` hides the internal tables.
The 100,000-session figures are in benchmarks/bench_datasette.py."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from crmarena_tui.storage.datasette_meta import INTERNAL
from tests.support.datasette_support import STATUSES, overview_db
from tests.support.study_support import cli

SESSIONS = 20_000


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return overview_db(tmp_path_factory.mktemp("ds") / "sessions.db", SESSIONS)


def _serve(path: Path, metadata: dict[str, Any], *urls: str) -> list[dict[str, Any]]:
    """The JSON Datasette (default settings) answers for each of `urls`, with its status."""
    from datasette.app import Datasette

    async def get_all() -> list[dict[str, Any]]:
        ds = Datasette(files=[str(path)], metadata=metadata)
        await ds.invoke_startup()
        replies = []
        for url in urls:
            reply = await ds.client.get(url)
            replies.append({"status": reply.status_code, **reply.json()})
        return replies

    return asyncio.run(get_all())


def test_the_overview_pages_facets_and_index_open_under_the_default_limits(big: Path) -> None:
    code, out, err = cli("sessions", "datasette-metadata", "--db", str(big))
    assert code == 0, err
    first, facets, index, database = _serve(
        big,
        json.loads(out),
        "/sessions/session_overview.json",
        "/sessions/session_overview.json?_facet=status&_facet=participant&_facet=reward"
        "&_nosuggest=1",
        "/sessions/event_search.json",
        "/sessions.json",
    )
    assert first["status"] == 200, first
    assert len(first["rows"]) == 100
    columns = first["columns"]
    rows = [dict(zip(columns, row, strict=True)) for row in first["rows"]]
    assert all(r["reward"] == r["session_id"] % 2 for r in rows)  # the newest of two grades
    assert [r["labels"] for r in rows[:10]] == [int(r["session_id"] % 5 == 0) for r in rows[:10]]
    assert first["next_url"]
    assert facets["status"] == 200, facets
    counts = {
        name: {v["value"]: v["count"] for v in facet["results"]}
        for name, facet in facets["facet_results"].items()
    }
    assert counts["status"] == {s: len(range(k, SESSIONS, 3)) for k, s in enumerate(STATUSES)}
    assert sum(counts["participant"].values()) == SESSIONS
    assert counts["reward"] == {1.0: SESSIONS // 2, 0.0: SESSIONS // 2}  # each one's newest
    assert not facets.get("facets_timed_out")
    assert index["status"] == 200, index  # an FTS5 table that cannot be scanned errored here
    hidden = {t["name"] for t in database["tables"] if t["hidden"]}
    assert set(INTERNAL) <= hidden
    assert {"sessions", "events", "grades", "annotations"}.isdisjoint(hidden)


def test_a_page_of_the_overview_groups_no_grades(big: Path) -> None:
    """Datasette's page query reads the sessions in order and stops at its limit: no grouping
    of every grade, no sort, no materialized subquery before the first row."""
    with closing(sqlite3.connect(big)) as db:
        plan = " / ".join(
            row[3]
            for row in db.execute("EXPLAIN QUERY PLAN SELECT * FROM session_overview LIMIT 101")
        )
    assert "GROUP BY" not in plan and "MATERIALIZE" not in plan and "TEMP B-TREE" not in plan, plan
