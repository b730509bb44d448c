"""The events of an export, read as the files write them: each event's JSON text made in one
comprehension over the rows SQLite gives (its timestamp already the files' text, its payload the
database's text spliced in as it is stored: compact, keys sorted), so that no payload is decoded
and encoded again on the way out (issue 30: a database of 100,000 sessions holds millions of
events), and no Python object but a tuple is made per event. An event SQLite does not vouch for
(a timestamp not in the stored form, an empty payload, a name to escape) is written by
`_written_here`, which stops the export on a payload that is not JSON.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from itertools import groupby
from operator import itemgetter
from typing import TYPE_CHECKING, Any, NamedTuple, cast, overload

from crmarena_tui.storage import convert
from crmarena_tui.storage.errors import StorageError
from crmarena_tui.storage.models import ACTORS, EVENT_KINDS

if TYPE_CHECKING:
    from crmarena_tui.storage.models import Event
    from crmarena_tui.storage.store import Store


class ExportEvent(NamedTuple):
    """An event as the export reads and writes it: `ts_text` the files' ISO text (`iso`),
    `payload_json` the database's JSON text, `json_text` the whole event as the files hold it.
    It answers `seq`, `kind`, `actor`, `payload` and `text` as a `models.Event` does, for the
    columns computed from the log; a payload is decoded only when one of them asks for it. No
    validated model per event."""

    session_id: int
    seq: int
    ts_text: str | None
    actor: str
    kind: str
    payload_json: str
    duration_ms: float | None
    json_text: str | None

    @property
    def payload(self) -> dict[str, Any]:
        return cast("dict[str, Any]", convert.loads(self.payload_json, {}))

    @property
    def text(self) -> str:
        from crmarena_tui.storage.models import Event

        return str(Event.text.fget(self))  # type: ignore[attr-defined]


def iso(value: datetime | None) -> str | None:
    """A timestamp as the text JSON Lines and CSV hold: ISO-8601 UTC with a `Z`."""
    return None if value is None else value.isoformat().replace("+00:00", "Z")


def export_time(stored: str | None) -> str | None:
    """A stored timestamp (`2024-05-03T09:15:00.000000Z`, `convert.iso`) as the files' text
    (`iso`: `...09:15:00Z`, microseconds only when there are some), without a datetime."""
    if stored is None:
        return None
    if len(stored) == 27 and stored[10] == "T" and stored[19] == "." and stored[26] == "Z":
        return stored[:19] + "Z" if stored.endswith(".000000Z") else stored
    return iso(datetime.fromisoformat(stored))


_FORMAT = '{"seq":%d,"ts":%s,"actor":%s,"kind":%s,"payload":%s,"duration_ms":%s}'


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def event_json(seq: int, ts: str | None, actor: str, kind: str, payload: str, duration: Any) -> str:
    """An event as the files hold it (the text `EVENTS` makes in SQL, for the events it can)."""
    when = "null" if ts is None else f'"{ts}"'  # ISO text: nothing to escape
    took = "null" if duration is None else _json(duration)
    return _FORMAT % (seq, when, _json(actor), _json(kind), payload, took)


def event_cells(event: Event) -> ExportEvent:
    """A validated event (`Store.events`) as the export holds it: the very cells and text
    `read_events` gives for it (its timestamp and payload encoded as the database stores them)."""
    ts, payload = iso(event.ts), convert.dumps(event.payload)
    text = event_json(event.seq, ts, event.actor, event.kind, payload, event.duration_ms)
    return ExportEvent(
        event.session_id, event.seq, ts, event.actor, event.kind, payload, event.duration_ms, text
    )


_STORED_TIME = (
    "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]."
    + "[0-9]" * 6
    + "Z"
)
_STORED = f"(length(ts) = 27 AND ts GLOB '{_STORED_TIME}')"
# Each event's cells, its timestamp already the files' text when it is in the stored form, and
# whether `read_events` may write it with `_FORMAT` (a timestamp in the stored form or none, a
# payload; its actor and kind must also be among `_NAMES`).
EVENTS = (
    "SELECT session_id, seq,"
    f" CASE WHEN {_STORED} AND substr(ts, 20) = '.000000Z' THEN substr(ts, 1, 19) || 'Z' ELSE ts END,"
    f" actor, kind, payload, duration_ms, (ts IS NULL OR {_STORED}) AND payload <> ''"
    " FROM events WHERE session_id IN (%s) ORDER BY session_id, seq"
)
_NAMES = {name: f'"{name}"' for name in ACTORS | EVENT_KINDS}  # plain words: nothing to escape
_SESSION = itemgetter(0)
JSON_TEXT = itemgetter(7)


def read_events(
    store: Store, ids: list[int], *, texts: bool = True
) -> dict[int, list[ExportEvent]]:
    """The events of sessions `ids` (each session's in log order), by one query: as plain tuples
    of `ExportEvent`'s fields (a tuple per event, made in one comprehension: no call per event;
    `LazyEvents` makes the `ExportEvent`s a column asks for). `texts=False` leaves out their
    JSON texts (`json_text` None), which Parquet does not write."""
    found: dict[int, list[ExportEvent]] = {i: [] for i in ids}
    rows = store.read(EVENTS % ", ".join("?" * len(ids)), tuple(ids))
    if not texts:
        cells = [
            (sid, seq, ts, actor, kind, payload, took, None)
            if plain
            else _written_here(ExportEvent(sid, seq, ts, actor, kind, payload, took, None))
            for sid, seq, ts, actor, kind, payload, took, plain in rows
        ]
        return _by_session(cells, found)
    events = [
        (
            sid,
            seq,
            ts,
            actor,
            kind,
            payload,
            took,
            _FORMAT
            % (
                seq,
                "null" if ts is None else f'"{ts}"',
                who,
                what,
                payload,
                "null" if took is None else _json(took),
            ),
        )
        if plain
        and (who := _NAMES.get(actor)) is not None
        and (what := _NAMES.get(kind)) is not None
        else _written_here(ExportEvent(sid, seq, ts, actor, kind, payload, took, None))
        for sid, seq, ts, actor, kind, payload, took, plain in rows
    ]
    return _by_session(events, found)


def _by_session(
    events: list[Any], found: dict[int, list[ExportEvent]]
) -> dict[int, list[ExportEvent]]:
    """`found` with each session's events (`events` in session order) in its list."""
    for sid, group in groupby(events, _SESSION):
        found[sid] = list(group)
    return found


class LazyEvents(Sequence[ExportEvent]):
    """A session's events as `read_events` gives them, seen as `ExportEvent`s, each made when it
    is read (`end_reason` reads a log back to its last submit, most sessions not at all)."""

    def __init__(self, rows: list[ExportEvent]) -> None:
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, index: int) -> ExportEvent: ...
    @overload
    def __getitem__(self, index: slice) -> list[ExportEvent]: ...
    def __getitem__(self, index: int | slice) -> ExportEvent | list[ExportEvent]:
        if isinstance(index, slice):
            return [ExportEvent._make(row) for row in self.rows[index]]
        return ExportEvent._make(self.rows[index])


def _written_here(event: ExportEvent) -> ExportEvent:
    """An event SQLite did not vouch for (`EVENTS`): its timestamp and text made here."""
    payload = event.payload_json or "{}"
    try:
        json.loads(payload)
    except ValueError:
        raise StorageError(
            f"session {event.session_id}, event {event.seq}: its payload is not JSON"
        ) from None
    ts = export_time(event.ts_text)
    text = event_json(event.seq, ts, event.actor, event.kind, payload, event.duration_ms)
    return event._replace(ts_text=ts, payload_json=payload, json_text=text)
