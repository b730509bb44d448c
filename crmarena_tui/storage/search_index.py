"""The full-text index of events (`event_search`, SQLite FTS5), which `crmarena-tui search`, the
sessions list's `?` filter and the viewer read (storage/search.py).

One row per event, keyed `session_id * 2**24 + seq` (an event's rowid in `events` is no stable
key: VACUUM may renumber it). The table is contentless (`content=''`): it holds the index only,
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
`sessions merge`); the migration that creates it (schema version 11) indexes the events already
stored. The import's bulk writer (storage/bulk.py) indexes its rows itself, in one statement
(`INDEX_SESSIONS`), with the trigger dropped for the length of its write and made again before
its transaction ends: FTS5 writes its pending terms out at the end of every statement, so a
trigger run once per row wrote a small index segment per event (five times the cost of one
`INSERT ... SELECT` over the same events). Events are append-only, so there is no delete trigger: a contentless table can
only forget a row given its exact indexed values.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

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


def facets_sql(kind: str, actor: str, payload: str) -> str:
    """The facet markers of an event (SQL expressions for its kind, actor and payload)."""
    text = _flat(f"({payload} ->> '$.text')")
    error = f"({payload} ->> '$.error')"
    flat_error = _flat(error)
    entity = _after(flat_error, " entity '", "'")
    sobject = _after(flat_error, " sobject type '", "'")
    obj = (
        f"CASE WHEN {kind} = 'query' THEN {_after(text, ' from ', '()`,;')}"
        f" WHEN {kind} = 'search' THEN {_after(text, ' returning ', '()`,;')}"
        f" WHEN {kind} = 'error' THEN COALESCE({entity}, {sobject}) END"
    )
    code = (
        f"CASE WHEN {kind} = 'error' AND instr({error}, ':') > 1"
        f" AND instr(substr({error}, 1, instr({error}, ':') - 1), ' ') = 0"
        f" THEN lower(substr({error}, 1, instr({error}, ':') - 1)) END"
    )
    return (
        f"'<k:' || {kind} || '> <a:' || {actor} || '>'"
        f" || COALESCE(' <c:' || ({code}) || '>', '')"
        f" || COALESCE(' <o:' || NULLIF(({obj}), '') || '>', '')"
    )


def key_sql(session_id: str, seq: str) -> str:
    return f"(({session_id}) << {KEY_SHIFT}) | ({seq})"


CREATE_TABLE = (
    "CREATE VIRTUAL TABLE event_search USING fts5(body, facets, content='', columnsize=0,"
    " tokenize='trigram')"
)
CREATE_TRIGGER = f"""
    CREATE TRIGGER events_searchable AFTER INSERT ON events
    BEGIN
        INSERT INTO event_search (rowid, body, facets) VALUES (
            {key_sql("NEW.session_id", "NEW.seq")},
            {body_sql("NEW.payload")},
            {facets_sql("NEW.kind", "NEW.actor", "NEW.payload")}
        );
    END
"""
BACKFILL = (
    f"INSERT INTO event_search (rowid, body, facets) SELECT {key_sql('session_id', 'seq')},"
    f" {body_sql('payload')}, {facets_sql('kind', 'actor', 'payload')} FROM events"
    " ORDER BY session_id, seq"
)
INDEX_SESSIONS = (
    f"INSERT INTO event_search (rowid, body, facets) SELECT {key_sql('session_id', 'seq')},"
    f" {body_sql('payload')}, {facets_sql('kind', 'actor', 'payload')} FROM events"
    " WHERE session_id > ? AND session_id <= ? ORDER BY session_id, seq"
)
CREATE_SAVED = """
    CREATE TABLE saved_searches (
        name TEXT PRIMARY KEY,
        query TEXT NOT NULL,
        created_at TEXT NOT NULL
    )
"""


@contextmanager
def indexed_in_bulk(conn: sqlite3.Connection, after_id: int, upto_id: int) -> Iterator[None]:
    """Inside the caller's write transaction: events inserted in the block, all of sessions
    `after_id < id <= upto_id` (sessions with no event before it), are indexed when it ends."""
    conn.execute("DROP TRIGGER events_searchable")
    yield
    conn.execute(INDEX_SESSIONS, (after_id, upto_id))
    conn.execute(CREATE_TRIGGER)


def create(db: sqlite3.Connection) -> None:
    """The index, its trigger and the saved searches' table; the events stored are indexed."""
    db.execute(CREATE_TABLE)
    db.execute(BACKFILL)
    db.execute(CREATE_TRIGGER)
    db.execute(CREATE_SAVED)
