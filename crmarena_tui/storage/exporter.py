"""Export of the sessions database, one row per session, as JSON Lines, CSV or Parquet, in one
schema (`export_schema.py`: the columns, their types, and how each format holds each type).

The file is written next to its destination and renamed into place, so a failed export never
leaves half a file; it gets the permissions any new file of the user gets (the umask), not the
private mode of a temporary file.
"""

from __future__ import annotations

import csv
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crmarena_tui.storage.export_parallel import export_in_two, middle_id
from crmarena_tui.storage.export_schema import COLUMNS, SCHEMA, session_rows
from crmarena_tui.storage.export_writers import (
    CsvLines,
    jsonl_line,
    parquet_batch,
    parquet_schema,
)

if TYPE_CHECKING:
    from crmarena_tui.storage.models import ListedSession, Participant
    from crmarena_tui.storage.store import Store

__all__ = ["COLUMNS", "FORMATS", "SCHEMA", "export_sessions", "session_rows"]
FORMATS = ("jsonl", "csv", "parquet")
_PARQUET_BATCH = 256


def _jsonl(rows: Iterator[dict[str, Any]], out: Path, *, header: bool = True) -> int:
    count = 0
    with out.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(jsonl_line(row) + "\n")
            count += 1
    return count


def _csv(rows: Iterator[dict[str, Any]], out: Path, *, header: bool = True) -> int:
    count = 0
    with out.open("w", encoding="utf-8", newline="") as fh:
        if header:
            csv.writer(fh).writerow(COLUMNS)
        lines = CsvLines()
        for row in rows:
            fh.write(lines.line(row))
            count += 1
    return count


def _batches(rows: Iterator[dict[str, Any]], schema: Any) -> Iterator[Any]:
    """Record batches of `_PARQUET_BATCH` rows (one, empty, when there are none)."""
    batch: list[dict[str, Any]] = []
    made = False
    for row in rows:
        batch.append(row)
        if len(batch) >= _PARQUET_BATCH:
            yield parquet_batch(batch, schema)
            batch, made = [], True
    if batch or not made:
        yield parquet_batch(batch, schema)


def _parquet(
    rows: Iterator[dict[str, Any]], out: Path, *, then: Callable[[], Path] | None = None
) -> int:
    """Write `rows` in record batches; then (`export_parallel`) the batches of the Arrow
    stream `then()` gives, before the file is closed."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = parquet_schema()
    count = 0
    with pq.ParquetWriter(str(out), schema) as writer:
        for batch in _batches(rows, schema):
            writer.write_batch(batch)
            count += batch.num_rows
        if then is not None:
            with pa.OSFile(str(then()), "rb") as source, pa.ipc.open_stream(source) as stream:
                for batch in stream:  # read one at a time: memory bounded by a batch
                    writer.write_batch(batch)
    return count


def _arrow_part(rows: Iterator[dict[str, Any]], out: Path, *, header: bool = True) -> int:
    """The second process's half of a Parquet export: its record batches as an Arrow stream."""
    import pyarrow as pa

    schema = parquet_schema()
    count = 0
    with pa.OSFile(str(out), "wb") as sink, pa.ipc.new_stream(sink, schema) as stream:
        for batch in _batches(rows, schema):
            stream.write_batch(batch)
            count += batch.num_rows
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
    events: bool = False,
) -> int:
    """Write every session (those `keep` keeps) to `out` in `fmt` (jsonl, csv or parquet), row by
    row as they are read (`session_rows`: a chunk of sessions at a time; Parquet in record batches
    of `_PARQUET_BATCH` rows); returns the row count. `progress` is told the sessions read so far,
    kept or not, after each chunk. `events`: one row per event of those sessions instead
    (`export_event_table.py`), in one process; the count is then of events."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_parts(out)
    handle, temp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".part", dir=out.parent)
    _hold(handle)  # (locked while this export runs: a later export leaves it alone)
    writers: dict[str, Callable[..., int]] = {"jsonl": _jsonl, "csv": _csv, "parquet": _parquet}
    writer = writers[fmt]
    try:
        split = None if events else middle_id(store)
        if events:
            from crmarena_tui.storage.export_event_table import event_rows, write_events

            count = write_events(event_rows(store, keep, progress=progress), fmt, Path(temp))
        elif split is not None:  # a large export: two processes, one half each
            count = export_in_two(
                store, session_rows, writer, Path(temp), split, progress, keep=keep,
                texts=fmt != "parquet", part_writer=_arrow_part if fmt == "parquet" else None,
            )  # fmt: skip
        else:
            rows = session_rows(store, keep, progress=progress, texts=fmt != "parquet")
            count = writer(rows, Path(temp))
        os.chmod(temp, 0o666 & ~_umask())  # as the user's other new files, not mkstemp's 0600
        os.replace(temp, out)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    finally:
        os.close(handle)
    return count


def _hold(handle: int) -> None:
    """Lock the open part file for as long as `handle` is open (POSIX; elsewhere a no-op)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return
    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)


def remove_stale_parts(out: Path) -> list[Path]:
    """Remove the hidden part files (`.<name>.*.part`, and the second process's `.part.2`) an
    export of `out` killed before its end left behind; a part another export of `out` is still
    writing holds a lock and is kept. The paths removed."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: nothing tells a live part from a dead
        return []
    removed = []
    for part in sorted(out.parent.glob(f".{glob_escape(out.name)}.*.part")):
        try:
            fd = os.open(part, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # another export is writing it
        finally:
            os.close(fd)
        for stale in (part, part.with_name(part.name + ".2")):
            try:
                stale.unlink()
                removed.append(stale)
            except FileNotFoundError:
                pass
    for orphan in out.parent.glob(f".{glob_escape(out.name)}.*.part.2"):
        if not orphan.with_name(orphan.name[:-2]).exists():
            orphan.unlink(missing_ok=True)
            removed.append(orphan)
    return removed


def glob_escape(name: str) -> str:
    """`name` with glob's special characters matched literally."""
    import glob

    return glob.escape(name)
