"""The index's text and facets computed in Python (storage/search_text.py) are what the index's
SQL makes of the stored payload, for every payload it computes; an import that indexes as it
writes (`UpstreamImporter(index=True)`, the `import` command) leaves the same index as one
indexed afterwards by the first search."""

from __future__ import annotations

import json
import random
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from crmarena_tui.storage import Store, search, search_index
from crmarena_tui.storage.bulk import BulkWriter
from crmarena_tui.storage.merge import merge_databases
from crmarena_tui.storage.search_index import body_sql, facets_sql
from crmarena_tui.storage.search_text import index_values
from crmarena_tui.storage.upstream import UpstreamImporter
from tests.storage.test_search import UPSTREAM
from tests.storage.test_search_pending import _events, _indexed

PIECES = [
    "FROM", "from", " ", "\n", "\t", "\r", "Case", "(", ")", "`", ",", ";", "'", "entity '",
    "sObject type '", "SOBJECT TYPE '", " ENTITY '", "INVALID_FIELD", ":", "RETURNING",
    " returning ", "Ä", "İ", "x y", "Account", "é", "ß", "\x00", "😀",
]  # fmt: skip
KINDS = ["query", "search", "error", "observation", "message", "system", "submit"]


def _payload(rng: random.Random) -> dict[str, Any]:
    payload: dict[str, Any] = {}
    for key in ("text", "error", "observation", "answer", "event"):
        roll = rng.random()
        if roll < 0.4:
            payload[key] = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 12)))
        elif roll < 0.45:
            payload[key] = None
        elif roll < 0.5:
            payload[key] = rng.choice([1, 2.5, ["a"], {"b": "c"}, True, "system_prompt"])
    return payload


def test_python_makes_what_sql_makes_of_the_stored_payload() -> None:
    rng = random.Random(40)
    rows = [
        (rng.choice(KINDS), rng.choice(["agent", "system"]), _payload(rng)) for _ in range(6000)
    ]
    with closing(sqlite3.connect(":memory:")) as db:
        db.execute("CREATE TABLE events (kind TEXT, actor TEXT, payload TEXT)")
        db.executemany(
            "INSERT INTO events VALUES (?, ?, ?)", [(k, a, json.dumps(p)) for k, a, p in rows]
        )
        made = db.execute(
            f"SELECT {body_sql('payload')}, {facets_sql('kind', 'actor', 'payload')} FROM events"
        ).fetchall()
    computed = 0
    for (kind, actor, payload), by_sql in zip(rows, made, strict=True):
        values = index_values(kind, actor, payload)
        if values is not None:
            computed += 1
            assert values == by_sql, payload
    assert computed > 3000  # (the rest, a NUL or a value not a text: left to SQL)
    assert index_values("error", "system", {"error": "INVALID_FIELD: on entity 'Case'."}) == (
        "INVALID_FIELD: on entity 'Case'.",
        "<k:error> <a:system> <c:invalid_field> <o:case>",
    )


def _search_keys(path: Path, texts: list[str]) -> dict[str, list[tuple[int, int]]]:
    with Store(path) as store:
        return {text: search.run(store, text, page=None).hits for text in texts}


TEXTS = ["Case", "kind:query object:case", "kind:error", "kind:submit", "OwnerId", "kind:usage"]


def test_an_import_indexed_as_written_equals_one_indexed_after(tmp_path: Path) -> None:
    now, later = tmp_path / "now.db", tmp_path / "later.db"
    with Store(now) as store:
        UpstreamImporter(store, index=True).import_paths([UPSTREAM])
        assert search_index.pending(store) == 0
    with Store(later) as store:
        UpstreamImporter(store).import_paths([UPSTREAM])
        assert search_index.pending(store) > 0
        search_index.catch_up(store)
    assert _indexed(now) == _events(now) == _events(later) == _indexed(later)
    found = _search_keys(now, TEXTS)
    assert all(found.values()) and found == _search_keys(later, TEXTS)


@pytest.mark.parametrize("limit", [40, 1_000_000])
def test_the_bulk_writer_indexes_what_it_stores_cut_or_odd(tmp_path: Path, limit: int) -> None:
    """Payloads as dicts and as text, one cut at the text limit, one SQL alone reads right."""
    path = tmp_path / "s.db"
    long = "SELECT Id FROM Case WHERE Subject = '" + "x" * 60 + "' AND zzlast = 1"
    events = [
        ("agent", "query", {"text": long}),
        ("system", "error", json.dumps({"error": "INVALID_FIELD: on entity 'Case'."})),
        ("agent", "message", {"text": ["not", "a text"]}),
        ("agent", "message", {"text": "a NUL\x00 inside"}),
    ]
    with Store(path) as store:
        who = store.participant("agent", "gpt-4o/react", model="gpt-4o").id
        with store.transaction() as conn:
            writer = BulkWriter(conn, text_limit=limit, index=True)
            sid = writer.session(
                {
                    "participant_id": who,
                    "task_source": "hf:b2b",
                    "task_idx": 1,
                    "task_type": "handle_time",
                    "task_json": {"idx": 1},
                    "started_at": "2025-01-01T00:00:00.000000Z",
                    "settings_key": "k",
                    "settings": {},
                }
            )
            writer.events_of(sid, events)
            writer.flush()
        assert search_index.pending(store) == 0
        assert [seq for _, seq in search.run(store, "object:case", page=None).hits] == [1, 2]
        assert len(search.run(store, "zzlast").hits) == (0 if limit == 40 else 1)  # (cut off)
        assert len(search.run(store, '"a NUL"').hits) == 1
    assert _indexed(path) == _events(path)


def test_a_merge_indexes_what_the_index_sql_makes_of_the_copied_events(tmp_path: Path) -> None:
    """`sessions merge` computes the copied events' index text in Python (`index_stored`), and
    leaves to the SQL the payloads only SQLite reads right: the searches find the same steps in
    the merged database as in its input, indexed by the SQL alone."""
    source, out = tmp_path / "laptop.db", tmp_path / "out.db"
    odd = [
        ("agent", "message", '{"text": "spaced  JSON, Case"}'),  # (not as `dumps` writes it)
        ("agent", "message", '{"text":"a NUL\\u0000 then Case"}'),
        ("agent", "message", '{"text":"first Case","text":"second"}'),  # (a key twice)
        ("agent", "query", '{"text":"SELECT Id FROM Case"}'),
    ]
    with Store(source) as store:
        UpstreamImporter(store).import_paths([UPSTREAM])
        who = store.participant("agent", "gpt-4o/react", model="gpt-4o").id
        with store.transaction() as conn:
            writer = BulkWriter(conn)
            sid = writer.session(
                {
                    "participant_id": who,
                    "task_source": "hf:b2b",
                    "task_idx": 1,
                    "task_type": "handle_time",
                    "task_json": {"idx": 1},
                    "started_at": "2025-01-01T00:00:00.000000Z",
                    "settings_key": "k",
                    "settings": {},
                }
            )
            writer.events_of(sid, odd)
            writer.flush()
        search_index.catch_up(store)  # (the input indexed by the SQL)
    merge_databases([source], out)
    with Store(out) as store:
        assert search_index.pending(store) == 0
    assert _indexed(out) == _events(out) == _events(source)
    texts = [*TEXTS, "first", "second", "spaced", '"a NUL"']
    found = _search_keys(out, texts)
    assert found == _search_keys(source, texts)
    assert found["first"] and found["kind:query object:case"]
