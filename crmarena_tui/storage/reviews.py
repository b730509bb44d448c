"""`ReviewQueues`: review queues (schema 20, storage/schema_reviews.py) over a `Store`.

A queue holds items in order: sessions, steps, or a scan's suggestions (each at its session or
step). Each item is to be reviewed by `reviews` different people. The rules:

- **Taking an item.** `next_for(queue, annotator)` hands the annotator the first item they have
  taken and not finished; else it takes for them the first item (by position) they have not
  taken that fewer than `reviews` people have taken (finished or not). Taking is one write
  transaction, so two annotators asking at once never both take an item's last place.
- **Finishing it.** A `label`, `accept` or `reject` decision finishes the annotator's review of
  the item (`done_at`); a `note` does not. A decision needs the item taken by that annotator.
- **Labels keep their origin.** `label` and `accept` write an annotation (the project's labels,
  storage/session_annotations.py) signed by the annotator on the item's session or step, and
  the decision row names it with the suggestion the item asked about: `origin(annotation_id)`.
  An `accept` is the suggestion's label taken as it is; a `label` is the annotator's own.
- **Releasing.** `release(queue, annotator)` gives back the items an annotator took and has not
  finished, `release_stale(queue, before)` everyone's taken before a time: others may take
  them (their notes stay; a note does not finish a review).
- **Progress.** `progress(queue)`: per annotator, items taken and finished; overall, items
  with all their reviews, and reviews done of those needed (items x reviews).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from crmarena_tui.storage.errors import NotFound

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store

Level = Literal["session", "step", "suggestion"]
LEVELS: tuple[str, ...] = ("session", "step", "suggestion")
Decision = Literal["label", "accept", "reject", "note"]
FINISHING = ("label", "accept", "reject")


@dataclass(frozen=True, slots=True)
class Queue:
    id: int
    name: str
    level: str
    reviews: int
    blind: bool
    scan_id: int | None
    selection: str
    created_at: str


@dataclass(frozen=True, slots=True)
class ItemSpec:
    """An item to put in a queue: a session, a step (`event_seq`), and the suggestion asked."""

    session_id: int
    event_seq: int | None = None
    suggestion_id: int | None = None


@dataclass(frozen=True, slots=True)
class Item:
    id: int
    queue_id: int
    position: int
    session_id: int
    event_seq: int | None
    suggestion_id: int | None


@dataclass(frozen=True, slots=True)
class Progress:
    """A queue's progress: `people` {annotator: (taken, finished)}; `items`, `complete` (items
    with all their reviews), `reviews_done` and `reviews_needed` (items x reviews)."""

    items: int
    complete: int
    reviews_done: int
    reviews_needed: int
    people: dict[str, tuple[int, int]]

    def rows(self) -> list[dict[str, Any]]:
        """One row per annotator, then an `(all)` row."""
        found = [
            {"annotator": who, "taken": taken, "reviewed": done, "open": taken - done}
            for who, (taken, done) in sorted(self.people.items())
        ]
        return found + [
            {
                "annotator": "(all)",
                "taken": sum(t for t, _ in self.people.values()),
                "reviewed": self.reviews_done,
                "open": sum(t - d for t, d in self.people.values()),
                "items": self.items,
                "items_complete": self.complete,
                "reviews_needed": self.reviews_needed,
            }
        ]


_ITEM = "SELECT id, queue_id, position, session_id, event_seq, suggestion_id FROM review_items"


class ReviewQueues:
    """The review queues of `store`'s database (writes join a transaction the store has open)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.db = store.db

    # -- queues ------------------------------------------------------------------------------

    def create(
        self,
        name: str,
        items: Sequence[ItemSpec],
        *,
        level: Level = "session",
        reviews: int = 1,
        blind: bool = False,
        scan_id: int | None = None,
        selection: str = "",
    ) -> Queue:
        """A new queue of `items` in order (`ValueError`: a name taken, no items, bad numbers)."""
        if not name.strip():
            raise ValueError("a queue needs a name")
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}; expected one of {', '.join(LEVELS)}")
        if reviews < 1:
            raise ValueError(f"--reviews must be 1 or more, not {reviews}")
        if not items:
            raise ValueError("no items: the selection found nothing to review")
        with self.db.write() as conn:
            if conn.execute("SELECT 1 FROM review_queues WHERE name = ?", (name,)).fetchone():
                raise ValueError(f"a review queue named {name!r} exists already")
            queue_id = self.db.insert(
                "review_queues",
                {
                    "name": name,
                    "level": level,
                    "reviews": reviews,
                    "blind": int(blind),
                    "scan_id": scan_id,
                    "selection": selection,
                    "created_at": self.db.now(),
                },
            )
            conn.executemany(
                "INSERT INTO review_items (queue_id, position, session_id, event_seq,"
                " suggestion_id) VALUES (?, ?, ?, ?, ?)",
                [
                    (queue_id, n, i.session_id, i.event_seq, i.suggestion_id)
                    for n, i in enumerate(items, 1)
                ],
            )
        return self.queue(name)

    def queue(self, name: str) -> Queue:
        rows = self.db.rows("SELECT * FROM review_queues WHERE name = ?", (name,))
        if not rows:
            raise NotFound(f"no review queue named {name!r} (see crmarena-tui review list)")
        return _queue(rows[0])

    def queues(self) -> list[Queue]:
        return [_queue(r) for r in self.db.rows("SELECT * FROM review_queues ORDER BY id")]

    # -- items -------------------------------------------------------------------------------

    def items(self, queue_id: int) -> list[Item]:
        rows = self.db.tuples(f"{_ITEM} WHERE queue_id = ? ORDER BY position", (queue_id,))
        return [Item(*r) for r in rows]

    def item(self, item_id: int) -> Item:
        rows = self.db.tuples(f"{_ITEM} WHERE id = ?", (item_id,))
        if not rows:
            raise NotFound(f"no review item {item_id}")
        return Item(*rows[0])

    def mine(self, queue_id: int, annotator: str) -> list[tuple[Item, bool]]:
        """The items `annotator` has taken, in the order taken, each with whether finished."""
        rows = self.db.tuples(
            "SELECT i.id, i.queue_id, i.position, i.session_id, i.event_seq, i.suggestion_id,"
            " a.done_at IS NOT NULL FROM review_items i JOIN review_assignments a"
            " ON a.item_id = i.id WHERE i.queue_id = ? AND a.annotator = ?"
            " ORDER BY a.assigned_at, a.rowid",
            (queue_id, annotator),
        )
        return [(Item(*r[:6]), bool(r[6])) for r in rows]

    def next_for(self, queue_id: int, annotator: str) -> Item | None:
        """The annotator's first open item, else a new one taken for them (module's rules);
        None when the queue has nothing left for them."""
        _need_name(annotator)
        with self.db.write() as conn:
            found = conn.execute(
                "SELECT i.id FROM review_items i JOIN review_assignments a ON a.item_id = i.id"
                " WHERE i.queue_id = ? AND a.annotator = ? AND a.done_at IS NULL"
                " ORDER BY a.assigned_at, a.rowid LIMIT 1",
                (queue_id, annotator),
            ).fetchone()
            if found is None:
                return self.take_new(queue_id, annotator)
        return self.item(int(found[0]))

    def take_new(self, queue_id: int, annotator: str) -> Item | None:
        """Take for the annotator the first item they have not taken that has a place left
        (fewer than `reviews` people); None when there is none."""
        _need_name(annotator)
        with self.db.write() as conn:
            found = conn.execute(
                "SELECT i.id FROM review_items i JOIN review_queues q ON q.id = i.queue_id"
                " WHERE i.queue_id = ? AND NOT EXISTS (SELECT 1 FROM review_assignments a"
                "  WHERE a.item_id = i.id AND a.annotator = ?)"
                " AND (SELECT COUNT(*) FROM review_assignments a WHERE a.item_id = i.id)"
                "  < q.reviews ORDER BY i.position LIMIT 1",
                (queue_id, annotator),
            ).fetchone()
            if found is None:
                return None
            conn.execute(
                "INSERT INTO review_assignments (item_id, annotator, assigned_at) VALUES (?, ?, ?)",
                (found[0], annotator, self.db.now()),
            )
        return self.item(int(found[0]))

    def release(self, queue_id: int, annotator: str) -> int:
        """Give back the items `annotator` took and has not finished (others may take them);
        how many."""
        with self.db.write() as conn:
            return conn.execute(
                "DELETE FROM review_assignments WHERE annotator = ? AND done_at IS NULL"
                " AND item_id IN (SELECT id FROM review_items WHERE queue_id = ?)",
                (annotator, queue_id),
            ).rowcount

    def release_stale(self, queue_id: int, taken_before: str) -> dict[str, int]:
        """Give back every annotator's unfinished items taken before `taken_before` (ISO time,
        as rows store it); {annotator: how many}, for those who had any."""
        with self.db.write() as conn:
            rows = conn.execute(
                "SELECT a.annotator, COUNT(*) FROM review_assignments a JOIN review_items i"
                " ON i.id = a.item_id WHERE i.queue_id = ? AND a.done_at IS NULL"
                " AND a.assigned_at < ? GROUP BY a.annotator ORDER BY a.annotator",
                (queue_id, taken_before),
            ).fetchall()
            conn.execute(
                "DELETE FROM review_assignments WHERE done_at IS NULL AND assigned_at < ?"
                " AND item_id IN (SELECT id FROM review_items WHERE queue_id = ?)",
                (taken_before, queue_id),
            )
        return {str(who): int(n) for who, n in rows}

    # -- decisions ---------------------------------------------------------------------------

    def decide(
        self, item: Item, annotator: str, decision: Decision, label: str = "", note: str = ""
    ) -> int | None:
        """Record `decision` on `item` by `annotator` (module's rules); the annotation written
        (a label or a note), None for a `reject`."""
        _need_name(annotator)
        if decision not in ("label", "accept", "reject", "note"):
            raise ValueError(f"unknown decision {decision!r}")
        if decision in ("label", "accept") and not label.strip():
            raise ValueError("a label needs a name")
        if decision in ("accept", "reject") and item.suggestion_id is None:
            raise ValueError("this item has no suggestion to accept or reject")
        with self.db.write() as conn:
            if not conn.execute(
                "SELECT 1 FROM review_assignments WHERE item_id = ? AND annotator = ?",
                (item.id, annotator),
            ).fetchone():
                raise ValueError(f"item {item.position} is not one {annotator} has taken")
            annotation_id = None
            if decision != "reject":
                kind = "note" if decision == "note" else "label"
                annotation_id = self.store.annotations.add(
                    item.session_id, label, note, annotator, item.event_seq, kind=kind
                ).id
            self.db.insert(
                "review_decisions",
                {
                    "item_id": item.id,
                    "annotator": annotator,
                    "decision": decision,
                    "label": label if decision in ("label", "accept") else "",
                    "suggestion_id": item.suggestion_id,
                    "annotation_id": annotation_id,
                    "created_at": self.db.now(),
                },
            )
            if decision in FINISHING:
                conn.execute(
                    "UPDATE review_assignments SET done_at = ? WHERE item_id = ? AND"
                    " annotator = ? AND done_at IS NULL",
                    (self.db.now(), item.id, annotator),
                )
        return annotation_id

    def decisions(self, item_id: int, annotator: str | None = None) -> list[dict[str, Any]]:
        """The decisions on an item (by `annotator`, when given), oldest first."""
        sql, params = "SELECT * FROM review_decisions WHERE item_id = ?", (item_id,)
        if annotator is not None:
            sql, params = f"{sql} AND annotator = ?", (item_id, annotator)  # type: ignore[assignment]
        return self.db.rows(f"{sql} ORDER BY id", params)

    def origin(self, annotation_id: int) -> dict[str, Any] | None:
        """Where a label came from when a review wrote it: {queue, item, decision,
        suggestion_id}; None for a label written elsewhere."""
        rows = self.db.rows(
            "SELECT q.name AS queue, i.position AS item, d.decision, d.suggestion_id"
            " FROM review_decisions d JOIN review_items i ON i.id = d.item_id"
            " JOIN review_queues q ON q.id = i.queue_id WHERE d.annotation_id = ?",
            (annotation_id,),
        )
        return rows[0] if rows else None

    def accepted_annotations(self) -> set[int]:
        """The labels that are suggestions accepted as they were (not a person's own reading)."""
        rows = self.db.tuples(
            "SELECT annotation_id FROM review_decisions WHERE decision = 'accept'"
            " AND annotation_id IS NOT NULL"
        )
        return {int(r[0]) for r in rows}

    def rejections(self) -> dict[str, dict[str, set[int]]]:
        """Each annotator's rejected suggestions of a label: annotator -> label -> sessions
        (their reading "not this label" there: reports/scanner_agreement.py)."""
        rows = self.db.tuples(
            "SELECT d.annotator, g.label, g.session_id FROM review_decisions d"
            " JOIN suggestions g ON g.id = d.suggestion_id"
            " WHERE d.decision = 'reject' AND g.label != ''"
        )
        found: dict[str, dict[str, set[int]]] = {}
        for who, label, session_id in rows:
            found.setdefault(str(who), {}).setdefault(str(label), set()).add(int(session_id))
        return found

    # -- progress ----------------------------------------------------------------------------

    def progress(self, queue_id: int) -> Progress:
        queue = self.db.rows("SELECT reviews FROM review_queues WHERE id = ?", (queue_id,))
        if not queue:
            raise NotFound(f"no review queue {queue_id}")
        reviews = int(queue[0]["reviews"])
        people: dict[str, tuple[int, int]] = {
            str(who): (int(taken), int(done))
            for who, taken, done in self.db.tuples(
                "SELECT a.annotator, COUNT(*), COALESCE(SUM(a.done_at IS NOT NULL), 0)"
                " FROM review_assignments a JOIN review_items i ON i.id = a.item_id"
                " WHERE i.queue_id = ? GROUP BY a.annotator",
                (queue_id,),
            )
        }
        (items, complete) = self.db.tuples(
            "SELECT COUNT(*), COALESCE(SUM(done >= ?), 0) FROM (SELECT i.id,"
            " (SELECT COUNT(*) FROM review_assignments a WHERE a.item_id = i.id"
            "  AND a.done_at IS NOT NULL) AS done FROM review_items i WHERE i.queue_id = ?)",
            (reviews, queue_id),
        )[0]
        done = sum(d for _, d in people.values())
        return Progress(int(items), int(complete), done, int(items) * reviews, people)


def _need_name(annotator: str) -> None:
    if not annotator.strip():
        raise ValueError("a review needs the annotator's name (--as NAME)")


def _queue(row: dict[str, Any]) -> Queue:
    return Queue(
        id=int(row["id"]),
        name=row["name"],
        level=row["level"],
        reviews=int(row["reviews"]),
        blind=bool(row["blind"]),
        scan_id=row["scan_id"],
        selection=row["selection"],
        created_at=row["created_at"],
    )
