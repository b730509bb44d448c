"""Export of the sessions database, one row per session, as JSON Lines, CSV or Parquet.

A row holds the task (source, idx, type, query, ground truth), the participant (kind, name, model),
the session's status and kind (`attempt`, `fork` or `takeover`, with the parent session and the
step it continued from), the latest grade (answer, parsed answer, reward, grader, how the answer was extracted, imported or
not, its grading protocol, and the infrastructure error the attempt ended on if any), the times (started, ended, active seconds), the events and the labels. In JSON Lines and
Parquet the events and labels are nested lists (a Parquet event's payload is JSON text, since
payloads differ by kind); in CSV every list is JSON text in its cell. The file is written next to
its destination and renamed into place, so a failed export never leaves half a file.
"""

from __future__ import annotations

import csv
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store

FORMATS = ("jsonl", "csv", "parquet")
COLUMNS = (
    "session_id",
    "task_source",
    "task_idx",
    "task_type",
    "query",
    "gold_answer",
    "interactive",
    "aided",
    "blind",
    "participant_kind",
    "participant_name",
    "participant_model",
    "status",
    "session_kind",
    "parent_session_id",
    "fork_seq",
    "answer",
    "parsed_answer",
    "reward",
    "grader",
    "extraction",
    "imported",
    "protocol",
    "infrastructure_error",
    "started_at",
    "ended_at",
    "active_seconds",
    "wall_seconds",
    "events",
    "labels",
)
_PARQUET_BATCH = 256


def _time(value: Any) -> str | None:
    return None if value is None else value.isoformat().replace("+00:00", "Z")


def session_rows(store: Store) -> Iterator[dict[str, Any]]:
    """One export row per session, in session order."""
    people = {p.id: p for p in store.participants()}
    for session in store.sessions():
        person = people[session.participant_id]
        grade = store.grade(session.id)
        task = session.task_json
        yield {
            "session_id": session.id,
            "task_source": session.task_source,
            "task_idx": session.task_idx,
            "task_type": session.task_type,
            "query": task.get("query", ""),
            "gold_answer": task.get("answer"),
            "interactive": session.interactive,
            "aided": session.aided,
            "blind": session.blind,
            "participant_kind": person.kind,
            "participant_name": person.name,
            "participant_model": person.model,
            "status": session.status,
            "session_kind": session.kind,
            "parent_session_id": session.parent_session_id,
            "fork_seq": session.fork_seq,
            "answer": grade.answer if grade else None,
            "parsed_answer": grade.parsed_answer if grade else None,
            "reward": grade.reward if grade else None,
            "grader": grade.grader if grade else None,
            "extraction": grade.extraction if grade else None,
            "imported": grade.imported if grade else False,
            "protocol": grade.protocol if grade else None,
            "infrastructure_error": (grade.metrics.get("infrastructure_error") if grade else None)
            or session.settings.get("infrastructure_error"),
            "started_at": _time(session.started_at),
            "ended_at": _time(session.ended_at),
            "active_seconds": session.active_seconds,
            "wall_seconds": session.wall_seconds,
            "events": [
                {
                    "seq": e.seq,
                    "ts": _time(e.ts),
                    "actor": e.actor,
                    "kind": e.kind,
                    "payload": e.payload,
                    "duration_ms": e.duration_ms,
                }
                for e in store.events(session.id)
            ],
            "labels": [
                {
                    "label": a.label,
                    "note": a.note,
                    "annotator": a.annotator,
                    "event_seq": a.event_seq,
                    "created_at": _time(a.created_at),
                }
                for a in store.annotations(session_id=session.id)
            ],
        }


def _jsonl(rows: Iterator[dict[str, Any]], out: Path) -> int:
    count = 0
    with out.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
    return count


def _csv(rows: Iterator[dict[str, Any]], out: Path) -> int:
    count = 0
    with out.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS)
        writer.writeheader()
        for row in rows:
            writer.writerow(
                {
                    k: json.dumps(v, ensure_ascii=False) if isinstance(v, list | dict) else v
                    for k, v in row.items()
                }
            )
            count += 1
    return count


def parquet_schema() -> Any:
    import pyarrow as pa

    event = pa.struct(
        [
            ("seq", pa.int64()),
            ("ts", pa.string()),
            ("actor", pa.string()),
            ("kind", pa.string()),
            ("payload", pa.string()),
            ("duration_ms", pa.float64()),
        ]
    )
    label = pa.struct(
        [
            ("label", pa.string()),
            ("note", pa.string()),
            ("annotator", pa.string()),
            ("event_seq", pa.int64()),
            ("created_at", pa.string()),
        ]
    )
    types = {
        "session_id": pa.int64(),
        "task_idx": pa.int64(),
        "parent_session_id": pa.int64(),
        "fork_seq": pa.int64(),
        "gold_answer": pa.list_(pa.string()),
        "interactive": pa.bool_(),
        "aided": pa.bool_(),
        "blind": pa.bool_(),
        "parsed_answer": pa.list_(pa.string()),
        "reward": pa.float64(),
        "imported": pa.bool_(),
        "active_seconds": pa.float64(),
        "wall_seconds": pa.float64(),
        "events": pa.list_(event),
        "labels": pa.list_(label),
    }
    return pa.schema([(name, types.get(name, pa.string())) for name in COLUMNS])


def _parquet_row(row: dict[str, Any]) -> dict[str, Any]:
    row = dict(row)
    row["events"] = [
        {**e, "payload": json.dumps(e["payload"], ensure_ascii=False)} for e in row["events"]
    ]
    for name in ("gold_answer", "parsed_answer"):
        if row[name] is not None:
            row[name] = [None if v is None else str(v) for v in row[name]]
    return row


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


def export_sessions(store: Store, fmt: str, out: Path | str) -> int:
    """Write every session to `out` in `fmt` (jsonl, csv or parquet); returns the row count."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".part", dir=out.parent)
    os.close(handle)
    writer = {"jsonl": _jsonl, "csv": _csv, "parquet": _parquet}[fmt]
    try:
        count = writer(session_rows(store), Path(temp))
        os.replace(temp, out)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return count
