"""The one schema of `crmarena-tui export`, for JSON Lines, CSV and Parquet alike: one row per
session, every column with one documented type (docs/research.md, "Exports").

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
every format (`tests/storage/test_export_roundtrip.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, cast

from crmarena_tui.storage import convert, provenance
from crmarena_tui.storage.configuration import privacy_aware_of, strategy_of, user_model_of
from crmarena_tui.storage.end_reason import end_reason
from crmarena_tui.storage.export_events import ExportEvent, LazyEvents, event_cells, read_events
from crmarena_tui.storage.steps import fork_step

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
    ("trial", "int"),
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
    ("user_model", "text"),
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
    *provenance.COLUMNS,  # org clock, schema and prompt sources, judge (`storage/provenance.py`)
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


def _usage(cells: list[ExportEvent]) -> dict[str, Any]:
    usage = [convert.loads(e[5], {}) for e in cells if e[4] == "usage"]  # (kind, payload_json)
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


def _usage_model(cells: list[ExportEvent]) -> str | None:
    """The models the session's usage events name (an outside agent's, which has no model of
    its own: `storage.usage_models`), comma-separated; None when none does."""
    found = set()
    for e in cells:
        if e[4] == "usage" and isinstance(m := convert.loads(e[5], {}).get("model"), str) and m:
            found.add(m)
    return ", ".join(sorted(found)) or None


def _list(value: Any) -> list[str | None] | None:
    if value is None:
        return None
    items = value if isinstance(value, list) else [value]
    return [None if v is None else str(v) for v in items]


def session_row(
    session: Session,
    person: Participant,
    events: Sequence[Event] | list[ExportEvent],
    grade: GradeRow | None,
    notes: list,
    study: str | None = None,
) -> dict[str, Any]:
    """One export row in `COLUMNS` order: Python values (datetimes, lists, dicts), but each
    event as the files hold it, the fields of an `ExportEvent` (`export_events.py`: its
    timestamp as export text, its payload the stored JSON text, its whole JSON text), which the
    writers splice in. `events` are `Store.events`' models or `read_events`' tuples."""
    task = session.task_json
    cells = [e if isinstance(e, tuple) else event_cells(e) for e in events]
    logged = cast("Sequence[Event]", LazyEvents(cells))  # made an `ExportEvent` when read
    kinds = [e[4] for e in cells]  # (kind)
    infra = (grade.metrics.get("infrastructure_error") if grade else None) or session.settings.get(
        "infrastructure_error"
    )
    return {
        "session_id": session.id,
        "session_uuid": session.uuid or None,
        "study": study,
        "task_source": session.task_source,
        "task_idx": session.task_idx,
        "trial": session.trial,
        "task_type": session.task_type,
        "org_type": task.get("org_type"),
        "query": task.get("query", ""),
        "gold_answer": _list(task.get("answer")),
        "interactive": session.interactive,
        "aided": session.aided,
        "blind": session.blind,
        "participant_kind": person.kind,
        "participant_name": person.name,
        "participant_model": person.model or _usage_model(cells),
        "strategy": strategy_of(person, session),
        "privacy_aware": privacy_aware_of(person, session),
        "user_model": user_model_of(session),
        "status": session.status,
        "session_kind": session.kind,
        "parent_session_id": session.parent_session_id,
        "fork_seq": fork_step(logged, session.fork_seq),  # the viewer's "after step N"
        "fork_event_seq": session.fork_seq,  # the last event copied from the parent
        "answer": grade.answer if grade else None,
        "parsed_answer": _list(grade.parsed_answer) if grade else None,
        "reward": float(grade.reward) if grade else None,
        "no_answer": grade.metrics.get("no_answer") is True if grade else None,
        "grader": grade.grader if grade else None,
        "extraction": grade.extraction if grade else None,
        "imported": grade.imported if grade else False,
        "protocol": grade.protocol if grade else None,
        **provenance.values(session.settings, grade),
        "infrastructure_error": str(infra) if infra else None,
        "end_reason": end_reason(session, logged, grade),
        "started_at": session.started_at,
        "ended_at": session.ended_at,
        "active_seconds": session.active_seconds,
        "wall_seconds": session.wall_seconds,
        "turns": kinds.count("submit")
        + sum(1 for e in cells if e[4] == "message" and e[3] in ("agent", "human")),
        "queries": kinds.count("query") + kinds.count("search"),
        "errors": kinds.count("error"),
        **_usage(cells),
        "events": cells,
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
    texts: bool = True,
    after: int = 0,
    through: int | None = None,
) -> Iterator[dict[str, Any]]:
    """One export row per session, in session order, read `chunk` (default `CHUNK`) sessions at a time (their
    events, grades and annotations by one query each per chunk). `keep` (a session as the
    sessions list holds it, and its participant) leaves out the sessions it says no to, before
    their events are read; `progress` is told how many sessions were read so far, after each
    chunk; `texts=False` reads the events without their JSON texts (Parquet writes none). Only
    the sessions with an id over `after` and up to `through` are read (`export_parallel.py`)."""
    chunk = chunk or CHUNK
    people = {p.id: p for p in store.participants()}
    studies: dict[int, str] = dict(store.read("SELECT id, name FROM studies"))
    last, read, upto = after, 0, (1 << 63) - 1 if through is None else through
    while True:
        rows = store.db.rows(
            "SELECT * FROM sessions WHERE id > ? AND id <= ? ORDER BY id LIMIT ?",
            (last, upto, chunk),
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
        marks = ", ".join("?" * len(ids))
        events = cast("dict[int, list[Event]]", read_events(store, ids, texts=texts))
        grades: dict[int, GradeRow] = {}  # the latest grade: the highest id, as Store.grade
        for r in store.db.rows(
            f"SELECT * FROM grades WHERE session_id IN ({marks}) ORDER BY id", tuple(ids)
        ):
            grades[r["session_id"]] = convert.grade_from_row(r)
        notes: dict[int, list[Annotation]] = {i: [] for i in ids}
        for r in store.db.rows(
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
        row.get("trial") or 1,
    )
