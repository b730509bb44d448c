"""Search checked against duckdb over the exports (issue 40): the generated set of
test_search_sessions.py with its truth written to a truth file (the sessions each query must
find, computed in Python from the raw events), and, for each query, the sessions `search` finds,
the truth file's and those duckdb's SQL finds over `export --events` (Parquet) and the sessions
export (JSON Lines), written as a researcher would write it: from the exported text, not from
the columns the search's own rules fill (`error_code`, `object`). `export --search` and `export
--where '?…'` write those sessions."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from crmarena_tui.cli import main
from crmarena_tui.storage import Store, search
from crmarena_tui.storage.end_reason import end_kind
from tests.storage.test_search_sessions import QUERIES, Made
from tests.storage.test_search_sessions import generated as generated  # (the fixture)

# an error naming the object, a query reading it (the first word after FROM)
ERR_CASE = "e.kind = 'error' AND e.text LIKE 'INVALID_FIELD:%' AND e.text ILIKE '%entity ''case''%'"
FROM_CASE = "(e.kind = 'query' AND lower(e.text) LIKE '% from case %')"
NAMES_CASE = f"({FROM_CASE} OR (e.kind = 'error' AND e.text ILIKE '%entity ''case''%'))"
EVERY = "SELECT session_id FROM s"
ORACLE: dict[str, str] = {  # search -> duckdb SQL finding the same sessions
    "error:INVALID_FIELD object:Case then kind:submit": (
        "SELECT a.session_id FROM e a JOIN e b USING (session_id)"
        f" WHERE {ERR_CASE.replace('e.', 'a.')} AND b.kind = 'submit' AND b.seq > a.seq"
    ),
    "error:INVALID_FIELD object:Case -kind:submit": (
        f"SELECT session_id FROM e WHERE {ERR_CASE}"
        " EXCEPT SELECT session_id FROM e WHERE kind = 'submit'"
    ),
    "error:INVALID_FIELD object:Case then not kind:submit": (
        f"SELECT a.session_id FROM e a WHERE {ERR_CASE.replace('e.', 'a.')} AND NOT EXISTS"
        " (SELECT 1 FROM e b WHERE b.session_id = a.session_id AND b.kind = 'submit'"
        " AND b.seq > a.seq)"
    ),
    "kind:query then kind:error then -object:Case": (
        "SELECT b.session_id FROM e a JOIN e b USING (session_id) WHERE a.kind = 'query'"
        " AND b.kind = 'error' AND b.seq > a.seq AND NOT EXISTS (SELECT 1 FROM e c"
        f" WHERE c.session_id = b.session_id AND c.seq > b.seq AND {NAMES_CASE.replace('e.', 'c.')})"
    ),
    "NOT object:Case": f"{EVERY} EXCEPT SELECT session_id FROM e WHERE {NAMES_CASE}",
    "-object:Case": f"{EVERY} EXCEPT SELECT session_id FROM e WHERE {NAMES_CASE}",
    "kind:query object:Contract then error:MALFORMED_QUERY then kind:submit": (
        "SELECT a.session_id FROM e a JOIN e b USING (session_id) JOIN e c USING (session_id)"
        " WHERE a.kind = 'query' AND lower(a.text) LIKE '% from contract %'"
        " AND b.kind = 'error' AND b.text LIKE 'MALFORMED_QUERY:%' AND b.seq > a.seq"
        " AND c.kind = 'submit' AND c.seq > b.seq"
    ),
    "not (kind:query then error:INVALID_FIELD)": (
        f"{EVERY} EXCEPT SELECT a.session_id FROM e a JOIN e b USING (session_id)"
        " WHERE a.kind = 'query' AND b.kind = 'error' AND b.text LIKE 'INVALID_FIELD:%'"
        " AND b.seq > a.seq"
    ),
    "ended:max-turns": "SELECT session_id FROM s WHERE end_kind(end_reason) = 'max-turns'",
    "ended:submit,query-error": (
        "SELECT session_id FROM s WHERE end_kind(end_reason) IN ('submit', 'query-error')"
    ),
    "kind:error -ended:submit": (
        "SELECT session_id FROM e WHERE kind = 'error'"
        " EXCEPT SELECT session_id FROM s WHERE end_kind(end_reason) = 'submit'"
    ),
    'label:"wrong object" kind:thought': (
        "SELECT session_id FROM s, unnest(annotations) AS a(x) WHERE x.label = 'wrong object'"
        " INTERSECT SELECT session_id FROM e WHERE kind = 'thought'"
    ),
    '-label:"wrong object" source:hf': (
        "SELECT session_id FROM s WHERE task_source LIKE 'hf:%' EXCEPT"
        " SELECT session_id FROM s, unnest(annotations) AS a(x) WHERE x.label = 'wrong object'"
    ),
    r're:"500Wt\d{3}7"': (
        r"SELECT session_id FROM e WHERE regexp_matches(text, '500Wt\d{3}7')"
        " AND NOT (kind = 'system' AND text LIKE 'You work for%')"
    ),
    r"kind:observation re:500Wt\d{3}7 then kind:submit": (
        "SELECT a.session_id FROM e a JOIN e b USING (session_id) WHERE a.kind = 'observation'"
        r" AND regexp_matches(a.text, '500Wt\d{3}7') AND b.kind = 'submit' AND b.seq > a.seq"
    ),
    "kind:prompt Globex": (
        "SELECT session_id FROM e WHERE kind = 'system' AND text LIKE 'You work for Globex%'"
    ),
    "participant:gpt-4o": (
        r"SELECT session_id FROM e WHERE regexp_matches(configuration, '^gpt-4o(-\d{4}-\d{2}-\d{2})?/')"
    ),
    "participant:o1": (
        r"SELECT session_id FROM e WHERE regexp_matches(configuration, '^o1(-\d{4}-\d{2}-\d{2})?/')"
    ),
    "participant:gpt-4o/react kind:submit": (
        "SELECT session_id FROM e WHERE configuration = 'gpt-4o-2024-08-06/react'"
        " INTERSECT SELECT session_id FROM e WHERE kind = 'submit'"
    ),
    "trial:2,3 kind:submit": (
        "SELECT session_id FROM s WHERE trial IN (2, 3)"
        " INTERSECT SELECT session_id FROM e WHERE kind = 'submit'"
    ),
    "kind:error -trial:1": (
        "SELECT session_id FROM e WHERE kind = 'error'"
        " EXCEPT SELECT session_id FROM s WHERE trial = 1"
    ),
}


@pytest.fixture(scope="module")
def exported(
    generated: tuple[Path, list[Made]], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[duckdb.DuckDBPyConnection, dict[str, list[int]]]]:
    """duckdb over the two exports (`e` the events, `s` the sessions; a configuration is an event's column), and the truth file's
    contents (written, then read back)."""
    path, made = generated
    folder = tmp_path_factory.mktemp("exports")
    events, sessions = folder / "events.parquet", folder / "sessions.jsonl"
    assert main(["export", "--events", "--db", str(path), "--out", str(events)]) == 0
    assert main(["export", "--db", str(path), "--out", str(sessions)]) == 0
    truth_file = folder / "truth.json"
    truth_file.write_text(
        json.dumps({text: sorted(m.sid for m in made if test(m)) for text, test in QUERIES})
    )
    db = duckdb.connect()
    db.create_function("end_kind", end_kind, ["VARCHAR"], "VARCHAR")
    db.execute(f"CREATE VIEW e AS SELECT * FROM read_parquet('{events}')")
    db.execute(f"CREATE VIEW s AS SELECT * FROM read_json('{sessions}')")
    yield db, json.loads(truth_file.read_text())
    db.close()


def test_every_query_has_its_duckdb_question() -> None:
    assert set(ORACLE) == {text for text, _ in QUERIES}


@pytest.mark.parametrize("text", list(ORACLE))
def test_search_finds_what_the_truth_file_and_duckdb_find(
    generated: tuple[Path, list[Made]],
    exported: tuple[duckdb.DuckDBPyConnection, dict[str, list[int]]],
    text: str,
) -> None:
    db, truth = exported
    by_duckdb = {int(r[0]) for r in db.sql(ORACLE[text]).fetchall()}
    with Store(generated[0]) as store:
        found = set(search.run(store, text).sessions)
    assert len(found) > 0 and found == set(truth[text]) == by_duckdb


@pytest.mark.parametrize("text", list(ORACLE)[:2])
def test_export_search_writes_the_sessions_duckdb_finds(
    tmp_path: Path,
    generated: tuple[Path, list[Made]],
    exported: tuple[duckdb.DuckDBPyConnection, dict[str, list[int]]],
    text: str,
) -> None:
    path, _ = generated
    expected = {int(r[0]) for r in exported[0].sql(ORACLE[text]).fetchall()}
    for n, option in enumerate((["--search", text], ["--where", f"?{text}"])):  # (the same)
        out = tmp_path / f"found{n}.jsonl"
        assert main(["export", "--db", str(path), "--out", str(out), *option]) == 0
        written = {json.loads(line)["session_id"] for line in out.read_text().splitlines()}
        assert expected and written == expected
