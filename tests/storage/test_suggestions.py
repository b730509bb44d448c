"""Scanners' readings (schema 19, storage/suggestions.py): suggestions stored beside labels, never
among them, with their provenance; a session read once per scan; hidden until an annotator's own
label in hidden-labels mode; rubrics kept by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from crmarena_tui.storage import Store, rubrics, themes
from crmarena_tui.storage import schema as schema_mod
from crmarena_tui.storage.suggestions import Proposal, Reading
from tests.support.trials_support import add_trials


@pytest.fixture()
def store(tmp_path: Path):
    with Store(tmp_path / "s.db") as s:
        add_trials(s, "gpt-4o", {0: [0], 1: [0], 2: [1]})
        yield s


def _sessions(store: Store) -> list[int]:
    return [int(r[0]) for r in store.read("SELECT id FROM sessions ORDER BY id")]


def test_the_scans_tables_are_schema_19(store: Store) -> None:
    assert schema_mod.MIGRATIONS[18].__name__ == "v19_scans"
    assert store.schema_version == schema_mod.SCHEMA_VERSION >= 19


def test_a_reading_stores_suggestions_with_provenance_and_no_label(store: Store) -> None:
    first, second, _ = _sessions(store)
    scan = store.suggestions.start(
        "labels@gpt", kind="labels", model="openai/gpt-4o", prompt_version="labels-1",
        selection="--where reward:0", taxonomy=["wrong object", "gave up"],
    )  # fmt: skip
    reading = Reading(
        proposals=[
            Proposal("wrong object", 2, "It queried Case instead of Opportunity."),
            Proposal("gave up", None, "It answered None."),
        ],
        tokens_in=1200, tokens_out=80, cost=0.0042, seconds=1.5,
    )  # fmt: skip
    assert store.suggestions.record(scan.id, first, reading)
    assert store.suggestions.record(scan.id, second, Reading(tokens_in=900, cost=0.001))
    found = store.suggestions.of_session(first)
    assert [(s.label, s.event_seq, s.level) for s in found] == [
        ("wrong object", 2, "step"),
        ("gave up", None, "session"),
    ]
    assert found[0].provenance == "openai/gpt-4o, scan labels@gpt"
    assert (found[0].prompt_version, found[0].tokens_in, found[0].cost) == (
        "labels-1",
        1200,
        0.0042,
    )
    assert store.suggestions.of_session(second) == []  # read: nothing wrong found
    assert store.annotations.find(kind=None) == []  # suggestions are not labels
    totals = store.suggestions.totals(scan.id)
    assert (totals.read, totals.suggestions, totals.tokens_in) == (2, 2, 2100)
    assert totals.cost == pytest.approx(0.0052)
    assert totals.labels == {"gave up": 1, "wrong object": 1}


def test_a_session_is_read_once_per_scan_and_a_failure_is_tried_again(store: Store) -> None:
    first, second, _ = _sessions(store)
    scan = store.suggestions.start("s", kind="labels", model="m", prompt_version="1")
    failed = Reading(error="rate limited", attempts=3, seconds=4.0)
    assert store.suggestions.record(scan.id, first, failed)
    assert store.suggestions.read_sessions(scan.id) == set()
    assert store.suggestions.readings(scan.id)[0]["error"] == "rate limited"
    assert store.suggestions.record(scan.id, first, Reading([Proposal("gave up")]))
    assert not store.suggestions.record(scan.id, first, Reading([Proposal("other")]))
    assert [s.label for s in store.suggestions.of_scan(scan.id)] == ["gave up"]
    assert store.suggestions.read_sessions(scan.id) == {first}
    assert second not in store.suggestions.read_sessions(scan.id)


def test_a_scan_of_the_same_name_and_settings_is_resumed(store: Store) -> None:
    settings = {"kind": "labels", "model": "m", "prompt_version": "1", "selection": "x"}
    one = store.suggestions.start("s", **settings)  # type: ignore[arg-type]
    assert store.suggestions.start("s", **settings).id == one.id  # type: ignore[arg-type]
    other = {**settings, "model": "n"}
    assert store.suggestions.start("s", **other).id != one.id  # type: ignore[arg-type]
    store.suggestions.finish(one.id)
    assert store.suggestions.scan(one.id).finished_at is not None
    again = store.suggestions.start("s", **settings)  # type: ignore[arg-type]
    assert again.id == one.id and again.finished_at is None  # (reads what it has not)
    assert store.suggestions.start("t", **settings).id != one.id  # type: ignore[arg-type]


def test_hidden_labels_hide_a_suggestion_until_the_annotators_own_label(store: Store) -> None:
    first = _sessions(store)[0]
    scan = store.suggestions.start("s", kind="labels", model="m", prompt_version="1")
    store.suggestions.record(
        scan.id, first, Reading([Proposal("wrong field", 1, "r"), Proposal("gave up", None, "r")])
    )
    shown = store.suggestions.visible_to
    assert len(shown(first, "ann", hidden_labels=False)) == 2
    assert shown(first, "ann", hidden_labels=True) == []
    store.annotations.add(first, "wrong object", annotator="ann", event_seq=None)
    assert [s.label for s in shown(first, "ann", hidden_labels=True)] == ["gave up"]
    assert shown(first, "bob", hidden_labels=True) == []


def test_rubrics_are_kept_by_name(store: Store) -> None:
    schema = {"type": "object", "properties": {"blamed_user": {"type": "boolean"}}}
    rubrics.save(store, rubrics.Rubric("blame", "Did the agent blame the user?", schema))
    assert rubrics.named(store, "blame").answer_schema == schema
    with pytest.raises(rubrics.NoRubric, match="saved: blame"):
        rubrics.named(store, "other")
    scan = store.suggestions.start(
        "b", kind="rubric", model="m", prompt_version="1", rubric="blame",
        question="Did the agent blame the user?", answer_schema=schema,
    )  # fmt: skip
    store.suggestions.record(scan.id, _sessions(store)[0], Reading([Proposal(answer={"x": 1})]))
    assert store.suggestions.of_scan(scan.id)[0].answer == {"x": 1}
    assert store.suggestions.scan(scan.id).answer_schema == schema


def test_themes_are_stored_with_links_and_counts_per_configuration(store: Store) -> None:
    first, second, third = _sessions(store)
    scan = store.suggestions.start("t", kind="themes", model="m", prompt_version="1")
    member = themes.Member
    themes.save(
        store,
        scan.id,
        [
            themes.Theme("Wrong object", "queried the wrong sObject", (
                member("suggestion", 1, first, 2, "queried Case"),
                member("note", 7, second, None, "used Case not Opportunity"),
            )),
            themes.Theme("Gave up", "", (member("suggestion", 2, third, 4, "answered None"),)),
        ],
    )  # fmt: skip
    store.suggestions.spend(scan.id, 500, 60, 0.01, 2.0)
    store.suggestions.finish(scan.id)
    found = themes.of_scan(store, scan.id)
    assert [(t.name, t.sessions) for t in found] == [("Wrong object", 2), ("Gave up", 1)]
    assert [m.link for m in found[0].members] == [f"{first}:2", str(second)]
    assert found[0].per_configuration == {"gpt-4o/react": 2}
    assert themes.latest(store) == store.suggestions.scan(scan.id)
    assert store.suggestions.scan(scan.id).cost == pytest.approx(0.01)
    assert themes.session_themes(store, scan.id)[first] == ["Wrong object"]
