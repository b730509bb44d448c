"""How the export's rows (`export_schema.session_rows`) become the bytes of each format, fast: a
database of 100,000 sessions holds millions of events, so no event is decoded or encoded as a
Python object on the way out.

- JSON Lines: one line per session, compact JSON (no spaces) with the columns in `COLUMNS` order;
  the scalar columns in one call of the C encoder, then each event's JSON text as
  `export_events.read_events` made it (in SQL, its payload spliced in as the database stores it:
  compact, keys sorted), joined. A reader that parses JSON
  sees the values the schema documents; the bytes are those of `json.dumps(row,
  separators=(",", ":"), ensure_ascii=False)` but for the payloads' keys, which are sorted.
- CSV: the stdlib writer over one tuple of text cells per session; lists, events and annotations
  as the JSON text JSON Lines holds for them.
- Parquet: record batches built column by column (`pyarrow` arrays from each column's values; the
  events of a batch as flat columns under one list offset array), no Python dict per event.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from crmarena_tui.storage.export_events import JSON_TEXT, iso
from crmarena_tui.storage.export_schema import ANNOTATION_FIELDS, COLUMNS, EVENT_FIELDS, SCHEMA
from crmarena_tui.storage.finite import finite_text


def _no_default(value: Any) -> Any:
    raise TypeError(f"an export value of type {type(value).__name__} is not JSON")


_FALLBACK = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=_no_default)
# The encoder's C loop, made once (`json.dumps` makes one a call): compact, keys in their order,
# text as it is (`ensure_ascii=False`); `dumps` writes NaN and infinities as null.
_encode: Callable[[Any, int], Sequence[str]] = (
    json.encoder.c_make_encoder(  # type: ignore[attr-defined]
        None, _no_default, json.encoder.encode_basestring, None, ":", ",", False, False, True
    )
    if json.encoder.c_make_encoder is not None  # type: ignore[attr-defined]
    else lambda value, _level: [_FALLBACK.encode(value)]
)


def dumps(value: Any) -> str:
    """Compact JSON, keys in their order, text unescaped (the files' form of every value); a
    non-finite number as null (NaN and Infinity are not JSON)."""
    return finite_text(value, "".join(_encode(value, 0)), _joined)


def _joined(value: Any) -> str:
    return "".join(_encode(value, 0))


assert COLUMNS[-2:] == ("events", "annotations")  # the two nested columns end every row
_SCALARS = tuple((name, kind) for name, kind in SCHEMA if kind not in ("events", "annotations"))


def events_json(events: Iterable[Sequence[Any]]) -> str:
    """A row's events (`ExportEvent`s) as the JSON array the files hold: their texts joined."""
    return "[" + ",".join(map(JSON_TEXT, events)) + "]"


def annotations_json(notes: list[dict[str, Any]]) -> str:
    if not notes:
        return "[]"
    return dumps([{**note, "created_at": iso(note["created_at"])} for note in notes])


def jsonl_line(row: dict[str, Any]) -> str:
    """A row as one JSON Lines line (without its newline)."""
    head = dumps(
        {name: iso(row[name]) if kind == "timestamp" else row[name] for name, kind in _SCALARS}
    )
    return (
        f'{head[:-1]},"events":{events_json(row["events"])},'
        f'"annotations":{annotations_json(row["annotations"])}}}'
    )


def _text(value: Any) -> str:
    if value is None:
        return ""
    if value is True or value is False:
        return "true" if value else "false"
    return str(value)


def _timestamp(value: Any) -> str:
    return "" if value is None else str(iso(value))


def _list(value: Any) -> str:
    return "" if value is None else dumps(value)


_CELLS: tuple[tuple[str, Callable[[Any], str]], ...] = tuple(
    (name, {"timestamp": _timestamp, "list": _list}.get(kind, _text)) for name, kind in _SCALARS
)


def csv_quoted(cell: str) -> str:
    """A cell as `csv.writer` (the excel dialect, minimal quoting) writes it: in quotes, its
    quotes doubled, when it holds a quote, a comma or a line break."""
    if '"' in cell:
        return '"' + cell.replace('"', '""') + '"'
    if "," in cell or "\n" in cell or "\r" in cell:
        return '"' + cell + '"'
    return cell


class CsvLines:
    """Rows as the lines `csv.writer` writes, faster: the scalar cells through a `csv.writer`
    into a buffer, the two large JSON cells (events, annotations; mostly quotes to double, where
    the writer's loop goes a character at a time) quoted by `csv_quoted`'s string methods."""

    def __init__(self) -> None:
        self.buffer = io.StringIO()
        self.writer = csv.writer(self.buffer)

    def line(self, row: dict[str, Any]) -> str:
        buffer = self.buffer
        buffer.seek(0)
        buffer.truncate()
        self.writer.writerow([cell(row[name]) for name, cell in _CELLS])
        head = buffer.getvalue()[:-2]  # less the writer's "\r\n"
        events = csv_quoted(events_json(row["events"]))
        return f"{head},{events},{csv_quoted(annotations_json(row['annotations']))}\r\n"


def parquet_schema() -> Any:
    import pyarrow as pa

    scalar = {
        "int": pa.int64(),
        "float": pa.float64(),
        "bool": pa.bool_(),
        "text": pa.string(),
        "json": pa.string(),
        "timestamp": pa.timestamp("us", tz="UTC"),
        "list": pa.list_(pa.string()),
    }
    nested = {
        "events": pa.list_(pa.struct([(n, scalar[t]) for n, t in EVENT_FIELDS])),
        "annotations": pa.list_(pa.struct([(n, scalar[t]) for n, t in ANNOTATION_FIELDS])),
    }
    return pa.schema([(name, nested.get(kind) or scalar[kind]) for name, kind in SCHEMA])


def parquet_batch(rows: list[dict[str, Any]], schema: Any) -> Any:
    """A record batch of `rows`, column by column; the events of every row in six flat columns
    (their timestamps parsed by Arrow from the ISO text) under one list of offsets."""
    import pyarrow as pa

    columns = [
        pa.array([row[name] for row in rows], schema.field(name).type) for name, _ in _SCALARS
    ]
    events = [row["events"] for row in rows]
    offsets = [0]
    for listed in events:
        offsets.append(offsets[-1] + len(listed))
    cells = [cell for listed in events for cell in listed]
    flat = list(zip(*cells, strict=True)) if cells else [()] * 8  # `ExportEvent`'s fields
    kind = schema.field("events").type.value_type
    text = pa.string()
    values = [
        pa.array(flat[1], pa.int64()),
        pa.array(flat[2], text).cast(pa.timestamp("us", tz="UTC")),
        pa.array(flat[3], text),
        pa.array(flat[4], text),
        pa.array(flat[5], text),
        pa.array(flat[6], pa.float64()),
    ]
    structs = pa.StructArray.from_arrays(values, fields=list(kind))
    columns.append(pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), structs))
    columns.append(pa.array([row["annotations"] for row in rows], schema.field("annotations").type))
    return pa.RecordBatch.from_arrays(columns, schema=schema)
