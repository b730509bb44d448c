"""The full-text index of events (`event_search`, SQLite FTS5), which `crmarena-tui search`, the
sessions list's `?` filter and the viewer read (storage/search.py).

One row per event, keyed `session_id * 2**24 + seq` (an event's rowid in `events` is no stable
key: VACUUM may renumber it). The table holds the index only (contentless, `content=''`, until
schema 18; since, external content over an empty view, a form dumps copy: schema_dump.py),
never a second copy of the text, so searching returns keys and the text is read back from `events`
for the few rows shown. Its tokenizer is `trigram`, so a word or phrase matches wherever it occurs
in the text (`Case` matches `CaseNumber`), case folded: what `LIKE '%word%'` finds, not only whole
words. Two columns:

- `body`: the event's text, the string values of its payload's `text`, `observation`, `error` and
  `answer`, one per line (a query's or message's text, an observation, an error, a submitted answer;
  thoughts and notes keep theirs in `text`). An imported run's system prompt (a `system` event
  `system_prompt`) is not indexed: the same few kilobytes in every session of a run, it would
  match every one of them and cost most of the index;
- `facets`: markers for the field filters, `<k:KIND> <a:ACTOR>`, plus `<c:CODE>` for an error
  whose message starts with an error code (`INVALID_FIELD: ...`) and `<o:OBJECT>` for the object a
  query reads (the first word after FROM; a SOSL search, the first one after RETURNING) or that an
  error names (`entity 'Case'`, `sObject type 'Case'`), lower case. A marker is matched as a
  phrase with its brackets, so `<k:note>` never matches inside another value.

A trigger fills it as events are written, whoever writes them (the Store, forks' copies,
`sessions merge`), except the events of sessions still waiting in `search_pending`: ranges of
session ids, `after_id < id <= upto_id`, whose events are indexed the next time a search runs
(`catch_up`, in chunks of sessions, each chunk and the shrinking of its range one transaction).
A session written live (an agent's, a person's in the app, an MCP client's) is pending from
the transaction that creates it (`defer_session`) and indexed whole, in one statement, when it
ends (`index_session`, called by the Episode once it is graded or abandoned): indexing each
event as it was written cost an agent run about half its CPU (each commit a new FTS5 segment
to write and merge; benchmarks/bench_reference_run.py). A session still running, or whose
process was killed, stays pending, so the next search indexes what it holds so far; events
written to a session after it was indexed go through the trigger.
The import's bulk writer (storage/bulk.py) records its sessions there, in the transaction that
writes them, instead of indexing (and drops the trigger while it inserts their events, which the
trigger would only skip): trigram-indexing an 8-step session costs about twice what storing it
does, and an import should not wait for a search nobody may run. So a search never
misses a stored event: an event is in the index, or its session is pending and the search first
indexes it; a kill during an import rolls the import and its pending range back together, a kill
during a catch-up loses only the chunk under way, which stays pending. The migration that creates
the index (schema version 11) records every stored session as pending, so opening an old
database stays quick and its first search builds the index. Events are append-only, so there is
no delete trigger: a contentless table can only forget a row given its exact indexed values.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store

TEXT_KEYS = ("text", "observation", "error", "answer")
UNSEARCHED = ("system_prompt",)  # system events whose text is not indexed (see above)
KEY_SHIFT = 24  # rowid = session_id << KEY_SHIFT | seq
SEQ_MASK = (1 << KEY_SHIFT) - 1


def _text(payload: str, key: str) -> str:
    value = f"{payload} ->> '$.{key}'"
    return f"COALESCE(CASE json_type({payload}, '$.{key}') WHEN 'text' THEN {value} END, '')"


def body_sql(payload: str) -> str:
    """The indexed text of an event whose payload (JSON text) is the SQL expression `payload`."""
    parts = " || char(10) || ".join(_text(payload, k) for k in TEXT_KEYS)
    unsearched = ", ".join(f"'{e}'" for e in UNSEARCHED)
    return (
        f"CASE WHEN ({payload} ->> '$.event') IN ({unsearched}) THEN ''"
        f" ELSE trim({parts}, char(10)) END"
    )


def _after(text: str, marker: str, stops: str) -> str:
    """The word of `text` (SQL, lower case, spaces only) after the first `marker`, cut at the
    first space once each of `stops` has been turned into a space."""
    quoted = marker.replace("'", "''")
    rest = f"ltrim(substr({text}, instr({text}, '{quoted}') + {len(marker)}))"
    for stop in stops:
        rest = f"replace({rest}, '{stop.replace(chr(39), chr(39) * 2)}', ' ')"
    return (
        f"CASE WHEN instr({text}, '{quoted}') > 0"
        f" THEN substr({rest}, 1, instr({rest} || ' ', ' ') - 1) END"
    )


def _flat(text: str) -> str:
    """`text` lower case, with line breaks and tabs as spaces, between two spaces."""
    return (
        f"(' ' || replace(replace(replace(lower({text}), char(10), ' '), char(13), ' '),"
        " char(9), ' ') || ' ')"
    )


def object_sql(kind: str, payload: str) -> str:
    """The object an event reads or names (lower case; None when none): the first word after
    FROM of a query, after RETURNING of a search, an error's `entity '...'` or `sObject type`."""
    text = _flat(f"({payload} ->> '$.text')")
    flat_error = _flat(f"({payload} ->> '$.error')")
    entity = _after(flat_error, " entity '", "'")
    sobject = _after(flat_error, " sobject type '", "'")
    return (
        f"CASE WHEN {kind} = 'query' THEN {_after(text, ' from ', '()`,;')}"
        f" WHEN {kind} = 'search' THEN {_after(text, ' returning ', '()`,;')}"
        f" WHEN {kind} = 'error' THEN COALESCE({entity}, {sobject}) END"
    )


