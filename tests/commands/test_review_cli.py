"""`crmarena-tui review create|status|release|list` (issue 41, item 4): a queue from a filter, a
search or a scan's suggestions; progress per person and overall; items taken and not finished
given back; one-line refusals."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.storage import Store
from crmarena_tui.storage.reviews import ReviewQueues
from tests.support.review_support import seed_scanned


def test_queues_from_a_filter_steps_and_a_scan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "sessions.db")
    ids = seed_scanned(tmp_path / "sessions.db")
    assert (
        main(["review", "create", "agents", "--where", "gpt-4o", "--reviews", "2", "--db", db]) == 0
    )
    assert capsys.readouterr().out.startswith(
        "review queue 'agents': 4 session item(s) from 4 session(s), 2 review(s) each."
    )
    assert (
        main(
            [
                "review",
                "create",
                "steps",
                "--where",
                f"#{ids['agent']}",
                "--level",
                "step",
                "--db",
                db,
            ]
        )
        == 0
    )
    assert " step item(s) from " in capsys.readouterr().out
    assert main(["review", "create", "s", "--suggestions", "s1", "--blind", "--db", db]) == 0
    assert (
        "3 suggestion item(s) from 9 session(s), 1 review(s) each, blind" in capsys.readouterr().out
    )
    with Store(db) as store:
        queues = ReviewQueues(store)
        steps = queues.items(queues.queue("steps").id)
        from crmarena_tui.storage.steps import group_steps

        assert [(i.session_id, i.event_seq) for i in steps] == [
            (sid, anchor.seq)
            for sid in sorted({i.session_id for i in steps})
            for anchor, _ in group_steps(store.events(sid))
        ]  # every step of each session the filter keeps, in order
        agents = queues.queue("agents")
        assert [i.session_id for i in queues.items(agents.id)] == [
            ids["agent"], ids["b_agent"], ids["c_agent"], ids["d_agent"],
        ]  # fmt: skip
        for who in ("ann", "bob", "cy"):
            item = queues.next_for(agents.id, who)
            assert item is not None
            if who != "cy":
                queues.decide(item, who, "label", "other")
    assert main(["review", "status", "agents", "--db", db]) == 0
    out = capsys.readouterr().out
    assert [line.split() for line in out.splitlines()[:5]] == [
        ["annotator", "taken", "reviewed", "open"],
        ["ann", "1", "1", "0"],
        ["bob", "1", "1", "0"],
        ["cy", "1", "0", "1"],
        ["(all)", "3", "2", "1"],
    ]
    assert "1 of 4 items have all 2 review(s); 2 of 8 reviews done (25%)" in out
    assert main(["review", "status", "agents", "--format", "json", "--db", db]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["progress"][-1]["items_complete"] == 1 and status["reviews"] == 2
    assert main(["review", "list", "--db", db]) == 0
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()] == [
        "queue", "agents", "steps", "s",
    ]  # fmt: skip


def test_release_gives_back_unfinished_items_for_others_to_take(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "sessions.db"
    seed_scanned(db)
    assert main(["review", "create", "q", "--limit", "3", "--db", str(db)]) == 0
    capsys.readouterr()
    with Store(db, clock=lambda: time.time() - 3600) as store:  # an hour ago
        queues = ReviewQueues(store)
        queue = queues.queue("q").id
        first = queues.next_for(queue, "bob")
        assert first is not None
        queues.decide(first, "bob", "label", "wrong object")  # finished: never released
        stale = queues.next_for(queue, "bob")
    with Store(db) as store:
        queues = ReviewQueues(store)
        fresh = queues.next_for(queue, "ann")
    assert stale is not None and fresh is not None and stale.id != fresh.id
    assert main(["review", "release", "q", "--all-stale", "30", "--db", str(db)]) == 0
    assert capsys.readouterr().out == (
        "released 1 item(s) of 'q' (bob 1); others may take them now\n"
    )
    with Store(db) as store:
        queues = ReviewQueues(store)
        assert queues.next_for(queue, "cy") == stale  # bob's stale item, free again
        assert [(i.id, done) for i, done in queues.mine(queue, "bob")] == [(first.id, True)]
    assert main(["review", "release", "q", "--as", "ann", "--db", str(db)]) == 0
    assert capsys.readouterr().out.startswith("released 1 item(s) of 'q' (ann 1)")
    assert main(["review", "release", "q", "--as", "ann", "--db", str(db)]) == 0
    assert "none was taken and unfinished" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "said", "code"),
    [
        (["create", "x", "--suggestions", "nope"], "error: no scan named 'nope'", 1),
        (["create", "x", "--where", "nobody-matches-this"], "error: no items: the selection", 1),
        (["create", "x", "--reviews", "0"], "error: --reviews must be 1 or more, not 0", 2),
        (["status", "nope"], "error: no review queue named 'nope'", 1),
        (["release", "nope", "--as", "ann"], "error: no review queue named 'nope'", 1),
        (["release", "x", "--all-stale", "-5"], "error: --all-stale must be 0 or more", 2),
        (["release", "x", "--as", " "], "error: --as needs the annotator's name", 2),
    ],
)
def test_refusals_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], said: str, code: int
) -> None:
    seed_scanned(tmp_path / "sessions.db")
    assert main(["review", *argv, "--db", str(tmp_path / "sessions.db")]) == code
    err = capsys.readouterr().err
    assert err.startswith(said) and err.count("\n") == 1, err
