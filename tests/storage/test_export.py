"""Export: one row per session in JSON Lines, CSV and Parquet, with events and labels."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.storage import Store, exporter
from crmarena_tui.storage.upstream import UpstreamImporter
from crmarena_tui.tasks.model import Task
from tests.support.spec_support import session_spec

UPSTREAM = Path(__file__).parents[1] / "data" / "upstream"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "e.db"
    with Store(path) as store:
        UpstreamImporter(store).import_paths([UPSTREAM])
        ana = store.participant("human", "ana")
        task = Task(
            idx=883,
            task="handle_time",
            query="Who is fastest?",
            answer=["005Wt000003NIvNIAW"],
            reward_metric="exact_match",
            source="hf:b2b",
        )
        sid = store.create_session(
            session_spec(ana, task, "demo", "demo:b2b"), started_at=1_700_000_000.0
        ).id
        store.append_event(sid, "human", "query", {"text": "SELECT Id FROM Case"})
        store.set_status(sid, "submitted", ended_at=1_700_000_090.0, active_seconds=75.5)
        store.annotations.add(
            sid, "wrong_filter", note="missed the date", annotator="bo", event_seq=1
        )
    return path


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_jsonl_rows(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "all.jsonl"
    assert main(["export", "--format", "jsonl", "--out", str(out), "--db", str(db)]) == 0
    rows = read_jsonl(out)
    assert len(rows) == 9 and set(rows[0]) == set(exporter.COLUMNS)
    human = rows[-1]
    assert (human["participant_kind"], human["participant_name"], human["task_idx"]) == (
        "human",
        "ana",
        883,
    )
    assert (human["query"], human["active_seconds"], human["reward"]) == (
        "Who is fastest?",
        75.5,
        None,
    )
    assert (
        human["started_at"] == "2023-11-14T22:13:20Z"
        and human["ended_at"] == "2023-11-14T22:14:50Z"
    )
    assert human["events"][0]["payload"] == {"text": "SELECT Id FROM Case"}
    assert human["annotations"] == [
        {
            "kind": "label",
            "level": "step",
            "label": "wrong_filter",
            "note": "missed the date",
            "annotator": "bo",
            "event_seq": 1,
            "created_at": human["annotations"][0]["created_at"],
        }
    ]
    assert (human["queries"], human["errors"], human["turns"], human["org_type"]) == (
        1,
        0,
        0,
        "b2b",
    )
    assert human["end_reason"] == "answer submitted" and human["session_kind"] == "attempt"
    agent = next(r for r in rows if r["task_idx"] == 883 and r["participant_kind"] == "agent")
    assert (agent["participant_model"], agent["reward"], agent["imported"]) == (
        "gpt-4o-2024-08-06",
        1.0,
        True,
    )
    assert agent["answer"] == "005Wt000003NIvNIAW" and agent["parsed_answer"] == [
        "005Wt000003NIvNIAW"
    ]
    assert agent["gold_answer"] == ["005Wt000003NIvNIAW"]
    assert [e["kind"] for e in agent["events"]][-3:] == ["submit", "usage", "grade"]
    assert all(e["ts"] is None for e in agent["events"])  # upstream records no step times
    assert agent["total_tokens"] > 0 and agent["cost"] > 0 and agent["protocol"] == "upstream"
    assert agent["task_source"] == "hf:b2b" and agent["end_reason"] == "Submit action (agent)"


def test_csv_holds_the_same_data_with_json_cells(db: Path, tmp_path: Path) -> None:
    main(["export", "--format", "jsonl", "--out", str(tmp_path / "a.jsonl"), "--db", str(db)])
    assert (
        main(["export", "--out", str(tmp_path / "a.csv"), "--db", str(db)]) == 0
    )  # format from suffix
    rows = read_jsonl(tmp_path / "a.jsonl")
    with (tmp_path / "a.csv").open(newline="", encoding="utf-8") as fh:
        table = list(csv.DictReader(fh))
    assert len(table) == len(rows)
    for row, cells in zip(rows, table, strict=True):
        assert json.loads(cells["events"]) == row["events"]
        assert json.loads(cells["annotations"]) == row["annotations"]
        assert cells["participant_name"] == row["participant_name"]
        assert cells["reward"] == ("" if row["reward"] is None else str(row["reward"]))


def test_parquet_nested_events(db: Path, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "a.parquet"
    assert main(["export", "--format", "parquet", "--out", str(out), "--db", str(db)]) == 0
    table = pq.read_table(out).to_pylist()
    assert len(table) == 9
    fuzzy = next(r for r in table if r["task_type"] == "knowledge_qa")
    assert fuzzy["reward"] == pytest.approx(2 / 3) and fuzzy["imported"] is True
    kinds = [e["kind"] for e in fuzzy["events"]]
    assert kinds[:3] == ["system", "message", "thought"]
    search = fuzzy["events"][kinds.index("search")]
    assert json.loads(search["payload"])["text"].startswith("FIND {IoT security}")
    assert table[-1]["annotations"][0]["label"] == "wrong_filter"


def test_a_failed_export_leaves_no_file(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(store, *_args, **_kwargs):
        yield {name: None for name in exporter.COLUMNS} | {"events": [], "annotations": []}
        raise RuntimeError("database went away")

    monkeypatch.setattr(exporter, "session_rows", broken)
    out = tmp_path / "x.jsonl"
    with Store(db) as store, pytest.raises(RuntimeError):
        exporter.export_sessions(store, "jsonl", out)
    assert list(tmp_path.glob("x.jsonl*")) == [] and list(tmp_path.glob(".x.jsonl*")) == []


def test_export_errors(tmp_path: Path, capsys) -> None:
    assert main(["export", "--out", str(tmp_path / "a.txt"), "--db", str(tmp_path / "e.db")]) == 2
    assert "--format" in capsys.readouterr().err
    assert (
        main(["export", "--out", str(tmp_path / "a.csv"), "--db", str(tmp_path / "none.db")]) == 1
    )
    assert "no sessions database" in capsys.readouterr().err


def test_rows_name_the_strategy_privacy_rule_and_non_answers(db: Path, tmp_path: Path) -> None:
    from crmarena_tui.graders.base import Grade

    with Store(db) as store:
        settings = {"model": "m", "strategy": "tool_call", "privacy_aware": True, "aided": False}
        bot = store.participant("agent", "m", model="m", settings=settings)
        task = Task(idx=7, task="handle_time", query="q", answer=["x"], reward_metric="exact_match")
        sid = store.create_session(
            session_spec(bot, task, "demo", "demo:b2b", settings=settings)
        ).id
        store.set_status(sid, "submitted")
        grade = Grade(
            answer="I don't know",
            parsed_answer=None,
            reward=0.0,
            grader="exact_match",
            extraction="deterministic",
            metrics={"no_answer": True},
        )
        store.add_grade(sid, grade)
    out = tmp_path / "s.jsonl"
    assert main(["export", "--format", "jsonl", "--out", str(out), "--db", str(db)]) == 0
    rows = read_jsonl(out)
    mine = rows[-1]
    assert (mine["strategy"], mine["privacy_aware"], mine["no_answer"]) == ("tool_call", True, True)
    imported = [r for r in rows if r["imported"]]
    assert {r["strategy"] for r in imported} == {"react"}
    assert all(r["privacy_aware"] is False and r["no_answer"] is False for r in imported)
    human = next(r for r in rows if r["participant_kind"] == "human")
    assert (human["strategy"], human["privacy_aware"], human["no_answer"]) == (None, False, None)
