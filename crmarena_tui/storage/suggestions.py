"""`Suggestions`: what model scanners read and proposed (schema 19, storage/schema_scans.py); the
`Store` owns one (`store.suggestions`) over the database it opened.

Suggestions are not labels: they live in their own table, each with its provenance (the scan, so
its model and prompt version), and nothing here writes `annotations`. A screen that honours
hidden-labels mode shows an annotator no suggestion of a session or step before their own label
on it is saved (`visible_to`).

The contract other parts build on:
- `start(...) -> Scan` opens a scan (or, with `resume=True`, returns the scan of that name and
  settings, to read what it has not read yet; `find(...)` names it without changing anything);
  `finish(scan_id)` stamps its end.
- `record(scan_id, session_id, Reading)` stores one session's reading and its suggestions in one
  transaction (`record_many` several in one). An `ok` reading is written once: a second `record` of the same session is
  ignored (returns False), so two workers or a resumed run never store a session twice. A
  `failed` reading is replaced by a later one.
- `read_sessions(scan_id)`: the sessions a scan has read (`ok`); a resume skips them.
- `of_session(session_id)`, `of_scan(scan_id)`: suggestions, oldest first, each carrying the
  model, prompt version, tokens, cost and seconds of the reading that made it (shared by the
  suggestions of one reading: sum costs over `readings`, never over suggestions).
- `visible_to(session_id, annotator, hidden_labels=...)` and `shown(...)` (on loaded events and
  labels): what an annotator may be shown.
- `scans()`, `scan(id)`, `named(name)`, `readings(scan_id)`, `totals(scan_id)`; `spend(...)`
  adds a whole-scan model call (a themes pass's) to the scan's own tokens and cost.
- Rubrics are in storage/rubrics.py, themes in storage/themes.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from crmarena_tui.storage.errors import NotFound
from crmarena_tui.storage.session_db import SessionDb
from crmarena_tui.storage.suggestion_models import SCAN_KINDS as SCAN_KINDS  # re-exported
from crmarena_tui.storage.suggestion_models import Proposal as Proposal
from crmarena_tui.storage.suggestion_models import Reading as Reading
from crmarena_tui.storage.suggestion_models import Scan as Scan
from crmarena_tui.storage.suggestion_models import ScanKind as ScanKind
from crmarena_tui.storage.suggestion_models import ScanTotals as ScanTotals
from crmarena_tui.storage.suggestion_models import Suggestion as Suggestion

if TYPE_CHECKING:
    from crmarena_tui.storage.models import Event


_SUGGESTION_SQL = (
    "SELECT g.id, g.scan_id, s.name, g.session_id, g.event_seq, g.label, g.answer, g.reason,"
    " s.model, s.prompt_version, r.tokens_in, r.tokens_out, r.cost, r.seconds, g.created_at"
    " FROM suggestions g JOIN scans s ON s.id = g.scan_id"
    " JOIN scan_readings r ON r.scan_id = g.scan_id AND r.session_id = g.session_id"
)


class Suggestions:
    """Scans, readings and suggestions in `db` (writes join a transaction the store has open)."""

    def __init__(self, db: SessionDb) -> None:
        self.db = db

    # -- scans -------------------------------------------------------------------------------

    def start(
        self,
        name: str,
        *,
        kind: ScanKind,
        model: str,
        prompt_version: str,
        selection: str = "",
        taxonomy: Sequence[str] = (),
        rubric: str | None = None,
        question: str | None = None,
        answer_schema: dict[str, Any] | None = None,
        resume: bool = True,
    ) -> Scan:
        """A new scan, or (with `resume`) the newest scan named `name` that asks the same thing
        of the same model with the same prompt version and selection (`find`), marked
        unfinished again (`finish` marks it finished once every session it selects is read):
        running a scan again reads only the sessions it has not read (new ones its selection
        finds, failed ones). A new name makes a new scan."""
        if kind not in SCAN_KINDS:
            raise ValueError(f"unknown scan kind {kind!r}; expected one of {SCAN_KINDS}")
        if not name.strip():
            raise ValueError("a scan needs a name")
        row = _scan_row(name, kind, model, prompt_version, selection, taxonomy, rubric, question,
                        answer_schema)  # fmt: skip
        with self.db.write() as conn:
            found = self._find(row) if resume else None
            if found is not None:  # (unfinished until every session of its selection is read)
                conn.execute("UPDATE scans SET finished_at = NULL WHERE id = ?", (found,))
                return self.scan(found)
            scan_id = self.db.insert("scans", {**row, "started_at": self.db.now()})
        return self.scan(scan_id)

    def find(
        self,
        name: str,
        *,
        kind: ScanKind,
        model: str,
        prompt_version: str,
        selection: str = "",
        taxonomy: Sequence[str] = (),
        rubric: str | None = None,
        question: str | None = None,
        answer_schema: dict[str, Any] | None = None,
    ) -> Scan | None:
        """The scan `start` would resume (None: it would make a new one); changes nothing."""
        row = _scan_row(name, kind, model, prompt_version, selection, taxonomy, rubric, question,
                        answer_schema)  # fmt: skip
        found = self._find(row)
        return None if found is None else self.scan(found)

    def _find(self, row: dict[str, Any]) -> int | None:
        found = self.db.tuples(
            "SELECT id FROM scans WHERE name = :name"
            " AND kind = :kind AND model = :model AND prompt_version = :prompt_version"
            " AND rubric IS :rubric AND question IS :question"
            " AND answer_schema IS :answer_schema AND taxonomy = :taxonomy"
            " AND selection = :selection ORDER BY id DESC LIMIT 1",
            row,
        )
        return int(found[0][0]) if found else None

    def finish(self, scan_id: int) -> None:
        with self.db.write() as conn:
            conn.execute("UPDATE scans SET finished_at = ? WHERE id = ?", (self.db.now(), scan_id))

    def spend(
        self, scan_id: int, tokens_in: int, tokens_out: int, cost: float | None, seconds: float
    ) -> None:
        """Add a model call made for the scan as a whole (a themes pass's) to its own totals."""
        with self.db.write() as conn:
            conn.execute(
                "UPDATE scans SET tokens_in = tokens_in + ?, tokens_out = tokens_out + ?,"
                " cost = CASE WHEN ? IS NULL THEN cost ELSE COALESCE(cost, 0) + ? END,"
                " seconds = seconds + ? WHERE id = ?",
                (tokens_in, tokens_out, cost, cost, seconds, scan_id),
            )

    def scan(self, scan_id: int) -> Scan:
        rows = self.db.rows("SELECT * FROM scans WHERE id = ?", (scan_id,))
        if not rows:
            raise NotFound(f"no scan {scan_id}")
        return _scan(rows[0])

    def named(self, name: str) -> list[Scan]:
        """The scans called `name`, oldest first."""
        rows = self.db.rows("SELECT * FROM scans WHERE name = ? ORDER BY id", (name,))
        return [_scan(r) for r in rows]

    def scans(self, kind: str | None = None) -> list[Scan]:
        """Every scan (of `kind`, when given), oldest first."""
        where, params = ("WHERE kind = ?", (kind,)) if kind else ("", ())
        return [_scan(r) for r in self.db.rows(f"SELECT * FROM scans {where} ORDER BY id", params)]

    # -- readings ----------------------------------------------------------------------------

    def record(self, scan_id: int, session_id: int, reading: Reading) -> bool:
        """Store `reading` of `session_id` and (when ok) its proposals as suggestions, in one
        transaction. False (nothing written) when the scan already read the session (`ok`)."""
        return bool(self.record_many(scan_id, [(session_id, reading)]))

    def record_many(self, scan_id: int, readings: Sequence[tuple[int, Reading]]) -> int:
        """`record` for several sessions in one transaction (a scan writes its readings in
        small batches); how many were written (a session already read `ok` is skipped)."""
        now = self.db.now()
        written = 0
        with self.db.write() as conn:
            for session_id, reading in readings:
                stored = conn.execute(  # (a reading stored `ok` stays: nothing written)
                    "INSERT INTO scan_readings (scan_id, session_id, status, tokens_in,"
                    " tokens_out, cost, seconds, attempts, error, read_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (scan_id, session_id)"
                    " DO UPDATE SET status = excluded.status, tokens_in = excluded.tokens_in,"
                    " tokens_out = excluded.tokens_out, cost = excluded.cost,"
                    " seconds = excluded.seconds, attempts = excluded.attempts,"
                    " error = excluded.error, read_at = excluded.read_at"
                    " WHERE scan_readings.status != 'ok'",
                    (
                        scan_id, session_id, reading.status, reading.tokens_in,
                        reading.tokens_out, reading.cost, reading.seconds, reading.attempts,
                        reading.error, now,
                    ),
                ).rowcount  # fmt: skip
                if not stored:
                    continue
                if reading.status == "ok":
                    conn.executemany(
                        "INSERT INTO suggestions (scan_id, session_id, event_seq, label, answer,"
                        " reason, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        [
                            (
                                scan_id,
                                session_id,
                                p.event_seq,
                                p.label,
                                None if p.answer is None else json.dumps(p.answer),
                                p.reason,
                                now,
                            )
                            for p in reading.proposals
                        ],
                    )
                written += 1
        return written

    def read_sessions(self, scan_id: int) -> set[int]:
        """The sessions `scan_id` has read successfully (a resumed scan skips them)."""
        rows = self.db.tuples(
            "SELECT session_id FROM scan_readings WHERE scan_id = ? AND status = 'ok'", (scan_id,)
        )
        return {int(r[0]) for r in rows}

    def readings(self, scan_id: int) -> list[dict[str, Any]]:
        """Every reading of a scan as a row (session_id, status, tokens_in, tokens_out, cost,
        seconds, attempts, error, read_at), by session."""
        return self.db.rows(
            "SELECT session_id, status, tokens_in, tokens_out, cost, seconds, attempts, error,"
            " read_at FROM scan_readings WHERE scan_id = ? ORDER BY session_id",
            (scan_id,),
        )

    def totals(self, scan_id: int) -> ScanTotals:
        (read, failed, tin, tout, cost, secs) = self.db.tuples(
            "SELECT COALESCE(SUM(status = 'ok'), 0), COALESCE(SUM(status = 'failed'), 0),"
            " COALESCE(SUM(tokens_in), 0), COALESCE(SUM(tokens_out), 0), SUM(cost),"
            " COALESCE(SUM(seconds), 0) FROM scan_readings WHERE scan_id = ?",
            (scan_id,),
        )[0]
        labels = dict(
            self.db.tuples(
                "SELECT label, COUNT(*) FROM suggestions WHERE scan_id = ? AND label != ''"
                " GROUP BY label ORDER BY COUNT(*) DESC, label",
                (scan_id,),
            )
        )
        (count,) = self.db.tuples("SELECT COUNT(*) FROM suggestions WHERE scan_id = ?", (scan_id,))[
            0
        ]
        return ScanTotals(
            int(read), int(failed), int(count), int(tin), int(tout), cost, secs, labels
        )

    # -- suggestions -------------------------------------------------------------------------

    def of_session(self, session_id: int, scan_id: int | None = None) -> list[Suggestion]:
        """The suggestions made about a session and its steps (by `scan_id` only, when given)."""
        sql = f"{_SUGGESTION_SQL} WHERE g.session_id = ?"
        params: tuple[Any, ...] = (session_id,)
        if scan_id is not None:
            sql, params = f"{sql} AND g.scan_id = ?", (*params, scan_id)
        return [_suggestion(r) for r in self.db.tuples(f"{sql} ORDER BY g.id", params)]

    def of_scan(self, scan_id: int) -> list[Suggestion]:
        """Every suggestion of a scan, by session then step."""
        rows = self.db.tuples(
            f"{_SUGGESTION_SQL} WHERE g.scan_id = ? ORDER BY g.session_id, g.id", (scan_id,)
        )
        return [_suggestion(r) for r in rows]

    def visible_to(
        self, session_id: int, annotator: str, *, hidden_labels: bool
    ) -> list[Suggestion]:
        """The suggestions about `session_id` an annotator may see (`shown`)."""
        found = self.of_session(session_id)
        if not hidden_labels or not found:
            return found
        from crmarena_tui.storage import convert

        events = [
            convert.event_from_row(r)
            for r in self.db.rows(
                "SELECT * FROM events WHERE session_id = ? ORDER BY seq", (session_id,)
            )
        ]
        labelled = [
            seq
            for (seq,) in self.db.tuples(
                "SELECT event_seq FROM annotations WHERE session_id = ? AND annotator = ?"
                " AND kind = 'label'",
                (session_id, annotator),
            )
        ]
        return shown(found, events, labelled, hidden_labels=True)


