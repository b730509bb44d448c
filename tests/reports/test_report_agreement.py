"""Agreement a methods reviewer accepts: "no label" as a category, agreement on whether there is
a failure, Fleiss' kappa when the pairs of annotators change, a warning under 5 shared items."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.reports.agreement import FEW_ITEMS, agreement, fleiss_agreements
from crmarena_tui.reports.summary import build_report
from crmarena_tui.storage import Store
from tests.reports.test_report import attempt


@pytest.fixture
def store(tmp_path: Path) -> Store:
    with Store(tmp_path / "a.db") as s:
        yield s


def sessions(store: Store, n: int) -> list[int]:
    bot = store.participant("agent", "gpt/react", model="gpt")
    return [attempt(store, bot, "handle_time", i, 0.0) for i in range(1, n + 1)]


def two_reviewers(store: Store) -> list[int]:
    """A and B both review five sessions; a note marks a session reviewed without a label."""
    ids = sessions(store, 5)
    for who, labels in (
        ("A", {0: "wrong_filter", 1: "gave_up"}),
        ("B", {0: "wrong_filter", 2: "gave_up"}),
    ):
        for i, sid in enumerate(ids):
            if i in labels:
                store.annotations.add(sid, labels[i], annotator=who)
            else:
                store.annotations.add(sid, "", "looked: no failure", annotator=who, kind="note")
    return ids


def test_no_label_as_a_category(store: Store) -> None:
    two_reviewers(store)
    notes = store.annotations.find(kind=None)
    both = agreement(notes, "A", "B", "session")
    assert (both.items, both.observed, both.kappa) == (1, 1.0, None)  # only session 1
    assert both.row()["warning"] == FEW_ITEMS
    # pairs (wf, wf) (gave_up, none) (none, gave_up) (none, none) (none, none): p_o 0.6,
    # marginals 1/1/3 each: p_e = 11/25, kappa = (0.6 - 0.44) / 0.56
    open_ = agreement(notes, "A", "B", "session", no_label_as_category=True)
    assert (open_.items, open_.observed) == (5, 0.6)
    assert open_.kappa == pytest.approx(0.16 / 0.56)
    assert open_.row()["warning"] is None


def test_agreement_on_whether_there_is_a_failure(store: Store) -> None:
    two_reviewers(store)
    found = agreement(store.annotations.find(kind=None), "A", "B", "session", measure="presence")
    # (F, F) (F, N) (N, F) (N, N) (N, N): p_o 0.6; both 2 F / 3 N: p_e 13/25
    assert (found.items, found.observed) == (5, 0.6)
    assert found.kappa == pytest.approx((0.6 - 0.52) / 0.48)


def test_fleiss_kappa_when_the_pairs_change(store: Store) -> None:
    ids = sessions(store, 5)
    plan = [("A", "x", "B", "x"), ("B", "x", "C", "y"), ("A", "y", "C", "y")]
    plan += [("A", "x", "C", "x"), ("B", "y", "C", "y")]
    for sid, (a, la, b, lb) in zip(ids, plan, strict=True):
        store.annotations.add(sid, la, annotator=a)
        store.annotations.add(sid, lb, annotator=b)
    rows = fleiss_agreements(store.annotations.find())
    # P_i 1, 0, 1, 1, 1: P = 0.8; p_x = p_y = 0.5: P_e = 0.5; kappa = 0.6
    assert rows == [
        {
            "level": "session",
            "measure": "label",
            "no_label_as_category": False,
            "raters_per_item": 2,
            "annotators": 3,
            "items": 5,
            "observed_agreement": 0.8,
            "kappa": 0.6,
            "warning": None,
        }
    ]
    report = build_report(store)
    assert report["agreement_fleiss"][0]["kappa"] == 0.6
    pairs = report["agreement"]
    assert [(r["annotator_a"], r["annotator_b"], r["items"]) for r in pairs] == [
        ("A", "B", 1),
        ("A", "C", 2),
        ("B", "C", 2),
    ]
    assert all(r["warning"] == FEW_ITEMS for r in pairs)


def test_the_command_line(store: Store, capsys) -> None:
    two_reviewers(store)
    db = str(store.path)
    assert main(["report", "--db", db, "--format", "json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert plain["agreement"][0]["items"] == 1
    assert plain["agreement_presence"][0]["items"] == 5
    assert main(["report", "--db", db, "--format", "json", "--no-label-as-category"]) == 0
    counted = json.loads(capsys.readouterr().out)["agreement"][0]
    assert (counted["items"], counted["no_label_as_category"]) == (5, True)
    assert main(["report", "--db", db]) == 0
    table = capsys.readouterr().out
    assert "Agreement on whether there is a failure" in table
    assert "(!) fewer than 5 shared items" in table
