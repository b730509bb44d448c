"""Review queues (issue 41, item 4; schema 20): who takes which item, N reviews per item,
progress per person and overall, and labels that keep their origin."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from crmarena_tui.storage import Store
from crmarena_tui.storage.errors import NotFound
from crmarena_tui.storage.reviews import ItemSpec, ReviewQueues
from crmarena_tui.storage.suggestions import Proposal, Reading
from tests.support.app_trajectory_support import seed


@pytest.fixture
def store(tmp_path: Path):
    seed(tmp_path / "sessions.db")
    with Store(tmp_path / "sessions.db") as opened:
        yield opened


def _queue(store: Store, n_items: int = 4, reviews: int = 2, **kw):
    queues = ReviewQueues(store)
    return queues, queues.create(
        "q", [ItemSpec(sid) for sid in range(1, n_items + 1)], reviews=reviews, **kw
    )


def test_each_item_goes_to_n_different_people_in_order(store: Store) -> None:
    queues, q = _queue(store, n_items=3, reviews=2)
    take = {who: queues.next_for(q.id, who) for who in ("ann", "bob", "cy")}
    positions = {who: item.position for who, item in take.items() if item}
    assert positions == {"ann": 1, "bob": 1, "cy": 2}  # item 1 has its two people: cy gets 2
    # an annotator who has not finished keeps being handed the same item
    assert queues.next_for(q.id, "ann") == take["ann"]
    queues.decide(take["ann"], "ann", "label", "gave up")  # type: ignore[arg-type]
    second = queues.next_for(q.id, "ann")
    assert second is not None and second.position == 2  # cy has item 2 open: one place left
    queues.decide(second, "ann", "label", "wrong field")
    third = queues.next_for(q.id, "ann")
    assert third is not None and third.position == 3
    queues.decide(third, "ann", "label", "other")
    assert queues.next_for(q.id, "ann") is None  # never the same item twice
    dan = queues.next_for(q.id, "dan")
    assert dan is not None and dan.position == 3  # 1 and 2 are full (taken twice each)


def test_progress_per_person_and_overall(store: Store) -> None:
    queues, q = _queue(store, n_items=3, reviews=2)
    for who in ("ann", "bob"):
        item = queues.next_for(q.id, who)
        assert item is not None
        queues.decide(item, who, "note", note="looked")  # a note does not finish a review
        queues.decide(item, who, "label", "gave up")
    item = queues.next_for(q.id, "ann")
    assert item is not None and item.position == 2  # taken, open
    progress = queues.progress(q.id)
    assert progress.people == {"ann": (2, 1), "bob": (1, 1)}
    assert (progress.items, progress.complete) == (3, 1)
    assert (progress.reviews_done, progress.reviews_needed) == (2, 6)
    assert progress.rows()[-1] == {
        "annotator": "(all)",
        "taken": 3,
        "reviewed": 2,
        "open": 1,
        "items": 3,
        "items_complete": 1,
        "reviews_needed": 6,
    }
    assert queues.release(q.id, "ann") == 1  # ann's open item goes back to the queue
    assert queues.progress(q.id).people["ann"] == (1, 1)


def test_two_annotators_at_once_never_share_an_items_last_place(store: Store) -> None:
    """Each thread opens its own store (as two app processes do) and takes items until none
    is left: every item is taken by exactly `reviews` people."""
    path = store.path
    queues, q = _queue(store, n_items=9, reviews=2)
    taken: dict[str, list[int]] = {}

    def work(who: str) -> None:
        with Store(path) as own:
            mine, queue = ReviewQueues(own), []
            while (item := mine.next_for(q.id, who)) is not None:
                queue.append(item.position)
                mine.decide(item, who, "label", "other")
            taken[who] = queue

    threads = [threading.Thread(target=work, args=(w,)) for w in ("ann", "bob", "cy")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    counts = [sum(p in positions for positions in taken.values()) for p in range(1, 10)]
    assert counts == [2] * 9
    assert queues.progress(q.id).complete == 9


def scanned(store: Store) -> tuple[int, list[int]]:
    """A labels scan that suggested "gave up" at step 1 of session 3 and "other" on session 5:
    (its id, the suggestions' ids)."""
    scan = store.suggestions.start("s1", kind="labels", model="scripted", prompt_version="1")
    store.suggestions.record(scan.id, 3, Reading([Proposal("gave up", 1, "stopped early")]))
    store.suggestions.record(scan.id, 5, Reading([Proposal("other", None, "odd")]))
    return scan.id, [s.id for s in store.suggestions.of_scan(scan.id)]


def test_an_accepted_suggestion_becomes_a_label_that_keeps_its_origin(store: Store) -> None:
    queues = ReviewQueues(store)
    scan_id, (s1, s2) = scanned(store)
    q = queues.create(
        "s", [ItemSpec(3, 1, suggestion_id=s1), ItemSpec(5, None, suggestion_id=s2)],
        level="suggestion", scan_id=scan_id,
    )  # fmt: skip
    first = queues.next_for(q.id, "ann")
    assert first is not None
    with pytest.raises(ValueError, match="not one bob has taken"):
        queues.decide(first, "bob", "accept", "gave up")
    label_id = queues.decide(first, "ann", "accept", "gave up")
    assert label_id is not None
    (label,) = store.annotations.find(session_id=3, annotator="ann")
    assert (label.id, label.label, label.event_seq) == (label_id, "gave up", 1)
    assert queues.origin(label_id) == {
        "queue": "s",
        "item": 1,
        "decision": "accept",
        "suggestion_id": s1,
    }
    assert queues.accepted_annotations() == {label_id}
    second = queues.next_for(q.id, "ann")
    assert second is not None and queues.decide(second, "ann", "reject") is None
    assert store.annotations.find(session_id=5, annotator="ann") == []  # a refusal: no label
    assert queues.progress(q.id).complete == 2
    own = queues.create("plain", [ItemSpec(1)])
    item = queues.next_for(own.id, "ann")
    assert item is not None
    with pytest.raises(ValueError, match="no suggestion"):
        queues.decide(item, "ann", "reject")
    mine = queues.decide(item, "ann", "label", "other")
    assert mine is not None and queues.origin(mine)["decision"] == "label"  # type: ignore[index]


def test_a_queue_is_refused_without_items_a_name_or_twice(store: Store) -> None:
    queues, _ = _queue(store)
    with pytest.raises(ValueError, match="exists already"):
        queues.create("q", [ItemSpec(1)])
    with pytest.raises(ValueError, match="selection found nothing"):
        queues.create("r", [])
    with pytest.raises(ValueError, match="1 or more"):
        queues.create("r", [ItemSpec(1)], reviews=0)
    with pytest.raises(NotFound, match="review list"):
        queues.queue("nope")