def shown(
    suggestions: Sequence[Suggestion],
    events: Sequence[Event],
    labelled: Iterable[int | None],
    *,
    hidden_labels: bool,
) -> list[Suggestion]:
    """The suggestions an annotator may see: all of them; in hidden-labels mode only those about
    a session or step the annotator has labelled (`labelled`: the `event_seq` of each of their
    labels, None for the session), so no suggestion is seen before one's own label. A suggestion
    about an event belongs to the step that holds it (storage/steps.py: a label goes on a step's
    anchor, a suggestion may point at its observation)."""
    if not hidden_labels:
        return list(suggestions)
    from crmarena_tui.storage.steps import group_steps

    anchor = {ev.seq: first.seq for first, evs in group_steps(events) for ev in evs}
    mine = set(labelled)
    return [
        s
        for s in suggestions
        if (None if s.event_seq is None else anchor.get(s.event_seq, s.event_seq)) in mine
    ]


def _scan_row(
    name: str,
    kind: str,
    model: str,
    prompt_version: str,
    selection: str,
    taxonomy: Sequence[str],
    rubric: str | None,
    question: str | None,
    answer_schema: dict[str, Any] | None,
) -> dict[str, Any]:
    return {
        "name": name,
        "kind": kind,
        "model": model,
        "prompt_version": prompt_version,
        "rubric": rubric,
        "question": question,
        "answer_schema": None if answer_schema is None else json.dumps(answer_schema),
        "taxonomy": json.dumps(list(taxonomy)),
        "selection": selection,
    }


