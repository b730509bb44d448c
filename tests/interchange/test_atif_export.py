"""ATIF export: every file validates with the `atif` package's own models, and holds the
session's tool calls, observations, answer, grade, metrics, labels and notes."""

from __future__ import annotations

import json
from pathlib import Path

import atif
import pytest

from crmarena_tui.interchange.atif_export import export_atif
from crmarena_tui.storage import Store
from tests.support.interchange_support import played_sessions


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[int]]:
    """A database of played sessions and its ATIF export."""
    root = tmp_path_factory.mktemp("atif")
    ids = played_sessions(root / "s.db")
    with Store(root / "s.db") as store:
        assert export_atif(store, root / "out") == len(ids)
    return root / "s.db", root / "out", ids


def test_every_file_validates_with_the_atif_models(exported: tuple[Path, Path, list[int]]) -> None:
    _db, out, ids = exported
    files = sorted(out.glob("*.json"))
    assert [f.name for f in files] == [f"session-{i:07d}.json" for i in ids]
    for file in files:
        trajectory = atif.Trajectory.model_validate_json(file.read_text())
        assert trajectory.schema_version.startswith("ATIF-v")
        assert trajectory.agent.name == "reference"


def test_queries_are_tool_calls_answered_by_their_observations(
    exported: tuple[Path, Path, list[int]],
) -> None:
    db, out, ids = exported
    trajectory = atif.Trajectory.model_validate_json(
        (out / f"session-{ids[0]:07d}.json").read_text()
    )
    with Store(db) as store:
        events = store.events(ids[0])
        grade = store.grade(ids[0])
    queries = [e.text for e in events if e.kind in ("query", "search")]
    calls = [s for s in trajectory.steps if s.tool_calls]
    assert [s.tool_calls[0].arguments["query"] for s in calls] == queries
    for step in calls:
        (result,) = step.observation.results
        assert result.source_call_id == step.tool_calls[0].tool_call_id
        assert result.content
    answer = next(e for e in events if e.kind == "submit").payload["answer"]
    assert trajectory.extra["final_answer"] == answer
    assert grade is not None and trajectory.final_metrics.extra["reward"] == grade.reward
    assert grade.protocol == "upstream"  # the regrade: the latest grade is the one reported
    assert len(trajectory.extra["crmarena_tui"]["grades"]) == 2


def test_labels_and_notes_are_kept(exported: tuple[Path, Path, list[int]]) -> None:
    _db, out, ids = exported
    labelled = json.loads((out / f"session-{ids[1]:07d}.json").read_text())
    noted = json.loads((out / f"session-{ids[2]:07d}.json").read_text())
    (label,) = labelled["extra"]["crmarena_tui"]["annotations"]
    assert (label["label"], label["event_seq"], label["annotator"]) == ("wrong_filter", 2, "ann")
    assert "wrong_filter: the date range is off" in labelled["notes"]
    assert "a clean run" in noted["notes"]


def test_a_chat_has_user_steps(exported: tuple[Path, Path, list[int]]) -> None:
    _db, out, ids = exported
    chat = atif.Trajectory.model_validate_json((out / f"session-{ids[3]:07d}.json").read_text())
    assert any(s.source == "user" and s.message for s in chat.steps)
