"""`sessions merge`: several sessions databases into one, by session uuid.

The rule: a session (one uuid) is copied into the output once. Participants are matched by
kind, name, model and settings (a human by name), studies by their uuid, a fork's parent by its
uuid. Two copies of one session are the same when their status, events and grades are equal;
copies that differ (a laptop went on working on a copy, or regraded it) are a conflict: listed by
uuid and left out (a copy already in the output stays as it was), never overwritten. Annotations
are the one thing merged inside a session: labels and notes found on any copy are added to it.
Scans, their readings and suggestions, rubrics, themes and review queues come after, their ids
remapped (storage/merge_scans.py). Merging the same files again adds nothing.

With a preference (`sessions merge --prefer first|newest|ask`) a conflict among the inputs keeps
one copy instead: the copy of the first input that holds the session, the copy whose last event or
grade is newest, or the one the user picks (`ask`). The resolution is reported by uuid, naming the
file kept. A copy already in the output is never changed, so a conflict with it keeps it.

Inputs are opened read-only, after `Store` has brought them to the current schema (a database
from before schema 6 is given its session uuids then, once). The output is written in one
transaction: a failure leaves it as it was. The copied events are indexed for search in that
transaction, their text computed in Python from the stored payloads (`search_text.index_stored`)
rather than by the index's trigger, whose SQL reads each payload some fifteen times.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from crmarena_tui.settings.sqlite_readonly import open_readonly
from crmarena_tui.storage.convert import loads
from crmarena_tui.storage.errors import StorageError
from crmarena_tui.storage.merge_scans import Carried, carry
from crmarena_tui.storage.search_index import untriggered, write_in_bulk
from crmarena_tui.storage.search_text import index_stored
from crmarena_tui.storage.store import Store

Digest = tuple[str, str, str]  # (status, events, grades)
PARTS = ("status", "events", "grade")
GRADE_FIELDS = (
    "answer, parsed_answer, reward, metrics, grader, grader_version, judge_model, judge_raw,"
    " extraction, imported, graded_at, protocol"
)
NOTE_FIELDS = ("event_seq", "kind", "label", "note", "annotator", "created_at")


@dataclass(frozen=True, slots=True)
class Conflict:
    uuid: str
    where: tuple[str, ...]  # the databases whose copies differ
    reason: str  # which parts differ, or why the session could not be carried


Prefer = Literal["first", "newest", "ask"]


@dataclass(frozen=True, slots=True)
class Copy:
    """One input's copy of a conflicting session, as `--prefer ask` shows it."""

    source: str
    status: str
    events: int
    last: str  # the newest event or grade time ("" when none has one)
    reward: float | None


@dataclass(frozen=True, slots=True)
class Resolved:
    uuid: str
    kept: str  # the database whose copy was kept
    dropped: tuple[str, ...]
    why: str  # "first", "newest", "chosen", "already in the output"


Chooser = Callable[[str, list[Copy]], int | None]  # the index kept, or None to leave it out


@dataclass
class MergeResult:
    out: Path
    inputs: int
    added: int = 0
    present: int = 0
    annotations: int = 0
    studies: list[str] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    resolved: list[Resolved] = field(default_factory=list)
    carried: Carried = field(default_factory=Carried)  # scans, rubrics, review queues

    def lines(self) -> list[str]:
        head = (
            f"Merged {self.inputs} database(s) into {self.out}: {self.added} session(s) added, "
            f"{self.present} already present, {len(self.conflicts)} conflict(s)"
            + (f", {len(self.resolved)} resolved." if self.resolved else ".")
        )
        out = [head]
        if not (self.added or self.annotations or self.studies or self.carried.added()):
            out.append(f"Nothing new: {self.out} already holds every session these files share.")
        if self.annotations:
            out.append(f"{self.annotations} label(s) or note(s) added to sessions.")
        if self.studies:
            out.append(f"Studies added: {', '.join(self.studies)}.")
        c = self.carried
        if c.added():
            out.append(
                f"Scanners: {c.scans} scan(s), {c.readings} reading(s), {c.suggestions}"
                f" suggestion(s), {c.rubrics} rubric(s), {c.themes} theme(s) added; review:"
                f" {c.queues} queue(s), {c.decisions} decision(s) added."
            )
        if c.queues_left_out:
            out.append(
                "Review queues left out (the output has another queue of that name): "
                + ", ".join(c.queues_left_out)
            )
        if self.resolved:
            out.append(f"{len(self.resolved)} conflict(s) resolved, one copy kept:")
            out.extend(
                f"  {r.uuid}  kept {r.kept} ({r.why}); not {', '.join(r.dropped)}"
                for r in self.resolved
            )
        if self.conflicts:
            out.append("Conflicts (left out; no copy was overwritten):")
            out.extend(f"  {c.uuid}  {' vs '.join(c.where)}: {c.reason}" for c in self.conflicts)
        return out


