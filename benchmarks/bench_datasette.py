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

Schema 22 (`storage/schema_summary.py`: the view reads `session_summary`, an index per facet
column). `--db PATH` measures an existing database instead (migrated when opened; the baseline
views are added to it). 2026-12-02, the research set of `bench_research.py` (100,000 imported
sessions, migrated from schema 20 in 8.0 s), load 9 to 12 on the 2 cores, best of 3, whole
requests (page, count and the facets): the `session_overview` of schema 22 against schema 18's
view in the same run:

| request | schema 22 | schema 18 | `sessions` table | schema 17 |
|---|---|---|---|---|
| page alone | 9 ms | 10 ms | 12 ms | 6,595 ms: "took too long" |
| facet `status`, `task_type` | 179 ms | 458 ms | 515 ms | 1,739 ms |
| facet `participant`, `model` | 142 ms | 456 ms | - | 6,047 ms: "took too long" |
| facet `reward`, `grader` | 76 ms | 438 ms | - | 2,241 ms |
| page as a browser asks | 3,186 ms | 3,764 ms | 3,551 ms | 7,370 ms: "took too long" |

On the generated set of this script (3 KB task snapshots), before the migration ran on the copy
it had been made with, at load about 10: facets 203 / 529 / 143 ms against schema 18's 563 /
493 / 543 ms.

