"""`sessions merge`, continued (storage/merge.py): the scanners' and review queues' tables
(schemas 19-21) carried into the output, their ids remapped, after the sessions.

What is the same row in two databases (so merging again adds nothing):
- a rubric: its name (the output's rubric of that name is kept);
- a scan: its name, kind, model, prompt version, selection and start time; a reading: its scan
  and session (the output's reading is kept; one the output lacks comes with its suggestions);
  a suggestion: its scan, session, step, label, answer and reason; a theme: its scan and name;
- a review queue: its name and creation time (a queue of that name made elsewhere is left out and
  reported); an item: its queue and position; an assignment: its item and annotator (a review
  finished in either copy is finished: finishing is one-way); a decision: its item, annotator,
  decision, label and time.
Rows about a session the output does not hold (a conflict left out) are not carried. A suggestion,
annotation or scan a row names is mapped to the output's; one it cannot find becomes NULL.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Any

SCAN_KEY = ("name", "kind", "model", "prompt_version", "selection", "started_at")
SUGGESTION_KEY = ("event_seq", "label", "answer", "reason")
NOTE_KEY = ("event_seq", "kind", "label", "note", "annotator", "created_at")


@dataclass
class Carried:
    """What the merge added of these tables, and the review queues it left out (name clash)."""

    scans: int = 0
    readings: int = 0
    suggestions: int = 0
    rubrics: int = 0
    themes: int = 0
    queues: int = 0
    decisions: int = 0
    queues_left_out: list[str] = field(default_factory=list)

    def added(self) -> int:
        """How many rows of these tables the merge added (themes' members and items aside)."""
        return (
            self.scans + self.readings + self.suggestions + self.rubrics + self.themes
            + self.queues + self.decisions
        )  # fmt: skip


def _insert(conn: sqlite3.Connection, table: str, row: dict[str, Any]) -> int:
    cursor = conn.execute(
        f"INSERT INTO {table} ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
        tuple(row.values()),
    )
    return int(cursor.lastrowid or 0)


def _one(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> int | None:
    found = conn.execute(sql, params).fetchone()
    return None if found is None else int(found[0])


def _where(key: tuple[str, ...]) -> str:
    return " AND ".join(f"{name} IS ?" for name in key)


class _Source:
    """One input's ids mapped to the output's."""

    def __init__(self, out: sqlite3.Connection, src: sqlite3.Connection) -> None:
        self.out, self.src = out, src
        mine = dict(out.execute("SELECT uuid, id FROM sessions"))
        self.sessions: dict[int, int] = {
            sid: mine[uuid] for sid, uuid in src.execute("SELECT id, uuid FROM sessions")
            if uuid in mine
        }  # fmt: skip
        self.scans: dict[int, int] = {}
        self.suggestions: dict[int, int] = {}
        self.items: dict[int, int] = {}

    def annotation(self, annotation_id: int | None) -> int | None:
        if annotation_id is None:
            return None
        row = self.src.execute(
            f"SELECT session_id, {', '.join(NOTE_KEY)} FROM annotations WHERE id = ?",
            (annotation_id,),
        ).fetchone()
        if row is None or row[0] not in self.sessions:
            return None
        return _one(
            self.out,
            f"SELECT id FROM annotations WHERE session_id = ? AND {_where(NOTE_KEY)}",
            (self.sessions[row[0]], *tuple(row)[1:]),
        )


def carry(out: sqlite3.Connection, sources: list[sqlite3.Connection]) -> Carried:
    """Carry every source's scans, rubrics, themes and review queues into `out`."""
    done = Carried()
    for src in sources:
        job = _Source(out, src)
        _rubrics(job, done)
        _scans(job, done)
        _themes(job, done)
        _queues(job, done)
    return done


def _rubrics(job: _Source, done: Carried) -> None:
    for row in job.src.execute("SELECT * FROM rubrics ORDER BY name"):
        values = dict(row)
        if _one(job.out, "SELECT 1 FROM rubrics WHERE name = ?", (values["name"],)) is None:
            _insert(job.out, "rubrics", values)
            done.rubrics += 1


def _scans(job: _Source, done: Carried) -> None:
    for row in job.src.execute("SELECT * FROM scans ORDER BY id"):
        values = dict(row)
        old = values.pop("id")
        new = _one(
            job.out,
            f"SELECT id FROM scans WHERE {_where(SCAN_KEY)} ORDER BY id",
            tuple(values[k] for k in SCAN_KEY),
        )
        if new is None:
            new = _insert(job.out, "scans", values)
            done.scans += 1
        job.scans[old] = new
        _readings(job, old, new, done)


def _readings(job: _Source, old: int, new: int, done: Carried) -> None:
    for row in job.src.execute("SELECT * FROM scan_readings WHERE scan_id = ?", (old,)):
        values = dict(row)
        session = job.sessions.get(values["session_id"])
        if session is None:
            continue
        have = "SELECT 1 FROM scan_readings WHERE scan_id = ? AND session_id = ?"
        if _one(job.out, have, (new, session)) is None:
            _insert(job.out, "scan_readings", {**values, "scan_id": new, "session_id": session})
            done.readings += 1
        for suggestion in job.src.execute(
            "SELECT * FROM suggestions WHERE scan_id = ? AND session_id = ? ORDER BY id",
            (old, values["session_id"]),
        ):
            found = dict(suggestion)
            mapped = _one(
                job.out,
                "SELECT id FROM suggestions WHERE scan_id = ? AND session_id = ? AND "
                f"{_where(SUGGESTION_KEY)} ORDER BY id",
                (new, session, *(found[k] for k in SUGGESTION_KEY)),
            )
            if mapped is None:
                del found["id"]
                mapped = _insert(
                    job.out, "suggestions", {**found, "scan_id": new, "session_id": session}
                )
                done.suggestions += 1
            job.suggestions[int(suggestion["id"])] = mapped


def _themes(job: _Source, done: Carried) -> None:
    for row in job.src.execute("SELECT * FROM themes ORDER BY id"):
        values = dict(row)
        scan = job.scans.get(values["scan_id"])
        if scan is None:
            continue
        theme = _one(
            job.out, "SELECT id FROM themes WHERE scan_id = ? AND name = ?", (scan, values["name"])
        )
        if theme is None:
            theme = _insert(
                job.out,
                "themes",
                {"scan_id": scan, "name": values["name"], "description": values["description"]},
            )
            done.themes += 1
        for member in job.src.execute(
            "SELECT * FROM theme_members WHERE theme_id = ?", (values["id"],)
        ):
            found = dict(member)
            session = job.sessions.get(found["session_id"])
            source_id = (
                job.suggestions.get(found["source_id"])
                if found["source"] == "suggestion"
                else job.annotation(found["source_id"])
            )
            if session is None or source_id is None:
                continue
            job.out.execute(
                "INSERT OR IGNORE INTO theme_members (theme_id, source, source_id, session_id,"
                " event_seq, text) VALUES (?, ?, ?, ?, ?, ?)",
                (theme, found["source"], source_id, session, found["event_seq"], found["text"]),
            )


def _queues(job: _Source, done: Carried) -> None:
    for row in job.src.execute("SELECT * FROM review_queues ORDER BY id"):
        values = dict(row)
        old = values.pop("id")
        same = job.out.execute(
            "SELECT id, created_at FROM review_queues WHERE name = ?", (values["name"],)
        ).fetchone()
        if same is not None and same[1] != values["created_at"]:
            if values["name"] not in done.queues_left_out:
                done.queues_left_out.append(values["name"])
            continue
        if same is None:
            scan = values["scan_id"]
            queue = _insert(
                job.out, "review_queues", {**values, "scan_id": job.scans.get(scan, None)}
            )
            done.queues += 1
        else:
            queue = int(same[0])
        _items(job, old, queue)
        _decisions(job, old, done)


def _items(job: _Source, old: int, queue: int) -> None:
    for row in job.src.execute("SELECT * FROM review_items WHERE queue_id = ?", (old,)):
        values = dict(row)
        session = job.sessions.get(values["session_id"])
        if session is None:
            continue
        item = _one(
            job.out,
            "SELECT id FROM review_items WHERE queue_id = ? AND position = ?",
            (queue, values["position"]),
        )
        if item is None:
            suggestion = values["suggestion_id"]
            item = _insert(
                job.out,
                "review_items",
                {
                    "queue_id": queue,
                    "position": values["position"],
                    "session_id": session,
                    "event_seq": values["event_seq"],
                    "suggestion_id": None
                    if suggestion is None
                    else job.suggestions.get(suggestion),
                },
            )
        job.items[int(values["id"])] = item
        for taken in job.src.execute(
            "SELECT annotator, assigned_at, done_at FROM review_assignments WHERE item_id = ?",
            (values["id"],),
        ):
            who, assigned, finished = tuple(taken)
            job.out.execute(
                "INSERT INTO review_assignments (item_id, annotator, assigned_at, done_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (item_id, annotator) DO UPDATE SET"
                " done_at = COALESCE(done_at, excluded.done_at)",
                (item, who, assigned, finished),
            )


def _decisions(job: _Source, old: int, done: Carried) -> None:
    for row in job.src.execute(
        "SELECT d.* FROM review_decisions d JOIN review_items i ON i.id = d.item_id"
        " WHERE i.queue_id = ? ORDER BY d.id",
        (old,),
    ):
        values = dict(row)
        item = job.items.get(values["item_id"])
        if item is None:
            continue
        key = (item, values["annotator"], values["decision"], values["label"], values["created_at"])
        if (
            _one(
                job.out,
                "SELECT id FROM review_decisions WHERE item_id = ? AND annotator = ? AND"
                " decision = ? AND label = ? AND created_at = ?",
                key,
            )
            is not None
        ):
            continue
        suggestion = values["suggestion_id"]
        _insert(
            job.out,
            "review_decisions",
            {
                "item_id": item,
                "annotator": values["annotator"],
                "decision": values["decision"],
                "label": values["label"],
                "suggestion_id": None if suggestion is None else job.suggestions.get(suggestion),
                "annotation_id": job.annotation(values["annotation_id"]),
                "created_at": values["created_at"],
            },
        )
        done.decisions += 1