def _digests(conn: sqlite3.Connection) -> dict[str, tuple[int, Digest]]:
    """uuid -> (session id, digest of its status, events and grades)."""
    hashes: dict[tuple[str, int], Any] = {}
    for table, sql in (
        ("events", "SELECT session_id, seq, ts, actor, kind, payload, duration_ms FROM events"),
        ("grades", f"SELECT session_id, {GRADE_FIELDS} FROM grades"),
    ):
        for row in conn.execute(
            f"{sql} ORDER BY session_id, {'seq' if table == 'events' else 'id'}"
        ):
            hashes.setdefault((table, row[0]), hashlib.sha256()).update(
                repr(tuple(row)[1:]).encode()
            )

    def hexed(table: str, sid: int) -> str:
        found = hashes.get((table, sid))
        return found.hexdigest() if found is not None else ""

    return {
        uuid: (sid, (repr((status, ended, active)), hexed("events", sid), hexed("grades", sid)))
        for sid, uuid, status, ended, active in conn.execute(
            "SELECT id, uuid, status, ended_at, active_seconds FROM sessions"
        )
    }


def _differs(a: Digest, b: Digest) -> str:
    return ", ".join(name for name, x, y in zip(PARTS, a, b, strict=True) if x != y)


def _copy(source: str, conn: sqlite3.Connection, sid: int) -> Copy:
    (status,) = conn.execute("SELECT status FROM sessions WHERE id = ?", (sid,)).fetchone()
    events, last_event = conn.execute(
        "SELECT COUNT(*), MAX(ts) FROM events WHERE session_id = ?", (sid,)
    ).fetchone()
    last_grade, reward = conn.execute(
        "SELECT graded_at, reward FROM grades WHERE session_id = ? ORDER BY id DESC LIMIT 1",
        (sid,),
    ).fetchone() or (None, None)
    last = max(str(t) for t in (last_event, last_grade, "") if t is not None)
    return Copy(source, status, int(events), last, reward)


def _read_only(path: Path) -> sqlite3.Connection:
    conn = open_readonly(path)
    conn.row_factory = sqlite3.Row
    return conn


