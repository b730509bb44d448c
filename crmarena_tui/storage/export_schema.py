"""The one schema of `crmarena-tui export`, for JSON Lines, CSV and Parquet alike: one row per
session, every column with one documented type (README, "Exports").

| type | JSON Lines | CSV | Parquet |
|---|---|---|---|
| int, float, text | number, string | the value as text | int64, float64, string |
| bool | true / false | `true` / `false` | bool |
| timestamp | ISO-8601 UTC text (`...Z`) | the same text | timestamp (µs, UTC) |
| list | array | JSON text | list<string> |
| events, annotations | array of objects | JSON text (as in JSON Lines) | list<struct> |

A null is `null` in JSON Lines, an empty cell in CSV, a null in Parquet (CSV cannot tell an empty
text from a null: both are an empty cell). An event's `payload` (its
fields differ by kind) is an object in JSON Lines and in CSV's JSON text, and JSON text in
Parquet; its text, in all three, is the database's own (compact, keys sorted: the export
splices it in, `export_writers.py`). Reading a file back by this table gives the same values in
every format (`tests/test_export_roundtrip.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from crmarena_tui.steps import fork_step
from crmarena_tui.storage import convert
from crmarena_tui.storage.configuration import privacy_aware_of, strategy_of
from crmarena_tui.storage.end_reason import end_reason

if TYPE_CHECKING:
    from crmarena_tui.storage.models import (
        Annotation,
        Event,
        GradeRow,
        ListedSession,
        Participant,
        Session,
    )
    from crmarena_tui.storage.store import Store

SCHEMA: tuple[tuple[str, str], ...] = (
    ("session_id", "int"),
    ("session_uuid", "text"),
    ("study", "text"),
    ("task_source", "text"),
    ("task_idx", "int"),
    ("task_type", "text"),
    ("org_type", "text"),
    ("query", "text"),
    ("gold_answer", "list"),
    ("interactive", "bool"),
    ("aided", "bool"),
    ("blind", "bool"),
    ("participant_kind", "text"),
    ("participant_name", "text"),
    ("participant_model", "text"),
    ("strategy", "text"),
    ("privacy_aware", "bool"),
    ("status", "text"),
    ("session_kind", "text"),
    ("parent_session_id", "int"),
    ("fork_seq", "int"),
    ("fork_event_seq", "int"),
    ("answer", "text"),
    ("parsed_answer", "list"),
    ("reward", "float"),
    ("no_answer", "bool"),
    ("grader", "text"),
    ("extraction", "text"),
    ("imported", "bool"),
    ("protocol", "text"),
    ("infrastructure_error", "text"),
    ("end_reason", "text"),
    ("started_at", "timestamp"),
    ("ended_at", "timestamp"),
    ("active_seconds", "float"),
    ("wall_seconds", "float"),
    ("turns", "int"),
    ("queries", "int"),
    ("errors", "int"),
    ("prompt_tokens", "int"),
    ("completion_tokens", "int"),
    ("total_tokens", "int"),
    ("cost", "float"),
    ("events", "events"),
    ("annotations", "annotations"),
)
COLUMNS = tuple(name for name, _ in SCHEMA)
TYPES = dict(SCHEMA)
EVENT_FIELDS = (
    ("seq", "int"),
    ("ts", "timestamp"),
    ("actor", "text"),
    ("kind", "text"),
    ("payload", "json"),
    ("duration_ms", "float"),
)
ANNOTATION_FIELDS = (
    ("kind", "text"),
    ("level", "text"),
    ("label", "text"),
    ("note", "text"),
    ("annotator", "text"),
    ("event_seq", "int"),
    ("created_at", "timestamp"),
)


def _usage(events: list[Event]) -> dict[str, Any]:
    usage = [ev.payload for ev in events if ev.kind == "usage"]
    if not usage:
        return {
            "prompt_tokens": None,
            "completion_tokens": None,
            "total_tokens": None,
            "cost": None,
        }

    def total(name: str) -> int:
        return sum(int(u.get(name) or 0) for u in usage)

    costs = [float(c) for u in usage if isinstance(c := u.get("cost"), int | float)]
    return {
        "prompt_tokens": total("prompt_tokens"),
        "completion_tokens": total("completion_tokens"),
        "total_tokens": total("total_tokens")
        or total("prompt_tokens") + total("completion_tokens"),
        "cost": sum(costs) if costs else None,
    }


def _list(value: Any) -> list[str | None] | None:
    if value is None:
        return None
    items = value if isinstance(value, list) else [value]
    return [None if v is None else str(v) for v in items]


def session_row(
    session: Session,
    person: Participant,
    events: list[Event],
    grade: GradeRow | None,
    notes: list,
    study: str | None = None,
) -> dict[str, Any]:
    """One export row in `COLUMNS` order: Python values (datetimes, lists, dicts), but each
    event as the files hold it, an `ExportEvent` (its timestamp as export text, its payload as
    the stored JSON text), which the writers splice in without decoding it."""
    task = session.task_json
    infra = (grade.metrics.get("infrastructure_error") if grade else None) or session.settings.get(
        "infrastructure_error"
    )
    return {
        "session_id": session.id,
        "session_uuid": session.uuid or None,
        "study": study,
        "task_source": session.task_source,
        "task_idx": session.task_idx,
        "task_type": session.task_type,
        "org_type": task.get("org_type"),
        "query": task.get("query", ""),
        "gold_answer": _list(task.get("answer")),
        "interactive": session.interactive,
        "aided": session.aided,
        "blind": session.blind,
        "participant_kind": person.kind,
        "participant_name": person.name,
        "participant_model": person.model,
        "strategy": strategy_of(person, session),
        "privacy_aware": privacy_aware_of(person, session),
        "status": session.status,
        "session_kind": session.kind,
        "parent_session_id": session.parent_session_id,
        "fork_seq": fork_step(events, session.fork_seq),  # the viewer's "after step N"
        "fork_event_seq": session.fork_seq,  # the last event copied from the parent
        "answer": grade.answer if grade else None,
        "parsed_answer": _list(grade.parsed_answer) if grade else None,
        "reward": float(grade.reward) if grade else None,
        "no_answer": grade.metrics.get("no_answer") is True if grade else None,
        "grader": grade.grader if grade else None,
        "extraction": grade.extraction if grade else None,
        "imported": grade.imported if grade else False,
        "protocol": grade.protocol if grade else None,
        "infrastructure_error": str(infra) if infra else None,
        "end_reason": end_reason(session, events, grade),
        "started_at": session.started_at,
        "ended_at": session.ended_at,
        "active_seconds": session.active_seconds,
        "wall_seconds": session.wall_seconds,
        "turns": sum(
            1
            for e in events
            if e.kind == "submit" or (e.kind == "message" and e.actor in ("agent", "human"))
        ),
        "queries": sum(1 for e in events if e.kind in ("query", "search")),
        "errors": sum(1 for e in events if e.kind == "error"),
        **_usage(events),
        "events": [e if type(e) is ExportEvent else event_cells(e) for e in events],
        "annotations": [
            {
                "kind": a.kind,
                "level": a.level,
                "label": a.label,
                "note": a.note,
                "annotator": a.annotator,
                "event_seq": a.event_seq,
                "created_at": a.created_at,
            }
            for a in notes
        ],
    }


CHUNK = 256  # sessions read at a time: memory is bounded by a chunk, not by the database


def session_rows(
    store: Store,
    keep: Callable[[ListedSession, Participant], bool] | None = None,
    *,
    chunk: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> Iterator[dict[str, Any]]:
    """One export row per session, in session order, read `chunk` (default `CHUNK`) sessions at a time (their
    events, grades and annotations by one query each per chunk). `keep` (a session as the
    sessions list holds it, and its participant) leaves out the sessions it says no to, before
    their events are read; `progress` is told how many sessions were read so far, after each
    chunk."""
    chunk = chunk or CHUNK
    people = {p.id: p for p in store.participants()}
    studies: dict[int, str] = dict(store.read("SELECT id, name FROM studies"))
    last, read = 0, 0
    while True:
        rows = store._rows("SELECT * FROM sessions WHERE id > ? ORDER BY id LIMIT ?", (last, chunk))
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
        marks = ", ".join("?" * len(ids))
        events: dict[int, list[Event]] = {i: [] for i in ids}
        for sid, *fields in store.read(
            "SELECT session_id, seq, ts, actor, kind, payload, duration_ms FROM events"
            f" WHERE session_id IN ({marks}) ORDER BY session_id, seq",
            tuple(ids),
        ):
            events[sid].append(_event(*fields))
        grades: dict[int, GradeRow] = {}  # the latest grade: the highest id, as Store.grade
        for r in store._rows(
            f"SELECT * FROM grades WHERE session_id IN ({marks}) ORDER BY id", tuple(ids)
        ):
            grades[r["session_id"]] = convert.grade_from_row(r)
        notes: dict[int, list[Annotation]] = {i: [] for i in ids}
        for r in store._rows(
            f"SELECT * FROM annotations WHERE session_id IN ({marks}) ORDER BY id", tuple(ids)
        ):
            notes[r["session_id"]].append(convert.annotation_from_row(r))
        for r in rows:
            session = convert.session_from_row(r)
            yield session_row(
                session,
                people[session.participant_id],
                events[session.id],
                grades.get(session.id),
                notes[session.id],
                studies.get(session.study_id) if session.study_id is not None else None,
            )


class ExportEvent(NamedTuple):
    """An event as the export reads and writes it: `ts_text` the files' ISO text (`iso`),
    `payload_json` the database's JSON text (compact, keys sorted), spliced into the files as it
    is. It answers `seq`, `kind`, `actor`, `payload` and `text` as a `models.Event` does, for the
    columns computed from the log; a payload is decoded only when one of them asks for it. No
    validated model per event: a database of 100,000 sessions holds millions."""

    seq: int
    ts_text: str | None
    actor: str
    kind: str
    payload_json: str
    duration_ms: float | None

    @property
    def payload(self) -> dict[str, Any]:
        return cast("dict[str, Any]", convert.loads(self.payload_json, {}))

    @property
    def text(self) -> str:
        from crmarena_tui.storage.models import Event

        return str(Event.text.fget(self))  # type: ignore[attr-defined]


def event_cells(event: Event) -> ExportEvent:
    """A validated event (`Store.events`) as the export holds it: the bytes `session_rows` reads
    from the database for it (its timestamp and payload encoded as the database stores them)."""
    return ExportEvent(
        event.seq,
        iso(event.ts),
        event.actor,
        event.kind,
        convert.dumps(event.payload),
        event.duration_ms,
    )


def _event(
    seq: int, ts: str | None, actor: str, kind: str, payload: str, duration_ms: float | None
) -> Event:
    """An `ExportEvent`, typed as the `Event` it stands for (it has every field rows read)."""
    return cast(
        "Event", ExportEvent(seq, export_time(ts), actor, kind, payload or "{}", duration_ms)
    )


def export_time(stored: str | None) -> str | None:
    """A stored timestamp (`2024-05-03T09:15:00.000000Z`, `convert.iso`) as the files' text
    (`iso`: `...09:15:00Z`, microseconds only when there are some), without a datetime."""
    if stored is None:
        return None
    if len(stored) == 27 and stored[10] == "T" and stored[19] == "." and stored[26] == "Z":
        return stored[:19] + "Z" if stored.endswith(".000000Z") else stored
    return iso(datetime.fromisoformat(stored))


def _listed(row: dict[str, Any]) -> ListedSession:
    from crmarena_tui.storage.models import ListedSession

    return ListedSession(
        row["id"],
        row["task_source"],
        row["task_idx"],
        row["task_type"],
        row["status"],
        row.get("kind") or "attempt",
        row["parent_session_id"],
        row["started_at"],
        row["active_seconds"],
        row["interactive"],
        row["org_ref"],
        row["participant_id"],
        row.get("protocol") or "workbench",
    )


def iso(value: datetime | None) -> str | None:
    """A timestamp as the text JSON Lines and CSV hold: ISO-8601 UTC with a `Z`."""
    return None if value is None else value.isoformat().replace("+00:00", "Z")
