"""`TrajectoryWriter`: trajectories read from one file (`trajectory.py`) written as sessions of the
sessions database, as the import of upstream result files writes its own (`storage/upstream.py`):

- Through `storage/bulk.py`, a file imported whole or not at all: `write_file` writes one file
  in one transaction; `write_files` writes up to `BATCH` files to a transaction, each in a
  savepoint (thousands of small files a second: a commit per file would cost more than the
  file). Anything malformed raises `EntryError` naming the file, the entry and the field, and
  the file is rolled back (participants made for it too).
- Idempotent and resumable: a session is identified by its uuid (the file's own, or one derived
  from the format and the entry's digest); one already present is skipped. Importing a file
  again changes nothing; after an interrupted import, the files not yet written are.
- Grades are kept as the file gives them; `FileResult.ungraded` lists the file's sessions that
  have a final answer and no grade, for the command to grade under its protocol (also those
  imported by an earlier, interrupted run).
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from crmarena_tui.errors import ExitCode, UserError
from crmarena_tui.interchange.task_match import TaskMatcher
from crmarena_tui.interchange.trajectory import (
    Trajectory,
    TrajectoryGrade,
    json_text,
    stored_json,
)
from crmarena_tui.storage.bulk import BulkWriter
from crmarena_tui.storage.convert import iso, settings_key
from crmarena_tui.storage.interchange_rows import parent_ids, present_uuids, ungraded
from crmarena_tui.storage.models import ACTORS, EVENT_KINDS, SESSION_KINDS, STATUSES
from crmarena_tui.storage.search_text import index_values

if TYPE_CHECKING:
    import sqlite3

    from crmarena_tui.storage.store import Store
    from crmarena_tui.tasks.table import TaskRow

PROTOCOLS = ("upstream", "workbench")
BATCH = 500  # files to a transaction (each file in a savepoint of its own)
FLUSH_EVENTS = 20_000  # events queued before they are written (between files)


class EntryError(UserError):
    """A trajectory file that cannot be imported: `path`, the `entry` in it and the `field`."""

    def __init__(self, path: Path | str, entry: str, field: str, problem: str) -> None:
        self.path, self.entry, self.field = Path(path), entry, field
        where = f"{entry}, field {field}" if field else entry
        super().__init__(f"{path}: {where}: {problem}", code=ExitCode.FAILED)


@dataclass(slots=True)
class FileResult:
    """What writing one file did; `runs`: sessions imported per (participant, task source)."""

    imported: int = 0
    skipped: int = 0
    ungraded: list[int] = field(default_factory=list)
    runs: dict[tuple[str, str], int] = field(default_factory=dict)


class TrajectoryWriter:
    """Writes trajectories into `store`. `tasks` finds their tasks (default: their own source,
    else `hf:b2b`); `protocol` is recorded on sessions that come without a grade (the command
    grades them under it); `index`: the events indexed for search as they are written, in the
    same transaction (`storage/bulk.py`; else left to the next search)."""

    def __init__(  # fmt: skip
        self,
        store: Store,
        *,
        tasks: TaskMatcher | None = None,
        protocol: str = "upstream",
        index: bool = False,
    ) -> None:
        if protocol not in PROTOCOLS:
            raise ValueError(f"protocol must be upstream or workbench, not {protocol!r}")
        self.store = store
        self.tasks = tasks or TaskMatcher()
        self.protocol = protocol
        self.index = index
        self._participants: dict[tuple[Any, ...], int] = {}
        self._present: set[str] | None = None
        self._queued: dict[str, int] = {}  # session id by uuid, of the batch's sessions
        self._saved = False  # whether the file being written has its savepoint
        self._conn: sqlite3.Connection | None = None  # (the batch's, while it is written)

    def write_file(self, path: Path, trajectories: Iterable[Trajectory], fmt: str) -> FileResult:
        """Write the trajectories `fmt` (a format's name: `atif`, `inspect`) read from `path`,
        in one transaction. Raises `EntryError` (nothing of the file written)."""
        return self.write_files([(path, lambda: trajectories, fmt)])

    def write_files(
        self,
        files: Iterable[tuple[Path, Callable[[], Iterable[Trajectory]], str]],
        refused: Callable[[EntryError], None] | None = None,
    ) -> FileResult:
        """Write many files, each (path, its reader, format name): `BATCH` files to a
        transaction, each file inside a savepoint, so a file is still written whole or not at
        all. A refused file (`EntryError`) is handed to `refused` and the others written; with
        no `refused`, the error is raised and the batch rolled back. Totals of every file."""
        total = FileResult()
        pending = iter(files)
        while self._batch(list(itertools.islice(pending, BATCH)), refused, total):
            pass
        return total

    def _batch(
        self,
        files: list[tuple[Path, Callable[[], Iterable[Trajectory]], str]],
        refused: Callable[[EntryError], None] | None,
        total: FileResult,
    ) -> int:
        """Write `files` in one transaction; how many there were."""
        if not files:
            return 0
        uuids: list[str] = []
        try:
            with self.store.transaction() as conn:
                present = self._present_in(conn)
                writer = BulkWriter(conn, self.store.text_limit, index=self.index)
                self._queued, self._conn = {}, conn
                for path, read, fmt in files:
                    marks = _marks(writer)
                    participants = dict(self._participants)
                    self._saved = False  # (a savepoint taken before the file's first write)
                    try:
                        result, file_uuids = self._file(conn, writer, path, read(), fmt)
                    except EntryError as exc:
                        if self._saved:
                            conn.execute("ROLLBACK TO trajectory_file")
                            conn.execute("RELEASE trajectory_file")
                        _rewind(writer, marks)
                        self._participants = participants
                        if refused is None:
                            raise
                        refused(exc)
                        continue
                    if self._saved:
                        conn.execute("RELEASE trajectory_file")
                    present.update(file_uuids)
                    uuids += file_uuids
                    total.imported += result.imported
                    total.skipped += result.skipped
                    for run, count in result.runs.items():
                        total.runs[run] = total.runs.get(run, 0) + count
                    if len(writer.events) >= FLUSH_EVENTS:  # (between files: memory bounded)
                        writer.flush()
                writer.flush()
                total.ungraded += ungraded(conn, uuids)
        except BaseException:
            self._participants.clear()  # participants made in the rolled-back batch are gone
            self._present = None
            raise
        return len(files)

    def _file(
        self,
        conn: sqlite3.Connection,
        writer: BulkWriter,
        path: Path,
        trajectories: Iterable[Trajectory],
        fmt: str,
    ) -> tuple[FileResult, list[str]]:
        """Queue one file's trajectories; what it holds, and the uuids of its sessions."""
        result = FileResult()
        stamp = iso(path.stat().st_mtime) if path.exists() else iso()
        present = self._present_in(conn)
        uuids: dict[str, None] = {}  # (in the file's order, once each)
        for trajectory in trajectories:
            uid = trajectory.uuid or _derived_uuid(fmt, trajectory)
            if uid in present or uid in uuids:
                result.skipped += 1
                uuids[uid] = None
                continue
            uuids[uid] = None
            run = self._queue(writer, conn, _Where(path, trajectory, fmt, stamp), uid)
            result.runs[run] = result.runs.get(run, 0) + 1
            result.imported += 1
        return result, list(uuids)

    def _present_in(self, conn: sqlite3.Connection) -> set[str]:
        if self._present is None:
            self._present = present_uuids(conn)
        return self._present

    def _queue(
        self, writer: BulkWriter, conn: sqlite3.Connection, where: _Where, uid: str
    ) -> tuple[str, str]:
        """Queue one trajectory's session, events, grades and remarks; its (name, source)."""
        t, fail = where.trajectory, where.fail
        row = self._task(where)
        participant_id = self._participant(where)
        grades = t.grades
        protocol = _grade_protocol(grades[-1], self.protocol) if grades else self.protocol
        settings = t.settings
        if settings is None:
            settings = {
                **t.participant.settings,
                "imported_from": where.fmt,
                "file": where.path.name,
                "entry": t.entry,
                "protocol": protocol,
            }
        cols = t.columns
        model = t.participant.model
        status = t.status or ("submitted" if t.final_answer is not None or grades else "abandoned")
        if status not in STATUSES:
            fail("status", f"{status!r} is not one of {', '.join(sorted(STATUSES))}")
        events = self._events(where)
        times = [e[3] for e in events if e[3] is not None]
        started = where.when(t.started_at, "started_at") or (times[0] if times else where.stamp)
        ended = where.when(t.ended_at, "ended_at")
        if ended is None and status != "in_progress":
            ended = times[-1] if times else where.stamp
        kind = cols.get("kind", "attempt")
        if kind not in SESSION_KINDS:
            fail("kind", f"{kind!r} is not one of {', '.join(sorted(SESSION_KINDS))}")
        trial = cols.get("trial", 1)
        if type(trial) is not int or trial < 1:
            fail("trial", f"{trial!r} is not a whole number from 1")
        parent = cols.get("parent_uuid")
        parent_id = (
            (self._queued.get(parent) or parent_ids(conn, [parent]).get(parent)) if parent else None
        )
        session = {
            "participant_id": participant_id,
            "task_source": row.source,
            "task_idx": row.idx,
            "task_type": row.task,
            "task_json": json_text(t.task) if t.task is not None else row.full().row(),
            "org_kind": cols.get("org_kind", "salesforce"),
            "org_ref": cols.get("org_ref", f"salesforce:{row.org_type}"),
            "interactive": int(cols.get("interactive", row.interactive)),
            "aided": int(cols.get("aided", False)),
            "blind": cols.get("blind", 1 if t.participant.kind == "human" else None),
            "status": status,
            "started_at": started,
            "ended_at": ended,
            "active_seconds": cols.get("active_seconds"),
            "settings_key": cols.get("settings_key")
            or settings_key({**t.participant.settings, "model": model}),
            "settings": settings,
            "user_simulator": cols.get("user_simulator"),
            "parent_session_id": parent_id,
            "fork_seq": cols.get("fork_seq") if parent_id is not None else None,
            "kind": kind,
            "uuid": uid,
            "trial": trial,
        }
        if "app_version" in cols:
            session["app_version"] = cols["app_version"]
        session_id = writer.session(session)
        self._queued[uid] = session_id
        if "protocol" in cols:  # (exactly as recorded, whatever the settings say)
            writer.sessions[-1] = _with_protocol(writer.sessions[-1], cols["protocol"])
        index = [index_values(k, a, p) for a, k, p, _, _ in events] if writer.index else None
        writer.timed_events(
            session_id, [(a, k, stored_json(p), ts, ms) for a, k, p, ts, ms in events], index
        )
        for grade in grades:
            writer.grade(grade.row(session_id, where.stamp))
        for i in range(len(t.remarks)):
            writer.annotation(self._remark(where, i, session_id, len(events)))
        return (t.participant.name, row.source)

    def _task(self, where: _Where) -> TaskRow:
        t = where.trajectory
        source = self.tasks.source_for(t.task_source)
        try:
            row = self.tasks.match(source, t.task_idx, t.query)
        except (UserError, ValueError, LookupError, OSError) as exc:
            where.fail("task source", f"cannot read the tasks of {source}: {exc}")
        if row is None:
            field_name = "task idx" if t.task_idx is not None else "query"
            what = f"idx {t.task_idx}" if t.task_idx is not None else "that query"
            if t.task_idx is not None and t.query:
                what += " nor that query"
            if t.task_idx is None and not t.query:
                where.fail("task idx", "names no task (neither an idx nor a query)")
            where.fail(field_name, f"no task of {source} has {what}")
        return row

    def _participant(self, where: _Where) -> int:
        cfg = where.trajectory.participant
        if cfg.kind not in ("human", "agent"):
            where.fail("participant kind", f"{cfg.kind!r} is not human or agent")
        if not cfg.name:
            where.fail("participant name", "is empty")
        key = (cfg.kind, cfg.name, cfg.model, _frozen(cfg.settings))
        if key not in self._participants:
            if not self._saved:  # (the file's only write before its rows are flushed)
                assert self._conn is not None
                self._conn.execute("SAVEPOINT trajectory_file")
                self._saved = True
            made = self.store.participant(cfg.kind, cfg.name, cfg.model or None, cfg.settings)
            self._participants[key] = made.id
        return self._participants[key]

    def _events(self, where: _Where) -> list[tuple[str, str, dict[str, Any], str | None, Any]]:
        t = where.trajectory
        events: list[tuple[str, str, dict[str, Any], str | None, Any]] = []
        for i, step in enumerate(t.steps):  # (checks inline: a field's name made for its error)
            actor, kind, payload, ts, ms = (
                step.actor,
                step.kind,
                step.payload,
                step.ts,
                step.duration_ms,
            )
            if actor not in ACTORS:
                where.fail(f"steps[{i}].actor", f"{actor!r} is not one of {_list(ACTORS)}")
            if kind not in EVENT_KINDS:
                where.fail(f"steps[{i}].kind", f"{kind!r} is not an event kind")
            if not isinstance(payload, dict):
                where.fail(f"steps[{i}].payload", "is not an object")
            if ms is not None and (type(ms) not in (int, float)):
                where.fail(f"steps[{i}].duration_ms", f"{ms!r} is not a number")
            if ts is not None and not (type(ts) is str and len(ts) == 27 and ts[10::16] == "TZ"):
                ts = where.when(ts, f"steps[{i}].timestamp")  # (else stored text: `when`)
            events.append((actor, kind, payload, ts, ms))
        kinds = {step.kind for step in t.steps}
        actor = "human" if t.participant.kind == "human" else "agent"
        last = events[-1][3] if events else None
        if t.final_answer is not None and "submit" not in kinds:
            events.append((actor, "submit", {"answer": t.final_answer}, last, None))
        if t.grades and "grade" not in kinds:
            events.append(("system", "grade", t.grades[-1].payload(), last, None))
        return events

    def _remark(self, where: _Where, i: int, session_id: int, steps: int) -> dict[str, Any]:
        remark = where.trajectory.remarks[i]
        name = f"annotations[{i}]"
        if remark.kind not in ("label", "note"):
            where.fail(f"{name}.kind", f"{remark.kind!r} is not label or note")
        if not remark.annotator:
            where.fail(f"{name}.annotator", "is empty")
        if remark.kind == "label" and not remark.label:
            where.fail(f"{name}.label", "is empty")
        if remark.step is not None and not (type(remark.step) is int and 1 <= remark.step <= steps):
            where.fail(f"{name}.step", f"{remark.step!r} is not a step of this trajectory")
        return {
            "session_id": session_id,
            "event_seq": remark.step,
            "kind": remark.kind,
            "label": remark.label if remark.kind == "label" else "",
            "note": remark.note,
            "annotator": remark.annotator,
            "created_at": where.when(remark.created_at, f"{name}.created_at") or where.stamp,
        }


@dataclass(slots=True)
class _Where:
    """The trajectory being written and how its errors name it."""

    path: Path
    trajectory: Trajectory
    fmt: str
    stamp: str

    def fail(self, field_name: str, problem: str) -> NoReturn:
        raise EntryError(self.path, self.trajectory.entry, field_name, problem)

    def when(self, text: str | None, field_name: str) -> str | None:
        """ISO-8601 text as the database stores it (this project's own kept as it is)."""
        if text is None:
            return None
        if type(text) is str and len(text) == 27 and text[-1] == "Z" and text[10] == "T":
            return text
        try:
            return iso(datetime.fromisoformat(str(text).replace("Z", "+00:00")))
        except ValueError:
            self.fail(field_name, f"{text!r} is not an ISO-8601 time")


def _marks(writer: BulkWriter) -> tuple[int, ...]:
    """Where the writer's queues stand (`_rewind` goes back there)."""
    return (writer.next_id, *map(len, _queues(writer)))


def _rewind(writer: BulkWriter, marks: tuple[int, ...]) -> None:
    """Drop what a refused file queued (nothing of it was flushed: flushes come between files)."""
    writer.next_id = marks[0]
    for queue, mark in zip(_queues(writer), marks[1:], strict=True):
        del queue[mark:]


def _queues(w: BulkWriter) -> tuple[list[Any], ...]:
    return (w.sessions, w.events, w.grades, w.annotations, w.indexed, w.unindexed)


def _derived_uuid(fmt: str, trajectory: Trajectory) -> str:
    """A stable uuid for an entry carrying none of this project's: from its format and digest."""
    if not trajectory.key:
        raise ValueError(f"the {fmt} reader gave {trajectory.entry} neither a uuid nor a key")
    return hashlib.sha256(f"{fmt}\0{trajectory.key}".encode()).hexdigest()[:32]


def _grade_protocol(grade: TrajectoryGrade, chosen: str) -> str:
    """The protocol a session graded in its file ran under: its grade's, when upstream's or this
    project's; another harness's (`imported`), the import's own (the one it grades under)."""
    return grade.protocol if grade.protocol in PROTOCOLS else chosen


def _with_protocol(row: tuple[Any, ...], protocol: str) -> tuple[Any, ...]:
    from crmarena_tui.storage.bulk import SESSION_COLUMNS

    at = SESSION_COLUMNS.index("protocol")
    return row[:at] + (protocol,) + row[at + 1 :]


def _frozen(value: Any) -> Any:
    from crmarena_tui.storage.convert import dumps

    return dumps(value)


def _list(values: Iterable[str]) -> str:
    return ", ".join(sorted(values))
