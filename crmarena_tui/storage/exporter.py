"""Export of the sessions database, one row per session, as JSON Lines, CSV or Parquet, in one
schema (`export_schema.py`: the columns, their types, and how each format holds each type).

The file is written next to its destination and renamed into place, so a failed export never
leaves half a file; it gets the permissions any new file of the user gets (the umask), not the
private mode of a temporary file.
"""

from __future__ import annotations

import csv
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crmarena_tui.storage.export_schema import (
    ANNOTATION_FIELDS,
    COLUMNS,
    EVENT_FIELDS,
    SCHEMA,
    iso,
    session_rows,
)

if TYPE_CHECKING:
    from crmarena_tui.storage.models import ListedSession, Participant
    from crmarena_tui.storage.store import Store

__all__ = ["COLUMNS", "FORMATS", "SCHEMA", "export_sessions", "session_rows"]
FORMATS = ("jsonl", "csv", "parquet")
_PARQUET_BATCH = 256


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _nested_json(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events or annotations as JSON holds them: timestamps as ISO text, payloads as objects."""
    return [
        {k: iso(v) if k in ("ts", "created_at") else v for k, v in item.items()} for item in items
    ]


def json_row(row: dict[str, Any]) -> dict[str, Any]:
    """A row as JSON Lines holds it."""
    out = {}
    for name, kind in SCHEMA:
        value = row[name]
        if kind == "timestamp":
            value = iso(value)
        elif kind in ("events", "annotations"):
            value = _nested_json(value)
        out[name] = value
    return out


def csv_row(row: dict[str, Any]) -> dict[str, str]:
    """A row as CSV holds it: text cells; lists and nested rows as JSON text; null empty."""
    out = {}
    for name, value in json_row(row).items():
        if value is None:
            out[name] = ""
        elif isinstance(value, bool):
            out[name] = "true" if value else "false"
        elif isinstance(value, list | dict):
            out[name] = _dumps(value)
        else:
            out[name] = str(value)
    return out


def _jsonl(rows: Iterator[dict[str, Any]], out: Path) -> int:
    count = 0
    with out.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(_dumps(json_row(row)) + "\n")
            count += 1
    return count


def _csv(rows: Iterator[dict[str, Any]], out: Path) -> int:
    count = 0
    with out.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS)
        writer.writeheader()
        for row in rows:
            writer.writerow(csv_row(row))
            count += 1
    return count


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


def _parquet_row(row: dict[str, Any]) -> dict[str, Any]:
    out = dict(row)
    out["events"] = [{**e, "payload": _dumps(e["payload"])} for e in row["events"]]
    return out


def _parquet(rows: Iterator[dict[str, Any]], out: Path) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = parquet_schema()
    count = 0
    with pq.ParquetWriter(str(out), schema) as writer:
        batch: list[dict[str, Any]] = []
        for row in rows:
            batch.append(_parquet_row(row))
            if len(batch) >= _PARQUET_BATCH:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                count, batch = count + len(batch), []
        if batch or count == 0:
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))
            count += len(batch)
    return count


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def export_sessions(
    store: Store,
    fmt: str,
    out: Path | str,
    *,
    keep: Callable[[ListedSession, Participant], bool] | None = None,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Write every session (those `keep` keeps) to `out` in `fmt` (jsonl, csv or parquet), row by
    row as they are read (`session_rows`: a chunk of sessions at a time; Parquet in record batches
    of `_PARQUET_BATCH` rows); returns the row count. `progress` is told the sessions read so far,
    kept or not, after each chunk."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".part", dir=out.parent)
    os.close(handle)
    writer = {"jsonl": _jsonl, "csv": _csv, "parquet": _parquet}[fmt]
    try:
        count = writer(session_rows(store, keep, progress=progress), Path(temp))
        os.chmod(temp, 0o666 & ~_umask())  # as the user's other new files, not mkstemp's 0600
        os.replace(temp, out)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return count