def code_sql(kind: str, payload: str, *, fold: bool = True) -> str:
    """The error code an error event's message starts with (`INVALID_FIELD: ...`), lower case
    (as written when not `fold`); None for any other event."""
    error = f"({payload} ->> '$.error')"
    code = f"substr({error}, 1, instr({error}, ':') - 1)"
    return (
        f"CASE WHEN {kind} = 'error' AND instr({error}, ':') > 1"
        f" AND instr({code}, ' ') = 0"
        f" THEN {f'lower({code})' if fold else code} END"
    )


def facets_sql(kind: str, actor: str, payload: str) -> str:
    """The facet markers of an event (SQL expressions for its kind, actor and payload)."""
    return (
        f"'<k:' || {kind} || '> <a:' || {actor} || '>'"
        f" || COALESCE(' <c:' || ({code_sql(kind, payload)}) || '>', '')"
        f" || COALESCE(' <o:' || NULLIF(({object_sql(kind, payload)}), '') || '>', '')"
    )


def key_sql(session_id: str, seq: str) -> str:
    return f"(({session_id}) << {KEY_SHIFT}) | ({seq})"


CREATE_TABLE = (
    "CREATE VIRTUAL TABLE event_search USING fts5(body, facets, content='', columnsize=0,"
    " tokenize='trigram')"
)
_INDEX_ROW = f"""INSERT INTO event_search (rowid, body, facets) VALUES (
            {key_sql("NEW.session_id", "NEW.seq")},
            {body_sql("NEW.payload")},
            {facets_sql("NEW.kind", "NEW.actor", "NEW.payload")}
        );"""
CREATE_TRIGGER = f"""
    CREATE TRIGGER events_searchable AFTER INSERT ON events
    WHEN NOT EXISTS (
        SELECT 1 FROM search_pending
        WHERE after_id < NEW.session_id AND upto_id >= NEW.session_id
    )
    BEGIN
        {_INDEX_ROW}
    END
"""
CREATE_PENDING = """
    CREATE TABLE search_pending (
        after_id INTEGER PRIMARY KEY,
        upto_id INTEGER NOT NULL CHECK (upto_id > after_id)
    )
"""
INDEX_SESSIONS = (
    f"INSERT INTO event_search (rowid, body, facets) SELECT {key_sql('session_id', 'seq')},"
    f" {body_sql('payload')}, {facets_sql('kind', 'actor', 'payload')} FROM events"
    " WHERE session_id > ? AND session_id <= ? ORDER BY session_id, seq"
)
INDEX_EVENT = (  # (one event, by its session and seq)
    f"INSERT INTO event_search (rowid, body, facets) SELECT {key_sql('session_id', 'seq')},"
    f" {body_sql('payload')}, {facets_sql('kind', 'actor', 'payload')} FROM events"
    " WHERE session_id = ? AND seq = ?"
)
CREATE_SAVED = """
    CREATE TABLE saved_searches (
        name TEXT PRIMARY KEY,
        query TEXT NOT NULL,
        created_at TEXT NOT NULL
    )
"""
CHUNK = 2000  # sessions indexed per transaction by `catch_up`
# FTS5 writes what it has indexed so far as a new segment each time it holds this much (1 MB by
# default), and merges segments as they add up; 16 MB costs some 40% less CPU to index an
# import (benchmarks/bench_import.py), with no gain beyond. Kept in the index's own settings.
# (`automerge`, `crisismerge`, `pgsz` and a larger page cache were measured too, none kept:
# benchmarks/bench_atif.py.)
HASH_SIZE = 16 * 1024 * 1024


def write_in_bulk(conn: sqlite3.Connection) -> None:
    """Inside the caller's write transaction: the index takes many rows at once (`HASH_SIZE`)."""
    conn.execute(
        "INSERT INTO event_search (event_search, rank) VALUES ('hashsize', ?)", (HASH_SIZE,)
    )


def defer(conn: sqlite3.Connection, after_id: int, upto_id: int) -> None:
    """Inside the caller's write transaction, before their events are written: the events of
    sessions `after_id < id <= upto_id` are left to the next search to index (a range that
    ends at `after_id` is extended rather than a new one added)."""
    if upto_id <= after_id:
        return
    extended = conn.execute(
        "UPDATE search_pending SET upto_id = ? WHERE upto_id = ?", (upto_id, after_id)
    ).rowcount
    if not extended:
        conn.execute(
            "INSERT INTO search_pending (after_id, upto_id) VALUES (?, ?)", (after_id, upto_id)
        )


