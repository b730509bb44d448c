"""The offline extractor on a set of realistic final answers (tests/data/graders/extraction_set.json).

Each entry is an answer an agent or a person might submit for one of the 17 exact_match task
types, with the items a careful reader takes from it: the answer put forward (not runners-up or
other objects' Ids), `["None"]` when it says there is none, `[]` when it gives no answer at all.
Every entry must keep passing: an extractor change that breaks one fails here by name.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.graders import grade
from crmarena_tui.graders.answer_context import is_non_answer
from crmarena_tui.graders.exact_match import answer_kind
from crmarena_tui.graders.extract import extract_items
from crmarena_tui.tasks.catalog import TASK_TYPES
from crmarena_tui.tasks.model import Task

SET = json.loads(
    (Path(__file__).parents[1] / "data" / "graders" / "extraction_set.json").read_text("utf-8")
)
EXACT_TYPES = {t.name for t in TASK_TYPES if t.metric == "exact_match"}


def _id(entry: dict) -> str:
    return f"{entry['task']}: {entry['why']}"


def test_the_set_covers_every_exact_match_type_with_100_answers_or_more() -> None:
    assert len(SET) >= 100 and len(EXACT_TYPES) == 17
    assert {e["task"] for e in SET} == EXACT_TYPES
    counts = {name: sum(e["task"] == name for e in SET) for name in EXACT_TYPES}
    assert min(counts.values()) >= 5, counts
    assert sum(e["expected"] == [] for e in SET) >= 17  # a non-answer per type at least
    assert sum(e["expected"] == ["None"] for e in SET) >= 17


@pytest.mark.parametrize("entry", SET, ids=_id)
def test_extraction(entry: dict) -> None:
    found = extract_items(entry["answer"], answer_kind(entry["task"]), entry["task"])
    assert sorted(found) == sorted(entry["expected"])


@pytest.mark.parametrize("entry", [e for e in SET if e["expected"] == []], ids=_id)
def test_a_non_answer_never_scores_on_a_none_task_under_workbench(entry: dict) -> None:
    task = Task(idx=1, task=entry["task"], query="q", answer=[None], reward_metric="exact_match")
    result = grade(task, entry["answer"], protocol="workbench")
    assert result.reward == 0.0 and result.parsed_answer == []
    assert result.metrics["no_answer"] is True
    if is_non_answer(entry["answer"]):  # says so: a human's give-up, under either protocol
        given_up = grade(task, entry["answer"], protocol="upstream", human=True)
        assert given_up.reward == 0.0 and given_up.metrics["give_up"] is True


@pytest.mark.parametrize("entry", [e for e in SET if e["expected"] == []], ids=_id)
def test_a_non_answer_reads_as_none_under_upstream(entry: dict) -> None:
    # upstream's judge is told that a reply naming no entity means "None"; offline the same
    task = Task(idx=1, task=entry["task"], query="q", answer=[None], reward_metric="exact_match")
    result = grade(task, entry["answer"], protocol="upstream")
    assert result.reward == 1.0 and result.parsed_answer == ["None"]
    assert result.metrics["no_answer"] is True


@pytest.mark.parametrize("entry", [e for e in SET if e["expected"]], ids=_id)
def test_the_grade_follows_the_extraction(entry: dict) -> None:
    gold = [None] if entry["expected"] == ["None"] else entry["expected"]
    task = Task(idx=1, task=entry["task"], query="q", answer=gold, reward_metric="exact_match")
    assert grade(task, entry["answer"]).reward == 1.0
