"""One export schema for JSON Lines, CSV and Parquet: read back by the documented types
(`storage/export_schema.py`, docs/research.md "Exports"), every column holds the same typed values in all
three formats; the files get the user's umask."""

from __future__ import annotations

import csv
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from crmarena_tui.cli import main
from crmarena_tui.graders import Grade
from crmarena_tui.storage import Store
from crmarena_tui.storage.export_schema import ANNOTATION_FIELDS, EVENT_FIELDS, SCHEMA
from crmarena_tui.storage.provenance import COLUMNS as PROVENANCE_COLUMNS
from crmarena_tui.storage.upstream import UpstreamImporter
from crmarena_tui.studies.db import create_study
from crmarena_tui.tasks.model import Task
from tests.support.spec_support import session_spec

UPSTREAM = Path(__file__).parents[1] / "data" / "upstream"
PYTHON_TYPES = {"int": int, "float": float, "bool": bool, "text": str, "timestamp": datetime}


def _time(text: str) -> datetime:
    assert text.endswith("Z")
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _typed(kind: str, value: Any, fmt: str) -> Any:
    """A value read from `fmt` turned into the documented Python value of `kind`."""
    if fmt == "csv":
        if value == "":
            return None
        if kind == "int":
            return int(value)
        if kind == "float":
            return float(value)
        if kind == "bool":
            assert value in ("true", "false")
            return value == "true"
        if kind in ("list", "events", "annotations"):
            value = json.loads(value)
            fmt = "jsonl"  # nested JSON as JSON Lines holds it
    if value is None or (kind == "text" and value == ""):
        return None  # documented: CSV holds an empty text and a null alike (an empty cell)
    if kind == "timestamp":
        return value if isinstance(value, datetime) else _time(value)
    if kind in ("events", "annotations"):
        fields = EVENT_FIELDS if kind == "events" else ANNOTATION_FIELDS
        return [{name: _nested(t, item[name], fmt) for name, t in fields} for item in value]
    if kind == "float" and isinstance(value, int):
        return float(value)
    return value


def _nested(kind: str, value: Any, fmt: str) -> Any:
    if kind == "json":
        return json.loads(value) if fmt == "parquet" else value  # text in Parquet, objects else
    return _typed(kind, value, "jsonl")


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
            answer=[None],
            reward_metric="exact_match",
            source="hf:b2b",
        )
        pilot = create_study(
            store, "pilot", tasks="hf:b2b", org=None, per_task=1, seed=0,
            queues={"ana": [("hf:b2b", 883)]}, task_types={("hf:b2b", 883): "handle_time"},
        )  # fmt: skip
        sid = store.create_session(session_spec(ana, task, "demo", "demo:b2b", study_id=pilot.id), started_at=1_700_000_000.0).id  # fmt: skip
        store.append_event(sid, "human", "query", {"text": "SELECT Id FROM Case", "n": [1, 2]})
        store.set_status(sid, "submitted", ended_at=1_700_000_090.0, active_seconds=75.5)
        store.annotations.add(
            sid, "wrong_filter", note="missed the date", annotator="bo", event_seq=1
        )
        store.annotations.add(sid, "", "look at owners", annotator="cy", kind="note")
        fork = store.create_session(session_spec(ana, task, "demo", "demo:b2b", parent_id=1, fork_seq=3, kind="fork"), started_at=1_700_000_100.0)  # fmt: skip
        store.copy_events(1, fork.id, 3)
        judged = store.create_session(session_spec(ana, task, "upstream", "upstream:b2b", protocol="upstream", settings=PROVENANCE), started_at=1_700_000_200.0)  # fmt: skip
        store.set_status(judged.id, "submitted", ended_at=1_700_000_260.0, active_seconds=60.0)
        store.add_grade(judged.id, JUDGED, graded_at=1_700_000_261.0)
    return path


PROVENANCE = {  # a session with every provenance fact (storage/provenance.py)
    "org_today": "2025-06-01",
    "org_clock": "set",
    "schema_source": "file:b2b_schema.json@0123456789ab",
    "prompt_source": "upstream@32b609a",
}
JUDGED = Grade(
    answer="005Wt000003NJi5IAG",
    parsed_answer=["005Wt000003NJi5IAG"],
    reward=1.0,
    metrics={"judge_temperature": 0.0, "judge_instructions": "upstream@32b609a"},
    grader="exact_match",
    extraction="llm",
    judge_model="openai/gpt-4o-2024-08-06",
    protocol="upstream",
)


def test_every_column_has_its_documented_type_and_value_in_all_three_formats(
    db: Path, tmp_path: Path
) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    old = os.umask(0o022)
    try:
        for fmt in ("jsonl", "csv", "parquet"):
            assert main(["export", "--out", str(tmp_path / f"s.{fmt}"), "--db", str(db)]) == 0
    finally:
        os.umask(old)
    for fmt in ("jsonl", "csv", "parquet"):
        assert (tmp_path / f"s.{fmt}").stat().st_mode & 0o777 == 0o644  # the umask's, not 0600

    raw = {
        "jsonl": [json.loads(x) for x in (tmp_path / "s.jsonl").read_text().splitlines()],
        "parquet": pq.read_table(tmp_path / "s.parquet").to_pylist(),
    }
    with (tmp_path / "s.csv").open(newline="", encoding="utf-8") as fh:
        raw["csv"] = list(csv.DictReader(fh))
    assert [list(rows[0]) for rows in raw.values()] == [[n for n, _ in SCHEMA]] * 3
    typed = {
        fmt: [{name: _typed(kind, row[name], fmt) for name, kind in SCHEMA} for row in rows]
        for fmt, rows in raw.items()
    }
    assert typed["jsonl"] == typed["csv"] == typed["parquet"]
    rows = typed["jsonl"]
    assert len(rows) == 11
    for name, kind in SCHEMA:
        values = [row[name] for row in rows if row[name] is not None]
        assert values, f"{name} is null in every row: the test would not see its type"
        if kind in PYTHON_TYPES:
            assert {type(v) for v in values} == {PYTHON_TYPES[kind]}, name
        else:
            assert all(isinstance(v, list) for v in values), name
    judged, rows = rows[-1], rows[:-1]
    assert [judged[name] for name, _ in PROVENANCE_COLUMNS] == [
        "2025-06-01", "set", "file:b2b_schema.json@0123456789ab", "upstream@32b609a",
        "openai/gpt-4o-2024-08-06", 0.0, "upstream@32b609a",
    ]  # fmt: skip
    assert [rows[-2][name] for name, _ in PROVENANCE_COLUMNS] == [None] * 7  # none recorded
    human = rows[-2]
    assert human["started_at"] == datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)
    assert human["gold_answer"] == [None]
    assert human["study"] == "pilot" and rows[-1]["study"] is None  # a fork is not in it
    assert len({row["session_uuid"] for row in rows}) == 10  # one uuid per session
    assert human["events"][0]["payload"] == {"text": "SELECT Id FROM Case", "n": [1, 2]}
    assert isinstance(raw["parquet"][-3]["events"][0]["payload"], str)  # JSON text there
    assert isinstance(raw["jsonl"][-3]["events"][0]["payload"], dict)  # an object here
    assert (rows[-1]["session_kind"], rows[-1]["parent_session_id"], rows[-1]["fork_seq"]) == (
        "fork",
        1,
        3,
    )
    assert [(a["kind"], a["level"], a["annotator"]) for a in human["annotations"]] == [
        ("label", "step", "bo"),
        ("note", "session", "cy"),
    ]
