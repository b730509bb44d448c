"""`org verify`: the built-in corpus plus the sessions' queries on two orgs; every difference in
records, totalSize and errors reported; JSON with a top-level `differences` count."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.demo.generator import ensure_demo_org
from crmarena_tui.orgs.base import QueryResult
from crmarena_tui.orgs.local import LocalOrg
from crmarena_tui.orgs.snapshot_import import import_snapshot
from crmarena_tui.orgs.verify import compare
from crmarena_tui.orgs.verify_corpus import CorpusQuery, builtin_corpus
from crmarena_tui.storage import Store
from crmarena_tui.tasks.model import Task, TaskMetadata
from tests.support.snapshot_support import snapshot_of_demo
from tests.support.spec_support import session_spec


@pytest.fixture(scope="module")
def round_trip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("rt")
    import_snapshot(snapshot_of_demo(folder, "b2b"), folder / "imported.db")
    return folder / "imported.db"


def test_the_corpus_touches_every_object_and_feature() -> None:
    with LocalOrg(ensure_demo_org("b2b")) as org:
        corpus = builtin_corpus(org.describe(), lambda q: ["Acme Widgets"])
    texts = "\n".join(q.text for q in corpus)
    for name in org.describe().objects:
        assert f"FROM {name} ORDER BY Id" in texts and f"SELECT COUNT() FROM {name}" in texts
    for feature in (
        "LIKE 'Acme%'",
        "IN (SELECT AccountId FROM Contact)",
        "NOT IN (SELECT",
        "HAVING COUNT(Id) > 1",
        "COUNT_DISTINCT(",
        "NULLS LAST",
        "OFFSET 5",
        "LAST_N_DAYS:365",
        "THIS_QUARTER",
        "DAY_ONLY(",
        "CALENDAR_MONTH(",
        "Order.Account.ShippingState",
        "(SELECT Id FROM Contacts ORDER BY Id)",
        "FIND {Acme} IN ALL FIELDS RETURNING",
        "IN NAME FIELDS",
        "SELECT Nmae FROM Account",
    ):
        assert feature in texts, feature


def test_a_demo_org_and_its_round_trip_have_no_difference(
    round_trip: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["org", "verify", "demo:b2b", str(round_trip), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["differences"] == 0 and report["items"] == []
    assert report["queries"] > 250 and report["by_source"] == {"built-in": report["queries"]}


def test_every_kind_of_difference_is_reported(
    round_trip: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    changed = tmp_path / "changed.db"
    changed.write_bytes(round_trip.read_bytes())
    conn = sqlite3.connect(changed)
    with conn:
        first = conn.execute('SELECT Id FROM "Account" ORDER BY Id LIMIT 1').fetchone()[0]
        conn.execute('UPDATE "Account" SET Name = ? WHERE Id = ?', ("Renamed Co", first))
        conn.execute('DELETE FROM "Event" WHERE Id = (SELECT MIN(Id) FROM "Event")')
        conn.execute("DELETE FROM _sf_fields WHERE object = 'Territory2' AND name = 'Description'")
    conn.close()
    code = main(["org", "verify", "demo:b2b", str(changed), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and report["differences"] == len(report["items"]) > 3
    whats = {(d["what"], d["query"]) for d in report["items"]}
    assert ("totalSize", "SELECT COUNT() FROM Event") in whats
    assert any(w == "records" and "FROM Account ORDER BY Id" in q for w, q in whats)
    assert any(w == "error" and "Territory2" in q for w, q in whats)
    named = next(d for d in report["items"] if d["query"].startswith("SELECT Id, Name, Phone"))
    assert "Renamed Co" in named["b"] and "1 only here" in named["a"]
    assert main(["org", "verify", "demo:b2b", str(changed)]) == 1
    assert "differences" in capsys.readouterr().out


def test_queries_in_the_sessions_database_are_replayed_on_their_tasks_day(
    round_trip: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "sessions.db"
    task = Task(
        idx=1,
        task="handle_time",
        query="q",
        answer=["x"],
        reward_metric="exact_match",
        source="hf:b2b",
        metadata=TaskMetadata(required="Today's date: 2022-03-04"),
    )
    with Store(db) as store:
        who = store.participant("agent", "gpt-4o")
        s = store.create_session(session_spec(who, task, "salesforce", "salesforce:b2b"))
        store.append_event(s.id, "agent", "query", {"text": "SELECT COUNT() FROM Case"})
        store.append_event(s.id, "agent", "query", {"text": "SELECT Id FROM Case LIMIT 1"})
        other = store.create_session(
            session_spec(who, task.model_copy(update={"org_type": "b2c"}), "local", "x")
        )
        store.append_event(other.id, "agent", "query", {"text": "SELECT Id FROM Lead"})
    code = main(["org", "verify", "demo:b2b", str(round_trip), "--db", str(db), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["by_source"]["sessions"] == 2

    seen: list = []  # each stored query runs on its task's day
    org = LocalOrg(ensure_demo_org("b2b"))
    original = org.query

    def spy(text: str, *, today=None):
        seen.append((text, today))
        return original(text, today=today)

    org.query = spy  # type: ignore[method-assign]
    from crmarena_tui.orgs.verify import verify as run_verify

    run_verify(
        org,
        org,
        [CorpusQuery("SELECT COUNT() FROM Case", "sessions", "2022-03-04")],
        today=org.today,
    )
    assert seen and all(str(day) == "2022-03-04" for _, day in seen)


def test_a_queries_file_replaces_the_corpus_and_bad_input_is_a_message(
    round_trip: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = tmp_path / "q.soql"
    lines.write_text("# two queries\nSELECT COUNT() FROM Lead\n\nSELECT Id FROM Nope\n")
    assert main(["org", "verify", "demo:b2b", str(round_trip), "--queries", str(lines)]) == 0
    assert "2 queries (2 file), 0 differences" in capsys.readouterr().out
    as_json = tmp_path / "q.json"
    as_json.write_text(json.dumps(["SELECT COUNT() FROM Case"]))
    args = ["org", "verify", "demo:b2b", str(round_trip), "--queries", str(as_json)]
    assert main([*args, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["queries"] == 1
    assert main(["org", "verify", "demo:b2b", str(tmp_path / "none.db")]) == 2
    assert "ORG_B: no org file" in capsys.readouterr().err
    assert main(["org", "verify", "upstream:b2c", "demo:b2b"]) == 2
    assert "org fetch b2c" in capsys.readouterr().err


def test_comparison_rules() -> None:
    q = CorpusQuery("SELECT Id FROM Case", "file")
    rec = {"attributes": {"type": "Case", "url": "/a"}, "Id": "1", "Amount": 0.1 + 0.2}
    other = {"attributes": {"type": "Case", "url": "/b"}, "Id": "1", "Amount": 0.3}
    assert compare(q, QueryResult([rec], 1), QueryResult([other], 1)) is None
    two = {"attributes": {}, "Id": "2"}
    assert compare(q, QueryResult([rec, two], 2), QueryResult([two, rec], 2)) is None
    ordered = CorpusQuery("SELECT Id FROM Case ORDER BY Id", "file")
    moved = compare(ordered, QueryResult([rec, two], 2), QueryResult([two, rec], 2))
    assert moved is not None and moved.a == "the same records in another order"
    same_code = compare(
        q, QueryResult(error="INVALID_FIELD: a"), QueryResult(error="INVALID_FIELD: b")
    )
    assert same_code is None
    one_side = compare(q, QueryResult(error="INVALID_FIELD: a"), QueryResult([rec], 1))
    assert one_side is not None and (one_side.what, one_side.b) == ("error", "1 records")


def test_a_placed_error_is_reported_by_its_explanation() -> None:
    q = CorpusQuery("SELECT Nope FROM Case", "file")
    worded = (
        "INVALID_FIELD: \nSELECT Nope FROM Case\n       ^\nERROR at Row:1:Column:8\nNo such column"
    )
    found = compare(q, QueryResult(error=worded), QueryResult([], 0))
    assert found is not None and found.a == "INVALID_FIELD: No such column"
