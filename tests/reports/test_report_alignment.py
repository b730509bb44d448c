"""Step alignment of two sessions for the compare screen, and the first divergence."""

from __future__ import annotations

from pathlib import Path

from crmarena_tui.reports.alignment import align, first_divergence, normalise_query
from crmarena_tui.storage import Store
from crmarena_tui.tasks.model import Task
from tests.support.spec_support import session_spec


def ev(kind: str, text: str) -> dict:
    return {"kind": kind, "actor": "agent", "payload": {"text": text}}


def test_normalisation_ignores_case_whitespace_and_quotes() -> None:
    a = normalise_query("SELECT Id, Name\n  FROM Account WHERE Name = 'Acme';")
    b = normalise_query('select id,name from account where name="ACME"')
    assert a == b
    assert normalise_query("SELECT Id FROM Case") != normalise_query("SELECT Id FROM Lead")


def test_identical_runs_have_no_divergence() -> None:
    a = [ev("query", "SELECT Id FROM Case"), ev("thought", "hmm"), ev("search", "FIND {x}")]
    b = [ev("search", "find {X}"), ev("query", "select id from case")]
    b.reverse()
    pairs = align(a, b)
    assert [p.same for p in pairs] == [True, True]
    assert first_divergence(pairs) is None


def test_first_divergence_after_a_shared_prefix() -> None:
    a = [
        ev("query", "SELECT Id FROM Case"),
        ev("query", "SELECT OwnerId FROM Case"),
        ev("query", "SELECT Id FROM User"),
    ]
    b = [
        ev("query", "SELECT Id FROM Case"),
        ev("query", "SELECT Id, OwnerId FROM Case"),
        ev("query", "SELECT Id FROM User"),
        ev("query", "SELECT Name FROM User"),
    ]
    pairs = align(a, b)
    texts = [
        (p.a and p.a["payload"]["text"], p.b and p.b["payload"]["text"], p.same) for p in pairs
    ]
    assert texts == [
        ("SELECT Id FROM Case", "SELECT Id FROM Case", True),
        ("SELECT OwnerId FROM Case", "SELECT Id, OwnerId FROM Case", False),
        ("SELECT Id FROM User", "SELECT Id FROM User", True),
        (None, "SELECT Name FROM User", False),
    ]
    assert first_divergence(pairs) == 1


def test_an_inserted_step_is_unpaired_and_later_steps_still_match() -> None:
    a = [ev("query", "SELECT Id FROM Case"), ev("query", "SELECT Id FROM Lead")]
    b = [
        ev("query", "SELECT Id FROM Case"),
        ev("query", "SELECT Id FROM Account"),
        ev("query", "SELECT Id FROM Lead"),
    ]
    pairs = align(a, b)
    assert [(p.a is not None, p.b is not None, p.same) for p in pairs] == [
        (True, True, True),
        (False, True, False),
        (True, True, True),
    ]
    assert first_divergence(pairs) == 1


def test_aligns_stored_events(tmp_path: Path) -> None:
    with Store(tmp_path / "a.db") as store:
        who = store.participant("human", "ana")
        task = Task(idx=1, task="handle_time", query="q", answer=["x"], reward_metric="exact_match")
        ids = [store.create_session(session_spec(who, task, "demo", "demo:b2b")).id for _ in "ab"]
        for sid, texts in zip(
            ids,
            (
                ["SELECT Id FROM Case", "SELECT Id FROM User"],
                ["select Id from Case", "SELECT Name FROM User"],
            ),
            strict=True,
        ):
            for text in texts:
                store.append_event(sid, "human", "query", {"text": text})
                store.append_event(sid, "system", "observation", {"observation": "[]"})
        pairs = align(store.events(ids[0]), store.events(ids[1]))
        assert first_divergence(pairs) == 1
        assert pairs[0].a.seq == 1 and pairs[1].b.seq == 3