class _Merge:
    def __init__(self, target: Store, conn: sqlite3.Connection, names: list[str]) -> None:
        self.target, self.conn, self.names = target, conn, names
        self.people: dict[tuple[int, int], int] = {}
        self.studies: dict[tuple[int, int], int | None] = {}
        self.columns = [r[1] for r in conn.execute("PRAGMA table_info(sessions)") if r[1] != "id"]

    def carry_studies(self, i: int, src: sqlite3.Connection, result: MergeResult) -> None:
        """Map the source's studies to the output's by uuid, adding the missing ones; None for
        one whose name the output gives to another study."""
        for study in src.execute("SELECT * FROM studies ORDER BY id"):
            mine = self.conn.execute(
                "SELECT id, uuid FROM studies WHERE uuid = ? OR name = ?",
                (study["uuid"], study["name"]),
            ).fetchall()
            same = [row[0] for row in mine if row[1] == study["uuid"]]
            if same:
                self.studies[(i, study["id"])] = same[0]
                if study["status"] == "closed":  # closing is one-way: a closed copy wins
                    self.conn.execute("UPDATE studies SET status = 'closed' WHERE id = ?", same)
                continue
            if mine:
                self.studies[(i, study["id"])] = None
                continue
            values = dict(study)
            del values["id"]
            cursor = self.conn.execute(
                f"INSERT INTO studies ({', '.join(values)}) VALUES"
                f" ({', '.join('?' * len(values))})",
                tuple(values.values()),
            )
            new = int(cursor.lastrowid or 0)
            self.studies[(i, study["id"])] = new
            result.studies.append(study["name"])
            for table in ("study_participants", "study_assignments"):
                rows = src.execute(f"SELECT * FROM {table} WHERE study_id = ?", (study["id"],))
                for row in rows:
                    data = {**dict(row), "study_id": new}
                    self.conn.execute(
                        f"INSERT INTO {table} ({', '.join(data)}) VALUES"
                        f" ({', '.join('?' * len(data))})",
                        tuple(data.values()),
                    )

    def person(self, i: int, src: sqlite3.Connection, participant_id: int) -> int:
        key = (i, participant_id)
        if key not in self.people:
            row = src.execute(
                "SELECT * FROM participants WHERE id = ?", (participant_id,)
            ).fetchone()
            who = self.target.participant(
                row["kind"], row["name"], row["model"] or None, loads(row["settings"], {})
            )
            self.people[key] = who.id
        return self.people[key]

    def copy_session(self, i: int, src: sqlite3.Connection, sid: int) -> str | None:
        """Copy one session with its events and grades; None, or why it cannot be carried."""
        row = src.execute("SELECT * FROM sessions WHERE id = ?", (sid,)).fetchone()
        values = {name: row[name] for name in self.columns}
        if row["study_id"] is not None:
            study = self.studies.get((i, row["study_id"]))
            if study is None:
                name = src.execute("SELECT name FROM studies WHERE id = ?", (row["study_id"],))
                return f"its study {name.fetchone()[0]!r} is not the output's study of that name"
            values["study_id"] = study
        if row["parent_session_id"] is not None:
            parent = src.execute(
                "SELECT uuid FROM sessions WHERE id = ?", (row["parent_session_id"],)
            ).fetchone()[0]
            found = self.conn.execute("SELECT id FROM sessions WHERE uuid = ?", (parent,))
            mapped = found.fetchone()
            if mapped is None:
                return f"its parent session {parent} was left out"
            values["parent_session_id"] = mapped[0]
        values["participant_id"] = self.person(i, src, row["participant_id"])
        cursor = self.conn.execute(
            f"INSERT INTO sessions ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
            tuple(values.values()),
        )
        new = int(cursor.lastrowid or 0)
        events = [
            (new, *tuple(e))
            for e in src.execute(
                "SELECT seq, ts, actor, kind, payload, duration_ms FROM events"
                " WHERE session_id = ? ORDER BY seq",
                (sid,),
            )
        ]
        self.conn.executemany(
            "INSERT INTO events (session_id, seq, ts, actor, kind, payload, duration_ms)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            events,
        )
        index_stored(self.conn, new, [(e[1], e[3], e[4], e[5]) for e in events])
        self.conn.executemany(
            f"INSERT INTO grades (session_id, {GRADE_FIELDS}) VALUES (?{', ?' * 12})",
            [
                (new, *tuple(g))
                for g in src.execute(
                    f"SELECT {GRADE_FIELDS} FROM grades WHERE session_id = ? ORDER BY id", (sid,)
                )
            ],
        )
        return None

    def add_notes(self, src: sqlite3.Connection, sid: int, uuid: str) -> int:
        """Add the source copy's labels and notes the output's copy lacks; how many."""
        (target_id,) = self.conn.execute(
            "SELECT id FROM sessions WHERE uuid = ?", (uuid,)
        ).fetchone()
        fields = ", ".join(NOTE_FIELDS)
        have = set(
            self.conn.execute(
                f"SELECT {fields} FROM annotations WHERE session_id = ?", (target_id,)
            )
        )
        new = [
            tuple(r)
            for r in src.execute(
                f"SELECT {fields} FROM annotations WHERE session_id = ? ORDER BY id", (sid,)
            )
            if tuple(r) not in have
        ]
        self.conn.executemany(
            f"INSERT INTO annotations (session_id, {fields}) VALUES (?{', ?' * len(NOTE_FIELDS)})",
            [(target_id, *r) for r in dict.fromkeys(new)],
        )
        return len(dict.fromkeys(new))


