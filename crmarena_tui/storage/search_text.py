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
"""

from __future__ import annotations

from typing import Any

from crmarena_tui.storage.search_index import TEXT_KEYS, UNSEARCHED

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_FLAT = str.maketrans("\n\r\t", "   ")  # (SQLite's `lower` folds ASCII letters only)
_SPACE_STOPS = str.maketrans("()`,;", "     ")


def _lower(text: str) -> str:
    return text.translate(_ASCII_LOWER)


def _flat(text: str) -> str:
    """`search_index._flat`: lower case, line breaks and tabs as spaces, between two spaces."""
    return " " + _lower(text).translate(_FLAT) + " "


def _after(text: str, marker: str, stops: dict[int, int] | None) -> str | None:
    """`search_index._after`: the word after the first `marker`, cut at a space once each
    stop is a space (None: no marker)."""
    at = text.find(marker)
    if at < 0:
        return None
    rest = text[at + len(marker) :].lstrip(" ")
    if stops is not None:
        rest = rest.translate(stops)
    space = rest.find(" ")
    return rest if space < 0 else rest[:space]


_QUOTE = str.maketrans("'", " ")


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


def _plain(value: Any) -> bool:
    return value is None or (type(value) is str and "\x00" not in value)


def index_values(kind: str, actor: str, payload: dict[str, Any]) -> tuple[str, str] | None:
    """(body, facets) of an event as the index's SQL makes them from its stored payload; None
    when the payload holds something only SQLite reads right (a text key with another type of
    value, a NUL), or its kind or actor is not plain text."""
    if not (type(kind) is str and type(actor) is str and "\x00" not in kind + actor):
        return None
    event = payload.get("event")
    if not all(_plain(payload.get(k)) for k in TEXT_KEYS) or not _plain(event):
        return None
    if event in UNSEARCHED:
        body = ""
    else:
        body = "\n".join(payload.get(k) or "" for k in TEXT_KEYS).strip("\n")
    facets = f"<k:{kind}> <a:{actor}>"
    code = _code(kind, payload)
    if code is not None:
        facets += f" <c:{code}>"
    found = _object(kind, payload)
    if found:
        facets += f" <o:{found}>"
    return body, facets