_PENDING_AT = (  # the one pending range that may hold a session: the last to start before it
    "SELECT after_id, upto_id FROM search_pending WHERE after_id < ? ORDER BY after_id DESC LIMIT 1"
)


def pending_range(conn: sqlite3.Connection, session_id: int) -> tuple[int, int] | None:
    """The pending range `(after_id, upto_id)` that holds session `session_id`, or None."""
    found = conn.execute(_PENDING_AT, (session_id,)).fetchone()
    return (int(found[0]), int(found[1])) if found and found[1] >= session_id else None


def defer_session(conn: sqlite3.Connection, session_id: int) -> None:
    """Inside the transaction that creates a session written live (by an agent, the app, MCP):
    its events are left out of the index as they are written, for `index_session` to index
    when it ends (or the next search, if it never does)."""
    if pending_range(conn, session_id) is None:
        defer(conn, session_id - 1, session_id)


def index_session(conn: sqlite3.Connection, session_id: int) -> bool:
    """Inside the caller's write transaction: a pending session's events indexed, in one
    statement, and the session no longer pending (its range split around it); events written
    after are indexed by the trigger. False (nothing done) when it was not pending."""
    found = pending_range(conn, session_id)
    if found is None:
        return False
    after_id, upto_id = found
    conn.execute(INDEX_SESSIONS, (session_id - 1, session_id))
    conn.execute("DELETE FROM search_pending WHERE after_id = ?", (after_id,))
    for low, high in ((after_id, session_id - 1), (session_id, upto_id)):
        if high > low:
            conn.execute(
                "INSERT INTO search_pending (after_id, upto_id) VALUES (?, ?)", (low, high)
            )
    return True


@contextmanager
def untriggered(conn: sqlite3.Connection) -> Iterator[None]:
    """Inside the caller's write transaction: events inserted in the block skip the index's
    trigger (for events of pending sessions only, which it would skip anyway, at some 2 µs of
    CPU an event)."""
    conn.execute("DROP TRIGGER events_searchable")
    yield
    conn.execute(CREATE_TRIGGER)


def pending(store: Store) -> int:
    """How many sessions wait to be indexed (0: the index holds every stored event)."""
    found = store.read("SELECT COALESCE(SUM(upto_id - after_id), 0) FROM search_pending")
    return int(found[0][0])


def catch_up(
    store: Store,
    progress: Callable[[int, int], None] | None = None,
    chunk: int = CHUNK,
) -> int:
    """Index the events of every pending session, `chunk` sessions a transaction; `progress`
    is told (sessions done, sessions pending at the start) after each. Returns the number of
    session ids caught up."""
    total = pending(store)
    last = int(store.read("SELECT COALESCE(MAX(upto_id), 0) FROM search_pending")[0][0])
    done = 0
    while total:
        with store.transaction() as conn:
            first = conn.execute(
                "SELECT after_id, upto_id FROM search_pending WHERE after_id < ?"
                " ORDER BY after_id LIMIT 1",
                (last,),
            ).fetchone()
            if first is None:  # (caught up meanwhile by another connection)
                break
            after_id, upto_id = first
            # (sessions started since the search did are left to their end or the next one)
            end = min(upto_id, after_id + chunk, last)
            write_in_bulk(conn)
            conn.execute(INDEX_SESSIONS, (after_id, end))
            conn.execute("DELETE FROM search_pending WHERE after_id = ?", (after_id,))
            if end < upto_id:
                conn.execute(
                    "INSERT INTO search_pending (after_id, upto_id) VALUES (?, ?)", (end, upto_id)
                )
        done += end - after_id
        if progress is not None:
            progress(min(done, total), total)
    return done


def v11_event_search(db: sqlite3.Connection) -> None:
    """Schema version 11, search across trajectories: the full-text index of every event
    (`event_search`: FTS5, contentless, trigram), kept by a trigger on `events`, the sessions
    stored left to the first search to index (`search_pending`); saved searches."""
    db.execute(CREATE_TABLE)
    db.execute(CREATE_PENDING)
    defer(db, 0, int(db.execute("SELECT COALESCE(MAX(id), 0) FROM sessions").fetchone()[0]))
    db.execute(CREATE_TRIGGER)
    db.execute(CREATE_SAVED)


def v12_search_pending(db: sqlite3.Connection) -> None:
    """Schema version 12, for a database whose index was built whole by version 11's earlier
    form (no `search_pending`, a trigger that indexed every event): the table and the trigger
    that honours it."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'search_pending'").fetchone():
        return  # (made by version 11 itself)
    db.execute(CREATE_PENDING)
    db.execute("DROP TRIGGER IF EXISTS events_searchable")
    db.execute(CREATE_TRIGGER)