Schema 23 (an index on every column of the summary; `session_overview_v22` is a copy of the
summary with schema 22's indexes only, added in the same run). 2026-12-02, this script's set of
100,000 sessions (`--db`), load 6.5 on the 2 cores, best of 3, the default page (page, count and
Datasette's 81 facet suggestions): schema 23 1,173 ms, schema 22 2,800 ms, the `sessions` table
3,605 ms, schema 18 3,171 ms, schema 17 4,764 ms. The suggestions' queries take about 0.6 s of
CPU between them (the `json_type()` and date suggestions of numeric columns read every entry of
an index; `sqlite3` alone, no Datasette), 1.25 s before. The same day, `datasette serve` (its
defaults, the project's metadata) on a database `crmarena-tui import` had just written from
`bench_research.py`'s generated 100,000 sessions, by `curl`, three times each, load 2.5 to 5:
the HTML page of `session_overview` 0.67 to 0.85 s, its JSON 0.57 to 0.62 s, facets of status,
participant and reward 0.55 to 0.57 s (none timed out), the `sessions` table's default page
1.9 to 2.0 s (its suggestions read the task snapshots: not indexed, left as it is).

Schema 24 (issue 40): the `sessions` table's page. Its time was Datasette's facet suggestions,
three queries a column (group, `json_type`, a date `GLOB`), 78 in all, each reading the whole
table (at most 50 ms each): `sqlite3` alone, uncapped, 3.3 s of CPU between them at 100,000
sessions. Each column but `id` and the two JSON texts (`task_json`, `settings`) now has an index
(`schema._v24_sessions_suggestible`, 3.4 s to build at 100,000 sessions), and the same queries
take 1.6 s uncapped, those of an indexed column 0-35 ms each. `sessions_v23` is a copy of the
table with the indexes it had before. 2026-12-03, `--db` on a database `crmarena-tui import`
wrote from `bench_research.py`'s 100,000 sessions (migrated from 23), load 3.4 to 5.4 on the
2 cores (another engineer's suite beside it), best of 3, the default page (page, count and
suggestions): `sessions` 1,741 ms against 2,812 ms for `sessions_v23` (0.62x) and 2,110 ms for
`session_overview` in the same run. Under that load no page with suggestions came within a
second (`session_overview`'s measured 0.57-0.85 s on a quieter machine); the table's page is now
as quick as the view's. What is left is the capped queries: `json_type` and the date test of the
two JSON texts and of `id` (a table scan each, 50 ms), about 0.3 s.
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
    "page": "/{db}/{table}.json",
    "page alone": "/{db}/{table}.json?_nosuggest=1",
    "facet": "/{db}/{table}.json?_facet=status&_facet=task_type&_nosuggest=1",
    "facet who": "/{db}/{table}.json?_facet=participant&_facet=model&_nosuggest=1",
    "facet grade": "/{db}/{table}.json?_facet=reward&_facet=grader&_nosuggest=1",
}
TABLES = (
    "session_overview",
    "session_overview_v22",
    "sessions",
    "sessions_v23",
    "session_overview_v18",
    "session_overview_v17",
)
# the indexes `sessions` had before schema 24 (made again on `sessions_v23`, a copy of it)
SESSIONS_V23_INDEXES = (
    "(task_source, task_idx)",
    "(participant_id, task_source, task_idx, settings_key)",
    "(uuid)",
    "(study_id, participant_id)",
    "(participant_id, task_source, task_idx, trial)",
    "(task_source, task_idx, participant_id, task_type, status, kind, parent_session_id,"
    " started_at, active_seconds, interactive, org_ref, protocol, trial)",
)


def build(path: Path, sessions: int) -> float:
    from tests.support.datasette_support import overview_db

    started = time.perf_counter()
    overview_db(path, sessions)
    add_baselines(path)
    return time.perf_counter() - started


def add_baselines(path: Path) -> None:
    """The views of schemas 17 and 18 beside the database's own, renamed, and schema 22's: a
    copy of the summary with only the facet columns' indexes (`session_overview_v22`); a copy
    of `sessions` with the indexes it had before schema 24 (`sessions_v23`, made once)."""
    from crmarena_tui.storage.schema_summary import FACETED, SESSION_OVERVIEW_V22
    from crmarena_tui.storage.schema_trials import SESSION_OVERVIEW_V15
    from crmarena_tui.storage.schema_views import CURRENT_GRADES, SESSION_OVERVIEW_V18

    with closing(sqlite3.connect(path)) as db:
        if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'sessions_v23'").fetchone():
            db.execute("CREATE TABLE sessions_v23 AS SELECT * FROM sessions")
            for k, columns in enumerate(SESSIONS_V23_INDEXES):
                db.execute(f"CREATE INDEX sessions_v23_{k} ON sessions_v23 {columns}")
        db.execute("DROP VIEW IF EXISTS session_overview_v22")
        db.execute("DROP TABLE IF EXISTS session_summary_v22")
        db.execute("CREATE TABLE session_summary_v22 AS SELECT * FROM session_summary")
        for column in FACETED:
            db.execute(f"CREATE INDEX v22_{column} ON session_summary_v22 ({column})")
        db.execute(
            SESSION_OVERVIEW_V22.replace(
                "VIEW session_overview", "VIEW session_overview_v22"
            ).replace("FROM session_summary", "FROM session_summary_v22")
        )
        for name in ("session_overview_v17", "current_grades_v17", "session_overview_v18"):
            db.execute(f"DROP VIEW IF EXISTS {name}")
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


async def measure(path: Path, runs: int) -> list[tuple[str, str, float, str]]:
    from datasette.app import Datasette

    ds = Datasette(files=[str(path)])
    await ds.invoke_startup()
    await ds.client.get(f"/{path.stem}.json")
    rows = []
    for name, url in URLS.items():
        for table in TABLES:
            if name in ("facet who", "facet grade") and table.startswith("sessions"):
                continue  # (the table has neither names nor grades)
            if name != "page" and table in ("session_overview_v22", "sessions_v23"):
                continue  # (the same facets and page as schema 23's: indexes are the change)
            best, note = float("inf"), ""
            for _ in range(runs):
                started = time.perf_counter()
                reply = await ds.client.get(url.format(db=path.stem, table=table))
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
    parser.add_argument(
        "--db",
        type=Path,
        default=None,
        help="measure this sessions database instead (opened, so migrated, first; the baseline"
        " views are added to it)",
    )
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.db is not None:
        from crmarena_tui.storage import Store

        with Store(args.db) as store:
            print(f"{args.db}: schema {store.schema_version}", flush=True)
        add_baselines(args.db)
        for name, table, best, note in asyncio.run(measure(args.db, args.runs)):
            print(f"{name:<11} {table:<21} {best * 1000:8.0f} ms  {note}", flush=True)
        return
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "sessions.db"
        print(f"built {args.sessions:,} sessions in {build(path, args.sessions):.1f} s", flush=True)
        for name, table, best, note in asyncio.run(measure(path, args.runs)):
            print(f"{name:<11} {table:<21} {best * 1000:8.0f} ms  {note}", flush=True)


if __name__ == "__main__":
    main()
