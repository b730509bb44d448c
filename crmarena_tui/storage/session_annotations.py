"""`SessionAnnotations`: the labels and notes on sessions and their steps, each signed by its
annotator; the `Store` owns one (`store.annotations`) over the database it opened.

An annotation is a `label` (from the failure taxonomy, with an optional note) or a `note` (free
text, empty label). Labels are what label counts and annotator agreement read; notes are shown
beside them but never counted. `find()` returns labels unless asked for another kind.
"""

from __future__ import annotations

import sqlite3

from crmarena_tui.storage import convert
from crmarena_tui.storage.errors import NotFound
from crmarena_tui.storage.models import Annotation
from crmarena_tui.storage.session_db import SessionDb

ANNOTATION_KINDS = ("label", "note")


class SessionAnnotations:
    """Labels and notes in `db` (writes join a transaction the store has open)."""

    def __init__(self, db: SessionDb) -> None:
        self.db = db

    def add(
        self,
        session_id: int,
        label: str,
        note: str = "",
        annotator: str = "",
        event_seq: int | None = None,
        *,
        kind: str = "label",
    ) -> Annotation:
        """Label a session (or one of its events) on behalf of `annotator`; with `kind="note"`,
        write a free note instead (`label` is then ignored and stored empty)."""
        if not annotator:
            raise ValueError("an annotation needs an annotator name")
        if kind not in ANNOTATION_KINDS:
            raise ValueError(f"unknown annotation kind {kind!r}; expected label or note")
        if kind == "note" and not note.strip():
            raise ValueError("a note needs some text")
        row = {
            "session_id": session_id,
            "event_seq": event_seq,
            "kind": kind,
            "label": label if kind == "label" else "",
            "note": note or "",
            "annotator": annotator,
            "created_at": self.db.now(),
        }
        with self.db.write():
            try:
                annotation_id = self.db.insert("annotations", row)
            except sqlite3.IntegrityError as exc:
                target = (
                    f"event {event_seq} of session {session_id}"
                    if event_seq
                    else f"session {session_id}"
                )
                raise NotFound(f"cannot annotate {target}: it does not exist") from exc
        rows = self.db.rows("SELECT * FROM annotations WHERE id = ?", (annotation_id,))
        return convert.annotation_from_row(rows[0])

    def label_many(
        self,
        targets: list[tuple[int, int | None]],
        label: str,
        annotator: str,
        note: str = "",
    ) -> int:
        """Give `label` (as `add` does, signed by `annotator`) to each target, a (session,
        event seq) or (session, None) for the whole session, in one transaction; a target the
        annotator already gave that label is left as it is. Returns how many labels were added."""
        if not annotator:
            raise ValueError("an annotation needs an annotator name")
        if not label.strip():
            raise ValueError("a label needs a name")
        now = self.db.now()
        added = 0
        with self.db.write() as conn:
            have = {
                (sid, seq)
                for sid, seq in conn.execute(
                    "SELECT session_id, event_seq FROM annotations"
                    " WHERE kind = 'label' AND label = ? AND annotator = ?",
                    (label, annotator),
                )
            }
            rows = [
                (sid, seq, "label", label, note, annotator, now)
                for sid, seq in dict.fromkeys(targets)
                if (sid, seq) not in have
            ]
            conn.executemany(
                "INSERT INTO annotations (session_id, event_seq, kind, label, note, annotator,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            added = len(rows)
        return added

    def unlabel_many(
        self, targets: list[tuple[int, int | None]], label: str, annotator: str
    ) -> int:
        """Remove `label` given by `annotator` from each target (as `label_many` names them), in
        one transaction; returns how many labels were removed."""
        removed = 0
        with self.db.write() as conn:
            for sid, seq in dict.fromkeys(targets):
                removed += conn.execute(
                    "DELETE FROM annotations WHERE kind = 'label' AND label = ? AND annotator = ?"
                    " AND session_id = ? AND event_seq IS ?",
                    (label, annotator, sid, seq),
                ).rowcount
        return removed

    def find(
        self,
        session_id: int | None = None,
        annotator: str | None = None,
        *,
        kind: str | None = "label",
    ) -> list[Annotation]:
        """Annotations in the order they were made: labels by default, notes with
        `kind="note"`, both with `kind=None`."""
        clauses, params = [], []
        for column, value in (("session_id", session_id), ("annotator", annotator), ("kind", kind)):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self.db.rows(f"SELECT * FROM annotations{where} ORDER BY id", tuple(params))
        return [convert.annotation_from_row(r) for r in rows]

    def remove(self, annotation_id: int) -> None:
        with self.db.write() as conn:
            conn.execute("DELETE FROM annotations WHERE id = ?", (annotation_id,))