def _scan(row: dict[str, Any]) -> Scan:
    schema = row["answer_schema"]
    return Scan(
        id=int(row["id"]),
        name=row["name"],
        kind=row["kind"],
        model=row["model"],
        prompt_version=row["prompt_version"],
        rubric=row["rubric"],
        question=row["question"],
        answer_schema=None if schema is None else json.loads(schema),
        taxonomy=tuple(json.loads(row["taxonomy"] or "[]")),
        selection=row["selection"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
        tokens_in=int(row["tokens_in"]),
        tokens_out=int(row["tokens_out"]),
        cost=row["cost"],
        seconds=float(row["seconds"]),
    )


def _suggestion(row: tuple[Any, ...]) -> Suggestion:
    (sid, scan_id, name, session, seq, label, answer, reason, model, version, tin, tout) = row[:12]
    cost, seconds, created = row[12:]
    return Suggestion(
        id=int(sid),
        scan_id=int(scan_id),
        scan_name=name,
        session_id=int(session),
        event_seq=seq,
        label=label,
        answer=None if answer is None else json.loads(answer),
        reason=reason,
        model=model,
        prompt_version=version,
        tokens_in=int(tin),
        tokens_out=int(tout),
        cost=cost,
        seconds=float(seconds),
        created_at=created,
    )
