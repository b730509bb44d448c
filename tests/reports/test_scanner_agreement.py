"""The scanners' agreement with people (issue 41, item 3): precision, recall and Cohen's kappa per
label against each annotator and the majority, equal to figures worked by hand on 20 sessions.

The table (label "wrong object", W; every session 1-20 read by the scan):

    scanner says W on 1-8.
    ann reviewed 1-20, W on 1-6, 9, 10.
    bob reviewed 1-10, W on 1, 2, 3, 7, 9.
    cy  reviewed 1-10, W on 1, 2, 4, 9, 10 (notes on 3, 5, 6, 7, 8: reviewed, no W).

ann, 20 sessions: tp {1-6} 6, fp {7, 8} 2, fn {9, 10} 2, tn {11-20} 10.
    precision 6/8 = 0.75, recall 6/8 = 0.75; p_o = 16/20 = 0.8; yes rates 0.4 and 0.4:
    p_e = 0.4*0.4 + 0.6*0.6 = 0.52; kappa = (0.8 - 0.52) / 0.48 = 0.5833.
bob, 10 sessions: tp {1, 2, 3, 7} 4, fp {4, 5, 6, 8} 4, fn {9} 1, tn {10} 1.
    precision 4/8 = 0.5, recall 4/5 = 0.8; p_o = 5/10 = 0.5; yes rates 0.8 and 0.5:
    p_e = 0.8*0.5 + 0.2*0.5 = 0.5; kappa = 0.
cy, 10 sessions: tp {1, 2, 4} 3, fp {3, 5, 6, 7, 8} 5, fn {9, 10} 2, tn 0.
    precision 3/8 = 0.375, recall 3/5 = 0.6; p_o = 0.3; p_e = 0.8*0.5 + 0.2*0.5 = 0.5;
    kappa = (0.3 - 0.5) / 0.5 = -0.4.
majority, over 1-10 (three reviewers each; W when two or three gave it):
    1 yyy y, 2 yyy y, 3 yyn y, 4 yny y, 5 ynn n, 6 ynn n, 7 nyn n, 8 nnn n, 9 yyy y, 10 yny y
    -> W on {1, 2, 3, 4, 9, 10}; tp {1-4} 4, fp {5-8} 4, fn {9, 10} 2, tn 0.
    precision 4/8 = 0.5, recall 4/6 = 0.6667; p_o = 0.4; yes rates 0.8 and 0.6:
    p_e = 0.8*0.6 + 0.2*0.4 = 0.56; kappa = (0.4 - 0.56) / 0.44 = -0.3636.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from statsmodels.stats.inter_rater import cohens_kappa

from crmarena_tui.reports.scanner_agreement import MAJORITY, agreement_rows, scanner_agreement
from crmarena_tui.storage import Store
from crmarena_tui.storage.reviews import ItemSpec, ReviewQueues
from tests.support.review_support import seed_scanned

W, G = "wrong object", "gave up"
SESSIONS = set(range(1, 21))


def _table() -> tuple[dict, dict, dict]:
    scanner = {s: {W} for s in range(1, 9)} | {20: {G}}
    people = {
        "ann": {s: {W} for s in [*range(1, 7), 9, 10]},
        "bob": {s: {W} for s in (1, 2, 3, 7, 9)},
        "cy": {s: {W} for s in (1, 2, 4, 9, 10)},
    }
    people["ann"][20] = {G}
    reviewed = {"ann": set(SESSIONS), "bob": set(range(1, 11)), "cy": set(range(1, 11))}
    return scanner, people, reviewed


def test_figures_equal_the_hand_worked_ones() -> None:
    scanner, people, reviewed = _table()
    rows = agreement_rows("s1", scanner, SESSIONS, people, reviewed, order=(W, G))
    got = {
        (r["label"], r["against"]): (
            r["sessions"], r["tp"], r["fp"], r["fn"], r["tn"],
            r["precision"], r["recall"], r["kappa"],
        )
        for r in rows
    }  # fmt: skip
    assert got[(W, "ann")] == (20, 6, 2, 2, 10, 0.75, 0.75, 0.5833)
    assert got[(W, "bob")] == (10, 4, 4, 1, 1, 0.5, 0.8, 0.0)
    assert got[(W, "cy")] == (10, 3, 5, 2, 0, 0.375, 0.6, -0.4)
    assert got[(W, MAJORITY)] == (10, 4, 4, 2, 0, 0.5, 0.6667, -0.3636)
    # "gave up": only session 20, which scanner and ann agree on; bob and cy never saw it
    assert got[(G, "ann")] == (20, 1, 0, 0, 19, 1.0, 1.0, 1.0)
    assert got[(G, "bob")] == (10, 0, 0, 0, 10, None, None, None)  # kappa undefined: p_e = 1
    assert [r["label"] for r in rows] == [W] * 4 + [G] * 4  # the taxonomy's order
    assert all(r["warning"] is None for r in rows)


@pytest.mark.parametrize("who", ["ann", "bob", "cy", MAJORITY])
def test_kappa_equals_statsmodels(who: str) -> None:
    """The oracle: statsmodels' Cohen's kappa on the 2x2 table of the same counts."""
    scanner, people, reviewed = _table()
    row = next(
        r for r in agreement_rows("s1", scanner, SESSIONS, people, reviewed)
        if r["label"] == W and r["against"] == who
    )  # fmt: skip
    table = [[row["tp"], row["fp"]], [row["fn"], row["tn"]]]
    assert row["kappa"] == pytest.approx(cohens_kappa(table).kappa, abs=1e-4)


def test_only_sessions_the_scan_read_count() -> None:
    scanner, people, reviewed = _table()
    rows = agreement_rows("s1", scanner, set(range(1, 11)), people, reviewed)
    ann = next(r for r in rows if r["label"] == W and r["against"] == "ann")
    assert (ann["sessions"], ann["tn"]) == (10, 0)  # 11-20 were not read: not compared
    few = agreement_rows("s1", scanner, {1, 2, 3}, people, reviewed)
    assert all(r["warning"] for r in few)  # under five sessions: said to be unreliable


def test_an_accepted_suggestion_is_not_a_persons_reading(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    ids = seed_scanned(db)
    with Store(db) as store:
        queues = ReviewQueues(store)
        (suggestion,) = store.suggestions.of_session(ids["c_agent"])
        queue = queues.create("q", [ItemSpec(ids["c_agent"], None, suggestion.id)])
        item = queues.next_for(queue.id, "dan")
        assert item is not None
        queues.decide(item, "dan", "accept", "gave up")  # dan's only label: the scanner's
        store.annotations.add(ids["d_agent"], "", "clean", "eve", kind="note")
        rows = scanner_agreement(store, store.annotations.find(kind=None))
    assert "dan" not in {r["against"] for r in rows}
    eve = [r for r in rows if r["against"] == "eve"]
    # eve reviewed session 8 (a note), where neither she nor the scanner said a label: each
    # label's row against her is one true negative
    assert eve and all((r["sessions"], r["tn"], r["kappa"]) == (1, 1, None) for r in eve)
    ann = {r["label"]: r for r in rows if r["against"] == "ann"}
    # ann reviewed sessions 1, 2, 4, 5, 9; the scan read 1, 4, 6, 8: compared on 1 and 4
    assert ann["gave up"]["sessions"] == 2 and ann["gave up"]["fn"] == 1  # ann's on session 1
    assert ann["wrong field"]["fp"] == 1  # the scanner's on session 4, ann's label was another
    assert {r["model"] for r in rows} == {"scripted/m"}


def test_a_rejected_suggestion_is_the_annotators_no() -> None:
    """Rejections (hand-worked, on the table above):

    dan rejected W on 7 and 8 (the scanner's W) and left no label or note: compared for W on
    7, 8: fp 2; precision 0/2 = 0, recall undefined; p_o = 0, yes rates 1 and 0: p_e = 0,
    kappa 0. No row of G against dan: a rejection of W says nothing of G.
    bob rejected W on 11 (the scanner says no W there): compared for W on 1-11: tp 4, fp 4,
    fn 1, tn 2; p_o = 6/11, yes rates 8/11 and 5/11: p_e = 58/121, kappa = 8/63 = 0.127.
    cy rejected W on 1 but gave W there: her W stands (10, 3, 5, 2, 0 as before).
    majority for W over 1-11: 7 (ann n, bob y, cy n, dan n) and 8 (all n) stay no, 11 (ann n,
    bob n) is a tn: tp 4, fp 4, fn 2, tn 1; p_o = 5/11, yes rates 8/11 and 6/11:
    p_e = 63/121, kappa = -8/58 = -0.1379.
    """
    scanner, people, reviewed = _table()
    rejected = {"dan": {W: {7, 8}}, "bob": {W: {11}}, "cy": {W: {1}}}
    rows = agreement_rows("s1", scanner, SESSIONS, people, reviewed, (W, G), rejected)
    got = {
        (r["label"], r["against"]): (
            r["sessions"], r["tp"], r["fp"], r["fn"], r["tn"],
            r["precision"], r["recall"], r["kappa"],
        )
        for r in rows
    }  # fmt: skip
    assert got[(W, "dan")] == (2, 0, 2, 0, 0, 0.0, None, 0.0)
    assert (G, "dan") not in got
    assert got[(W, "bob")] == (11, 4, 4, 1, 2, 0.5, 0.8, 0.127)
    assert got[(G, "bob")] == (10, 0, 0, 0, 10, None, None, None)  # G: as before
    assert got[(W, "cy")] == (10, 3, 5, 2, 0, 0.375, 0.6, -0.4)
    assert got[(W, MAJORITY)] == (11, 4, 4, 2, 1, 0.5, 0.6667, -0.1379)
    assert got[(W, "ann")] == (20, 6, 2, 2, 10, 0.75, 0.75, 0.5833)


def test_a_rejection_in_the_review_queue_counts_against_the_scanner(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    ids = seed_scanned(db)
    with Store(db) as store:
        queues = ReviewQueues(store)
        (suggestion,) = store.suggestions.of_session(ids["c_agent"])
        queue = queues.create("q", [ItemSpec(ids["c_agent"], None, suggestion.id)])
        item = queues.next_for(queue.id, "fay")
        assert item is not None
        queues.decide(item, "fay", "reject")  # fay's only reading: "not gave up" there
        rows = scanner_agreement(store, store.annotations.find(kind=None))
    fay = [r for r in rows if r["against"] == "fay"]
    assert [(r["label"], r["sessions"], r["tp"], r["fp"]) for r in fay] == [("gave up", 1, 0, 1)]
    assert fay[0]["precision"] == 0.0
