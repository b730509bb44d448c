"""`sessions merge` carries the scanners' and review queues' tables (storage/merge_scans.py):
scans, readings, suggestions, rubrics, themes, queues, assignments and decisions, their ids
remapped to the output's sessions, suggestions and labels; merging again adds nothing."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from crmarena_tui.storage import Store, rubrics
from crmarena_tui.storage.merge import merge_databases
from crmarena_tui.storage.reviews import ItemSpec, ReviewQueues
from crmarena_tui.storage.suggestions import Proposal, Reading
from tests.support.scan_support import failed_sessions

TABLES = ("scans", "scan_readings", "suggestions", "rubrics", "themes", "theme_members",
          "review_queues", "review_items", "review_assignments", "review_decisions")  # fmt: skip


def _scanned(path: Path, sessions: int, scan: str) -> None:
    """`sessions` failed sessions, a labels scan `scan` that proposed `wrong object` at each
    one's query, a rubric, a theme, and a queue of the suggestions where ann accepted the first
    and bob took the second."""
    with Store(path) as store:
        ids = failed_sessions(store, sessions)
        run = store.suggestions.start(scan, kind="labels", model="scripted/m", prompt_version="1")
        for sid in ids:
            proposal = Proposal("wrong object", 2, f"It queried Case in session {sid}.")
            store.suggestions.record(run.id, sid, Reading([proposal], 100, 10, 0.01))
        rubrics.save(store, rubrics.Rubric(f"rubric-{scan}", "Blamed the user?", {}))
        first = store.suggestions.of_session(ids[0])[0]
        with store.transaction() as conn:
            theme = conn.execute(
                "INSERT INTO themes (scan_id, name) VALUES (?, 'Wrong object')", (run.id,)
            ).lastrowid
            conn.execute(
                "INSERT INTO theme_members VALUES (?, 'suggestion', ?, ?, 2, 'It queried Case.')",
                (theme, first.id, ids[0]),
            )
        queues = ReviewQueues(store)
        items = [
            ItemSpec(s.session_id, s.event_seq, s.id) for s in store.suggestions.of_scan(run.id)
        ]
        queue = queues.create(f"q-{scan}", items, level="suggestion", scan_id=run.id)
        taken = queues.next_for(queue.id, "ann")
        assert taken is not None
        queues.decide(taken, "ann", "accept", "wrong object")
        queues.next_for(queue.id, "bob")


def _counts(path: Path) -> dict[str, int]:
    with closing(sqlite3.connect(path)) as conn:
        return {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in TABLES}


def test_merge_carries_scans_and_review_queues_with_ids_remapped(tmp_path: Path) -> None:
    a, b, out = tmp_path / "a.db", tmp_path / "b.db", tmp_path / "out.db"
    _scanned(a, 3, "s-a")
    _scanned(b, 2, "s-b")
    result = merge_databases([b, a], out)  # (b's sessions first: a's ids all move)
    assert result.added == 5 and not result.conflicts
    assert (result.carried.scans, result.carried.readings, result.carried.suggestions) == (2, 5, 5)
    assert (result.carried.queues, result.carried.decisions) == (2, 2)
    assert "Scanners: 2 scan(s), 5 reading(s), 5 suggestion(s)" in "\n".join(result.lines())
    with Store(a) as store:
        uuids = dict(store.read("SELECT id, uuid FROM sessions"))
    with Store(out) as store:
        by_uuid = {u: i for i, u in store.read("SELECT id, uuid FROM sessions")}
        (scan,) = store.suggestions.named("s-a")
        found = store.suggestions.of_scan(scan.id)
        assert [(s.session_id, s.event_seq, s.reason) for s in found] == [
            (by_uuid[uuids[sid]], 2, f"It queried Case in session {sid}.") for sid in (1, 2, 3)
        ]  # each suggestion on a's session as the output numbers it
        queues = ReviewQueues(store)
        queue = queues.queue("q-s-a")
        assert queue.scan_id == scan.id
        items = queues.items(queue.id)
        assert [i.suggestion_id for i in items] == [s.id for s in found]
        assert [i.session_id for i in items] == [s.session_id for s in found]
        (decision,) = queues.decisions(items[0].id)
        label = store.annotations.find(kind=None)
        assert [(x.id, x.label, x.annotator) for x in label if x.session_id == items[0].session_id] \
            == [(decision["annotation_id"], "wrong object", "ann")]  # fmt: skip
        assert queues.origin(decision["annotation_id"])["queue"] == "q-s-a"
        assert queues.progress(queue.id).people == {"ann": (1, 1), "bob": (1, 0)}
        (member,) = store.read("SELECT source_id, session_id FROM theme_members m JOIN themes t"
                               " ON t.id = m.theme_id WHERE t.scan_id = ?", (scan.id,))  # fmt: skip
        assert member == (found[0].id, found[0].session_id)
        assert {r.name for r in rubrics.saved(store)} == {"rubric-s-a", "rubric-s-b"}
    before = _counts(out)
    again = merge_databases([a, b], out)
    assert _counts(out) == before  # merging again adds nothing
    assert again.carried.readings == again.carried.decisions == 0
    assert "Nothing new" in "\n".join(again.lines())


def test_a_finished_review_in_either_copy_is_finished_and_a_clashing_queue_left_out(
    tmp_path: Path,
) -> None:
    a, later, other, out = (tmp_path / n for n in ("a.db", "later.db", "other.db", "out.db"))
    _scanned(a, 2, "s")
    merge_databases([a], out)
    with closing(sqlite3.connect(a)) as src, closing(sqlite3.connect(later)) as copy:
        src.backup(copy)
    with Store(later) as store:  # bob finishes his item in a copy
        queues = ReviewQueues(store)
        queue = queues.queue("q-s").id
        item = queues.next_for(queue, "bob")
        assert item is not None
        queues.decide(item, "bob", "reject")
    _scanned(other, 1, "s")  # another queue named q-s, made elsewhere
    result = merge_databases([later, other], out)
    assert result.carried.queues_left_out == ["q-s"]
    assert "Review queues left out (the output has another queue of that name): q-s" in (
        "\n".join(result.lines())
    )
    with Store(out) as store:
        queues = ReviewQueues(store)
        assert queues.progress(queues.queue("q-s").id).people == {"ann": (1, 1), "bob": (1, 1)}
