"""Datasette on a sessions database at 100,000 sessions (issue 40), under its default limits (a
query gets 1 s, a facet 200 ms, a facet suggestion 50 ms).

A temporary database gets `--sessions` generated sessions (`tests/support/datasette_support.py`:
three agents, a task snapshot of 3 KB each, every third session graded twice, every fifth
labelled). One in-process Datasette (`datasette.app.Datasette`, its test client, no network)
serves, best of `--runs`:
- `session_overview`'s first page as the browser asks for it (the page, its count and the facet
  suggestions Datasette runs by default), and the page alone (`_nosuggest=1`);
- a facet of the view (`?_facet=status&_facet=task_type&_nosuggest=1`);
- the same three against the baselines in the same run: the `sessions` table itself (a plain
  `SELECT * FROM sessions LIMIT 101`), and the view as schema 17 made it (`session_overview_v17`,
  added to the temporary database: the grades grouped before the first row).
A reply that is not 200 (Datasette's "SQL query took too long") prints its error (Datasette also
logs its traceback on stderr). Run:
`.venv/bin/python benchmarks/bench_datasette.py --sessions 100000` (about a minute to build).

Measured 2026-12-02 on the shared 2-core machine (load about 4), 100,000 sessions, best of 3:

| request | `session_overview` | `sessions` table | schema 17's view |
|---|---|---|---|
| page alone (`_nosuggest=1`: page and count) | 5 ms | 4 ms | 1,464 ms: "took too long" |
| facet `status`, `task_type` | 176 ms | 86 ms | 1,629 ms |
| page as a browser asks (with facet suggestions) | 2,769 ms | 2,832 ms | 4,414 ms |

Facet suggestions (one 50 ms query per column and facet type) make up a default page's time, the
plain table's as much as the view's: `--setting suggest_facets off` leaves them out.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sqlite3
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

URLS = {
    "page": "/sessions/{table}.json",
    "page alone": "/sessions/{table}.json?_nosuggest=1",
    "facet": "/sessions/{table}.json?_facet=status&_facet=task_type&_nosuggest=1",
    "facet who": "/sessions/{table}.json?_facet=participant&_facet=model&_nosuggest=1",
    "facet grade": "/sessions/{table}.json?_facet=reward&_facet=grader&_nosuggest=1",
}
TABLES = ("session_overview", "sessions", "session_overview_v18", "session_overview_v17")


def build(path: Path, sessions: int) -> float:
    from crmarena_tui.storage.schema_trials import SESSION_OVERVIEW_V15
    from crmarena_tui.storage.schema_views import CURRENT_GRADES, SESSION_OVERVIEW_V18
    from tests.support.datasette_support import overview_db

    started = time.perf_counter()
    overview_db(path, sessions)
    with closing(sqlite3.connect(path)) as db:  # the baseline: schema 17's view, renamed
        old = CURRENT_GRADES.replace("VIEW current_grades", "VIEW current_grades_v17")
        db.execute(old)
        db.execute(
            SESSION_OVERVIEW_V15.replace(
                "VIEW session_overview", "VIEW session_overview_v17"
            ).replace("current_grades AS g", "current_grades_v17 AS g")
        )
        db.execute(
            SESSION_OVERVIEW_V18.replace("VIEW session_overview", "VIEW session_overview_v18")
        )
        db.commit()
    return time.perf_counter() - started


async def measure(path: Path, runs: int) -> list[tuple[str, str, float, str]]:
    from datasette.app import Datasette

    ds = Datasette(files=[str(path)])
    await ds.invoke_startup()
    await ds.client.get("/sessions.json")
    rows = []
    for name, url in URLS.items():
        for table in TABLES:
            if name in ("facet who", "facet grade") and table == "sessions":
                continue  # (the table has neither names nor grades)
            best, note = float("inf"), ""
            for _ in range(runs):
                started = time.perf_counter()
                reply = await ds.client.get(url.format(table=table))
                best = min(best, time.perf_counter() - started)
                body = reply.json()
                error = re.sub(r"<[^>]+>", "", str(body.get("error", ""))).strip()
                note = (
                    f"{reply.status_code} {error.splitlines()[0] if error else ''}".strip()
                    if reply.status_code != 200
                    else f"{len(body['rows'])} rows"
                    + (
                        f", facets timed out: {body['facets_timed_out']}"
                        if body.get("facets_timed_out")
                        else ""
                    )
                )
            rows.append((name, table, best, note))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "sessions.db"
        print(f"built {args.sessions:,} sessions in {build(path, args.sessions):.1f} s", flush=True)
        for name, table, best, note in asyncio.run(measure(path, args.runs)):
            print(f"{name:<11} {table:<21} {best * 1000:8.0f} ms  {note}", flush=True)


if __name__ == "__main__":
    main()
