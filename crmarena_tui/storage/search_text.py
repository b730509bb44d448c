"""What the full-text index holds of an event (its `body` and `facets`, storage/search_index.py),
computed in Python from the payload as a dict: the same text the index's SQL expressions
(`body_sql`, `facets_sql`) make from the stored JSON, without parsing that JSON again, some
fifteen times an event, in the one process that writes. The import's reading processes compute
it beside the rows they encode (storage/upstream_rows.py); the bulk writer inserts it with the
events, in the same transaction (storage/bulk.py).

Only the payloads these functions read exactly as SQLite does are computed here: every text the
expressions read is a Python `str` free of NUL characters (SQLite cuts a text at its first NUL
in places). For any other payload `index_values` returns None, and the writer lets the SQL
expressions index that event. `tests/storage/test_search_text.py` checks both ways agree.

`index_stored` does the same for events read back as stored (`sessions merge` copying them from
another database), for the payloads Python reads as SQLite does (`stored_values`).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable
from typing import Any

from crmarena_tui.storage.convert import dumps
from crmarena_tui.storage.search_index import INDEX_EVENT, KEY_SHIFT, TEXT_KEYS, UNSEARCHED

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _lower(text: str) -> str:
    """SQLite's `lower`: ASCII letters folded, nothing else (`str.lower` does that, in one C
    pass, for an ASCII text, which `isascii` tells without reading it)."""
    return text.lower() if text.isascii() else text.translate(_ASCII_LOWER)


def _flat(text: str) -> str:
    """`search_index._flat`: lower case, line breaks and tabs as spaces, between two spaces."""
    flat = _lower(text).replace("\n", " ").replace("\r", " ").replace("\t", " ")
    return " " + flat + " "


# The word `_after` a marker: past the spaces, up to the first space or stop
_SPACE_STOPS = re.compile(r" *([^ ()`,;]*)")
_QUOTE = re.compile(r" *([^ ']*)")


def _after(text: str, marker: str, word: re.Pattern[str]) -> str | None:
    """`search_index._after`: the word after the first `marker`, cut at a space once each
    stop is a space (None: no marker), matched where the marker ends (the text not copied)."""
    at = text.find(marker)
    if at < 0:
        return None
    found = word.match(text, at + len(marker))
    assert found is not None  # (the pattern matches the empty text)
    return found[1]


def _object(kind: str, payload: dict[str, Any]) -> str | None:
    if kind == "query":
        text = payload.get("text")
        return None if text is None else _after(_flat(text), " from ", _SPACE_STOPS)
    if kind == "search":
        text = payload.get("text")
        return None if text is None else _after(_flat(text), " returning ", _SPACE_STOPS)
    if kind == "error":
        error = payload.get("error")
        if error is None:
            return None
        flat = _flat(error)
        entity = _after(flat, " entity '", _QUOTE)
        return entity if entity is not None else _after(flat, " sobject type '", _QUOTE)
    return None


def _code(kind: str, payload: dict[str, Any]) -> str | None:
    if kind != "error":
        return None
    error = payload.get("error")
    if error is None:
        return None
    colon = error.find(":")
    if colon < 1 or " " in error[:colon]:
        return None
    return _lower(error[:colon])


_FACETED = frozenset({"query", "search", "error"})  # kinds with an object or code (`_object`)
_VALUE_KEYS = (*TEXT_KEYS, "event")  # every key the index reads
_TEXT_OR_NONE = frozenset({str, type(None)})


def index_values(kind: str, actor: str, payload: dict[str, Any]) -> tuple[str, str] | None:
    """(body, facets) of an event as the index's SQL makes them from its stored payload; None
    when the payload holds something only SQLite reads right (a text key with another type of
    value, a NUL), or its kind or actor is not plain text. (Called for every event an import
    writes: the keys are read and their types checked by C-level passes, and the body, one
    text in most payloads, is joined once and checked for a NUL in that one pass.)"""
    if type(kind) is not str or type(actor) is not str or "\x00" in kind or "\x00" in actor:
        return None
    values = tuple(map(payload.get, _VALUE_KEYS))
    if not _TEXT_OR_NONE.issuperset(map(type, values)):
        return None
    *texts, event = values
    body = "\n".join([text or "" for text in texts])
    if "\x00" in body or (event is not None and "\x00" in event):
        return None
    body = "" if event in UNSEARCHED else body.strip("\n")
    facets = f"<k:{kind}> <a:{actor}>"
    if kind in _FACETED:
        code = _code(kind, payload)
        if code is not None:
            facets += f" <c:{code}>"
        found = _object(kind, payload)
        if found:
            facets += f" <o:{found}>"
    return body, facets


def stored_values(kind: str, actor: str, payload: Any) -> tuple[str, str] | None:
    """`index_values` of a payload as stored (its JSON text) when Python reads that text as
    SQLite does: a JSON object written exactly as this project's encoder writes it (`dumps`:
    sorted keys, compact, so no key twice, no NaN, no escaped surrogate); None for any other
    text, which the index's SQL reads instead."""
    if type(payload) is not str:
        return None
    try:
        value = json.loads(payload)
    except ValueError:
        return None
    if type(value) is not dict or dumps(value) != payload:
        return None
    return index_values(kind, actor, value)


_PENDING = "SELECT 1 FROM search_pending WHERE after_id < ? AND upto_id >= ?"


def index_stored(
    conn: sqlite3.Connection, session_id: int, events: Iterable[tuple[int, str, str, Any]]
) -> None:
    """Inside the caller's write transaction, with the index's trigger dropped
    (`search_index.untriggered`): index a session's events just written, (seq, actor, kind,
    payload as stored) each, as the trigger would: nothing when the session is pending (the next
    search indexes it); the text computed here where `stored_values` can, else by the SQL."""
    if conn.execute(_PENDING, (session_id, session_id)).fetchone():
        return
    base, rows, by_sql = session_id << KEY_SHIFT, [], []
    for seq, actor, kind, payload in events:
        values = stored_values(kind, actor, payload)
        if values is None:
            by_sql.append((session_id, seq))
        else:
            rows.append((base | seq, *values))
    conn.executemany("INSERT INTO event_search (rowid, body, facets) VALUES (?, ?, ?)", rows)
    conn.executemany(INDEX_EVENT, by_sql)
