"""`crmarena-tui export --events`: one row per event of the sessions an export selects (the
analogue of inspect's `events_df`), in JSON Lines, CSV or Parquet (docs/research.md, "Exports").

Each row carries its session's keys (id, configuration, task, trial) beside the event's own
cells, so a researcher groups and joins events without unnesting the sessions export's `events`
lists. The event's `text`, `error_code` and `object` are computed in SQL, by the definitions the
search index uses for its `error:` and `object:` filters (`search_index.code_sql`, `object_sql`),
so a row's `error_code` (as the message writes it) is what `search error:CODE` matches. `step`
is the viewer's step number (`steps.group_steps`). Read `CHUNK` sessions at a time: memory is bounded by a chunk.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from crmarena_tui.storage import convert
from crmarena_tui.storage.configuration import session_configuration
from crmarena_tui.storage.export_events import export_time
from crmarena_tui.storage.export_schema import CHUNK, _listed
from crmarena_tui.storage.export_writers import csv_quoted, dumps
from crmarena_tui.storage.search_index import TEXT_KEYS, code_sql, object_sql
from crmarena_tui.storage.steps import group_steps

if TYPE_CHECKING:
    from crmarena_tui.storage.models import ListedSession, Participant
    from crmarena_tui.storage.store import Store

EVENT_SCHEMA: tuple[tuple[str, str], ...] = (
    ("session_id", "int"),
    ("configuration", "text"),
    ("task_source", "text"),
    ("task_idx", "int"),
    ("task_type", "text"),
    ("trial", "int"),
    ("step", "int"),
    ("seq", "int"),
    ("kind", "text"),
    ("actor", "text"),
    ("text", "text"),
    ("error_code", "text"),
    ("object", "text"),
    ("ts", "timestamp"),
    ("duration_ms", "float"),
    ("prompt_tokens", "int"),
    ("completion_tokens", "int"),
    ("total_tokens", "int"),
)
EVENT_COLUMNS = tuple(name for name, _ in EVENT_SCHEMA)
_BATCH = 4096  # Parquet rows a record batch


def _first_text(payload: str) -> str:
    """An event's text as `models.Event.text` reads it: the first of its payload's `text`,
    `observation`, `error`, `answer` that is a string, else ''."""
    whens = " ".join(
        f"WHEN json_type({payload}, '$.{key}') = 'text' THEN {payload} ->> '$.{key}'"
        for key in TEXT_KEYS
    )
    return f"CASE {whens} ELSE '' END"


def _tokens(name: str) -> str:
    return (
        f"CASE WHEN kind = 'usage' AND json_type(payload, '$.{name}') = 'integer'"
        f" THEN payload ->> '$.{name}' END"
    )


_EVENTS = (
    f"SELECT session_id, seq, kind, actor, {_first_text('payload')},"
    f" {code_sql('kind', 'payload', fold=False)}, NULLIF({object_sql('kind', 'payload')}, ''),"
    f" ts, duration_ms, {_tokens('prompt_tokens')}, {_tokens('completion_tokens')},"
    f" {_tokens('total_tokens')}"
    " FROM events WHERE session_id IN (%s) ORDER BY session_id, seq"
)


class _Cell(NamedTuple):  # what `group_steps` reads of an event
    seq: int
    kind: str
    actor: str


def _steps(events: list[tuple[Any, ...]]) -> dict[int, int]:
    """{event seq: its step number, from 1} for one session's events (rows of `_EVENTS`)."""
    numbered: dict[int, int] = {}
    cells = [_Cell(e[1], e[2], e[3]) for e in events]
    for number, (_, grouped) in enumerate(group_steps(cells), 1):  # type: ignore[arg-type]
        for ev in grouped:
            numbered[ev.seq] = number
    return numbered


def event_rows(
    store: Store,
    keep: Callable[[ListedSession, Participant], bool] | None = None,
    *,
    progress: Callable[[int], None] | None = None,
    chunk: int = CHUNK,
) -> Iterator[tuple[Any, ...]]:
    """One tuple per event, in `EVENT_COLUMNS` order (`ts` as the export's ISO text), of the
    sessions `keep` keeps, in session and log order. `progress` is told the sessions read."""
    people = {p.id: p for p in store.participants()}
    last, read = 0, 0
    while True:
        rows = store.db.rows(
            "SELECT * FROM sessions WHERE id > ? ORDER BY id LIMIT ?", (last, chunk)
        )
        if not rows:
            return
        last, read = rows[-1]["id"], read + len(rows)
        if progress is not None:
            progress(read)
        if keep is not None:
            rows = [r for r in rows if keep(_listed(r), people[r["participant_id"]])]
            if not rows:
                continue
        ids = [r["id"] for r in rows]
        events: dict[int, list[tuple[Any, ...]]] = {i: [] for i in ids}
        for e in store.read(_EVENTS % ", ".join("?" * len(ids)), tuple(ids)):
            events[e[0]].append(e)
        for r in rows:
            session = convert.session_from_row(r)
            head = (
                session.id,
                session_configuration(people[session.participant_id], session),
                session.task_source,
                session.task_idx,
                session.task_type,
                session.trial,
            )
            logged = events[session.id]
            steps = _steps(logged)
            for _sid, seq, kind, actor, text, code, obj, ts, took, p, c, t in logged:
                yield (
                    *head,
                    steps.get(seq),
                    seq,
                    kind,
                    actor,
                    text,
                    code,
                    obj,
                    export_time(ts),
                    took,
                    p if p is None else int(p),
                    c if c is None else int(c),
                    t if t is None else int(t),
                )


def write_events(rows: Iterator[tuple[Any, ...]], fmt: str, out: Path) -> int:
    """Write event rows (`event_rows`) to `out` in `fmt`; the row count."""
    if fmt == "parquet":
        return _parquet(rows, out)
    count = 0
    with out.open("w", encoding="utf-8", newline="") as fh:
        if fmt == "csv":
            csv.writer(fh).writerow(EVENT_COLUMNS)
            for row in rows:
                cells = ("" if v is None else str(v) for v in row)
                fh.write(",".join(csv_quoted(cell) for cell in cells) + "\r\n")
                count += 1
        else:
            for row in rows:
                fh.write(dumps(dict(zip(EVENT_COLUMNS, row, strict=True))) + "\n")
                count += 1
    return count


def parquet_event_schema() -> Any:
    import pyarrow as pa

    types = {
        "int": pa.int64(),
        "float": pa.float64(),
        "text": pa.string(),
        "timestamp": pa.timestamp("us", tz="UTC"),
    }
    return pa.schema([(name, types[kind]) for name, kind in EVENT_SCHEMA])


def _parquet(rows: Iterator[tuple[Any, ...]], out: Path) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = parquet_event_schema()
    count = 0

    def batch(cells: list[tuple[Any, ...]]) -> Any:
        columns = list(zip(*cells, strict=True)) if cells else [()] * len(EVENT_SCHEMA)
        arrays = [
            pa.array(column, pa.string()).cast(field.type)
            if kind == "timestamp"
            else pa.array(column, field.type)
            for column, field, (_, kind) in zip(columns, schema, EVENT_SCHEMA, strict=True)
        ]
        return pa.RecordBatch.from_arrays(arrays, schema=schema)

    with pq.ParquetWriter(str(out), schema) as writer:
        pending: list[tuple[Any, ...]] = []
        for row in rows:
            pending.append(row)
            if len(pending) >= _BATCH:
                writer.write_batch(batch(pending))
                count, pending = count + len(pending), []
        if pending or not count:
            writer.write_batch(batch(pending))
            count += len(pending)
    return count