def merge_databases(
    inputs: Sequence[Path],
    out: Path,
    *,
    prefer: Prefer | None = None,
    choose: Chooser | None = None,
) -> MergeResult:
    """Merge `inputs` into `out` (created if missing). See the module's docstring for the rule;
    `choose` picks a copy for `prefer="ask"`."""
    if prefer == "ask" and choose is None:
        raise StorageError("--prefer ask needs someone to ask")
    out = Path(out)
    for path in inputs:
        if not Path(path).is_file():
            raise StorageError(f"no such sessions database: {path}")
        if out.exists() and Path(path).resolve() == out.resolve():
            raise StorageError(f"--out {out} is also an input: write the merge to a new file")
    for path in inputs:
        with Store(path) as store:  # validated and brought to the current schema
            store.check_damage()
    names = [str(p) for p in inputs]
    sources = [_read_only(Path(p)) for p in inputs]
    result = MergeResult(out, len(inputs))
    try:
        with Store(out) as target, target.in_bulk(), target.transaction() as conn:
            target.check_damage()
            write_in_bulk(conn)  # (the events' index in 16 MB batches)
            with untriggered(conn):  # (indexed by `copy_session`, the text computed in Python)
                _merge(target, conn, sources, names, result, prefer, choose)
    finally:
        for src in sources:
            src.close()
    return result


def _merge(
    target: Store,
    conn: sqlite3.Connection,
    sources: list[sqlite3.Connection],
    names: list[str],
    result: MergeResult,
    prefer: Prefer | None = None,
    choose: Chooser | None = None,
) -> None:
    job = _Merge(target, conn, names)
    present = _digests(conn)
    copies: dict[str, list[tuple[int, int, Digest]]] = {}
    for i, src in enumerate(sources):
        job.carry_studies(i, src, result)
        for uuid, (sid, digest) in _digests(src).items():
            copies.setdefault(uuid, []).append((i, sid, digest))
    to_add: list[tuple[int, int, str]] = []
    for uuid, found in copies.items():
        if uuid in present:
            base = present[uuid][1]
            odd = [c for c in found if c[2] != base]
            if odd and prefer is not None:  # the output's copy is never changed: it is kept
                dropped = tuple(dict.fromkeys(names[c[0]] for c in odd))
                result.resolved.append(
                    Resolved(uuid, str(target.path), dropped, "already in the output")
                )
            elif odd:
                where = (str(target.path), *(names[c[0]] for c in odd))
                result.conflicts.append(Conflict(uuid, where, _differs(base, odd[0][2])))
            else:
                result.present += 1
            continue
        if len({c[2] for c in found}) > 1:
            kept = _prefer(uuid, found, sources, names, prefer, choose)
            if kept is None:
                odd = [c for c in found if c[2] != found[0][2]]
                where = (names[found[0][0]], *(names[c[0]] for c in odd))
                result.conflicts.append(Conflict(uuid, where, _differs(found[0][2], odd[0][2])))
                continue
            pick, why = kept
            others = tuple(dict.fromkeys(names[c[0]] for c in found if c[2] != found[pick][2]))
            result.resolved.append(Resolved(uuid, names[found[pick][0]], others, why))
            to_add.append((found[pick][0], found[pick][1], uuid))
            continue
        to_add.append((found[0][0], found[0][1], uuid))
    for i, sid, uuid in sorted(to_add):
        problem = job.copy_session(i, sources[i], sid)
        if problem:
            result.conflicts.append(Conflict(uuid, (names[i],), problem))
        else:
            result.added += 1
    carried = {uuid for uuid in present} | {u for _i, _s, u in to_add}
    left_out = {c.uuid for c in result.conflicts}
    for uuid, found in copies.items():
        if uuid in carried and uuid not in left_out:
            for i, sid, _digest in found:
                result.annotations += job.add_notes(sources[i], sid, uuid)
    result.carried = carry(conn, sources)  # storage/merge_scans.py


def _prefer(
    uuid: str,
    found: list[tuple[int, int, Digest]],
    sources: list[sqlite3.Connection],
    names: list[str],
    prefer: Prefer | None,
    choose: Chooser | None,
) -> tuple[int, str] | None:
    """Which of a session's differing copies to keep (its index in `found`, and why), or None."""
    if prefer is None:
        return None
    if prefer == "first":  # `found` is in input order
        return 0, "first"
    copies = [_copy(names[i], sources[i], sid) for i, sid, _digest in found]
    if prefer == "newest":
        newest = max(range(len(copies)), key=lambda k: (copies[k].last, copies[k].events, -k))
        return newest, "newest"
    assert choose is not None
    picked = choose(uuid, copies)
    return None if picked is None else (picked, "chosen")
