"""exact_match on the 44 real rows: own ground truth, near misses, wrong answers, and LLM judges."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.graders import GRADER_VERSION, Grade, grade
from crmarena_tui.graders.ids import checksum
from crmarena_tui.tasks.catalog import task_type
from crmarena_tui.tasks.model import Task

SAMPLE = Path(__file__).parents[1] / "data" / "crmarenapro_b2b_sample.json"
ROWS = [Task(**row) for row in json.loads(SAMPLE.read_text(encoding="utf-8"))]
EXACT = [t for t in ROWS if t.reward_metric == "exact_match"]
SINGLE = [t for t in EXACT if len(t.answer) == 1]
NONE_ROWS = [t for t in SINGLE if t.answer == [None]]
VALUE_ROWS = [t for t in SINGLE if t.answer != [None]]
LIST_ROWS = [t for t in EXACT if len(t.answer) > 1]


def _id(task: Task) -> str:
    return f"{task.task}-{task.idx}"


class ScriptedJudge:
    """A judge that replies from a script and remembers the prompts it was given."""

    def __init__(self, *replies: str, model: str = "scripted/judge") -> None:
        self.model = model
        self.replies = list(replies)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.replies.pop(0)


class BrokenJudge:
    model = "broken/judge"

    def __call__(self, prompt: str) -> str:
        raise TimeoutError("judge timed out")


# In a sentence the way an agent or a person might write it, per answer kind.
SENTENCES = {
    "id": "After comparing every candidate, the answer is {g}.",
    "state": "The quickest case closures were in {g}.",
    "month": "Final answer: {g} had significantly more cases than any other month.",
    "bant": "The lead does not meet the {g} criterion.",
    "stage": "The opportunity is listed in the wrong stage; it should be {g}.",
}
NONE_SENTENCES = {
    "id": "There is no agent that meets these criteria.",
    "state": "None of the states stands out.",
    "month": "No month has significantly more cases than the others.",
    "bant": "All four BANT factors are satisfied by this lead.",
}


def test_the_sample_has_every_exact_match_shape() -> None:
    assert len(ROWS) == 44 and len(EXACT) == 34
    assert len(LIST_ROWS) == 2 and len(NONE_ROWS) >= 8 and len(VALUE_ROWS) >= 20


@pytest.mark.parametrize("task", EXACT, ids=_id)
def test_own_ground_truth_scores_1(task: Task) -> None:
    answer = ", ".join(task.gold)
    result = grade(task, answer)
    assert isinstance(result, Grade)
    assert result.reward == 1.0 and result.grader == "exact_match"
    assert sorted(result.parsed_answer or []) == sorted(task.gold)
    assert result.grader_version == GRADER_VERSION and result.judge_model is None
    assert result.extraction == ("strip" if len(task.gold) == 1 else "deterministic")


@pytest.mark.parametrize("task", SINGLE, ids=_id)
@pytest.mark.parametrize("wrap", ['  "{g}"  ', "'{g}'", "\n{g}\n", "\"'{g}'\""])
def test_white_space_and_quotes_are_stripped(task: Task, wrap: str) -> None:
    result = grade(task, wrap.format(g=task.gold[0]))
    assert (result.reward, result.extraction) == (1.0, "strip")
    assert result.parsed_answer == task.gold


@pytest.mark.parametrize("task", SINGLE, ids=_id)
def test_quotes_inside_out_do_not_strip(task: Task) -> None:
    # strip('"') then strip("'"): a double quote inside single quotes survives the strip.
    result = grade(task, f"'\"{task.gold[0]}\"'")
    assert result.extraction != "strip"


@pytest.mark.parametrize("task", VALUE_ROWS, ids=_id)
def test_answer_inside_a_sentence_is_extracted(task: Task) -> None:
    kind = task_type(task.task).answer_kind
    result = grade(task, SENTENCES[kind].format(g=task.gold[0]))
    assert (result.reward, result.extraction) == (1.0, "deterministic")
    assert result.parsed_answer == task.gold
    assert result.metrics["strip_match"] is False


@pytest.mark.parametrize("task", NONE_ROWS, ids=_id)
@pytest.mark.parametrize("answer", ["None", "none", "NONE.", "  'None' "])
def test_none_rows_accept_none(task: Task, answer: str) -> None:
    assert grade(task, answer).reward == 1.0


@pytest.mark.parametrize("task", NONE_ROWS, ids=_id)
def test_none_rows_accept_a_sentence_saying_none(task: Task) -> None:
    kind = task_type(task.task).answer_kind
    result = grade(task, NONE_SENTENCES[kind])
    assert result.reward == 1.0 and result.parsed_answer == ["None"]


def test_policy_rows_read_no_violation_as_none_even_with_other_ids() -> None:
    task = next(t for t in NONE_ROWS if t.task == "policy_violation_identification")
    answer = "The agent on case 500Wt00000ABCDEIAX did not violate any knowledge article."
    result = grade(task, answer)
    assert result.reward == 1.0 and result.parsed_answer == ["None"]


@pytest.mark.parametrize(
    "task", [t for t in NONE_ROWS if task_type(t.task).answer_kind == "id"], ids=_id
)
def test_none_rows_reject_an_id(task: Task) -> None:
    other = next(t for t in VALUE_ROWS if task_type(t.task).answer_kind == "id")
    assert grade(task, other.gold[0]).reward == 0.0


@pytest.mark.parametrize(
    "task", [t for t in VALUE_ROWS if task_type(t.task).answer_kind == "id"], ids=_id
)
def test_a_different_id_scores_0(task: Task) -> None:
    others = [
        t.gold[0]
        for t in VALUE_ROWS
        if t.gold[0] != task.gold[0] and t.gold[0][:3] == task.gold[0][:3]
    ]
    wrong = others[0] if others else task.gold[0][:-1] + ("A" if task.gold[0][-1] != "A" else "B")
    result = grade(task, f"The answer is {wrong}.")
    assert result.reward == 0.0 and result.parsed_answer == [wrong]


@pytest.mark.parametrize(
    "task", [t for t in VALUE_ROWS if task_type(t.task).answer_kind == "id"], ids=_id
)
def test_the_expected_object_wins_over_other_ids(task: Task) -> None:
    # Another object's Id in the same text (a case, an account) is background, not the answer.
    answer = f"Looking at case 500Wt00000GhIjKIAX for account 001Wt00000LmNoPIAX: {task.gold[0]}"
    assert grade(task, answer).reward == 1.0


def test_a_lower_case_id_is_wrong() -> None:
    task = next(t for t in VALUE_ROWS if t.task == "case_routing")
    assert grade(task, task.gold[0].lower()).reward == 0.0


def test_the_15_character_form_does_not_match_an_18_character_truth() -> None:
    task = next(t for t in VALUE_ROWS if t.task == "lead_routing")
    assert grade(task, task.gold[0][:15]).reward == 0.0


@pytest.mark.parametrize(
    "task", [t for t in VALUE_ROWS if task_type(t.task).answer_kind != "id"], ids=_id
)
def test_a_different_value_of_the_same_kind_scores_0(task: Task) -> None:
    kind = task_type(task.task).answer_kind
    other = {"state": "CA", "month": "March", "bant": "Budget", "stage": "Discovery"}[kind]
    assert other != task.gold[0]
    assert grade(task, SENTENCES[kind].format(g=other)).reward == 0.0


@pytest.mark.parametrize("task", LIST_ROWS, ids=_id)
@pytest.mark.parametrize("layout", ["reversed", "bullets", "json", "sentence"])
def test_lists_in_any_order_and_layout(task: Task, layout: str) -> None:
    ids = list(reversed(task.gold))
    answer = {
        "reversed": ", ".join(ids),
        "bullets": "\n".join(f"- {i}" for i in ids),
        "json": json.dumps(ids),
        "sentence": f"The tasks to deprioritise are {' and '.join(ids)}; the rest fit the stage.",
    }[layout]
    result = grade(task, answer)
    assert result.reward == 1.0 and sorted(result.parsed_answer or []) == sorted(task.gold)


@pytest.mark.parametrize("task", LIST_ROWS, ids=_id)
def test_lists_missing_or_adding_an_item_score_0(task: Task) -> None:
    assert grade(task, ", ".join(task.gold[:-1])).reward == 0.0
    assert grade(task, ", ".join([*task.gold, "00TWt000002zzzzMAA"])).reward == 0.0


def test_a_repeated_id_counts_once() -> None:
    task = LIST_ROWS[0]
    answer = ", ".join(task.gold) + f". Again: {task.gold[0]}"
    assert grade(task, answer).reward == 1.0


@pytest.mark.parametrize("record_id", sorted({g for t in EXACT for g in t.gold if len(g) == 18}))
def test_checksum_of_every_real_id(record_id: str) -> None:
    assert checksum(record_id[:15]) == record_id[15:]


# ---------------------------------------------------------------- LLM judge (workbench protocol)


def _row(task_name: str, with_value: bool = True) -> Task:
    pool = VALUE_ROWS if with_value else NONE_ROWS
    return next(t for t in pool if t.task == task_name)


def test_judge_json_list_is_the_parsed_answer() -> None:
    task = _row("monthly_trend_analysis")
    judge = ScriptedJudge(json.dumps(task.gold))
    result = grade(
        task, "Cases spiked mid-year, more than in other months.", judge=judge, protocol="workbench"
    )
    assert (result.reward, result.extraction) == (1.0, "llm")
    assert result.judge_model == "scripted/judge" and result.judge_raw == json.dumps(task.gold)
    prompt = judge.prompts[0]
    assert "Cases spiked mid-year" in prompt and "months" in prompt and "JSON list" in prompt


def test_judge_is_not_asked_when_the_stripped_answer_matches() -> None:
    task = _row("case_routing")
    judge = ScriptedJudge()
    result = grade(task, f"'{task.gold[0]}'", judge=judge, protocol="workbench")
    assert result.reward == 1.0 and result.extraction == "strip" and judge.prompts == []
    assert result.judge_model is None


@pytest.mark.parametrize(
    ("reply", "parsed"),
    [
        ('["OR"]', ["OR"]),
        ("The state is [OR]", ["OR"]),
        ('```json\n["OR"]\n```', ["OR"]),
        ("[ 'OR' , \"WA\" ]", ["OR", "WA"]),
        ("OR", ["OR"]),
        ("  OR\n", ["OR"]),
        ('"OR"', ["OR"]),
        ("null", ["None"]),
        ("[null]", ["None"]),
        ("[]", []),
        ('{"state": "OR"}', ['{"state": "OR"}']),
    ],
)
def test_judge_replies_are_read_like_upstream(reply: str, parsed: list[str]) -> None:
    task = _row("best_region_identification")
    result = grade(
        task,
        "Probably somewhere in the Pacific Northwest.",
        judge=ScriptedJudge(reply),
        protocol="workbench",
    )
    assert result.parsed_answer == parsed and result.extraction == "llm"
    assert result.reward == (1.0 if parsed == ["OR"] else 0.0)


def test_judge_list_in_another_order_matches_a_list_truth() -> None:
    task = LIST_ROWS[0]
    judge = ScriptedJudge(json.dumps(list(reversed(task.gold))))
    assert grade(task, "see the tasks above", judge=judge, protocol="workbench").reward == 1.0


def test_judge_saying_none_matches_a_none_truth() -> None:
    task = _row("handle_time", with_value=False)
    assert (
        grade(
            task, "No agent qualifies.", judge=ScriptedJudge('["None"]'), protocol="workbench"
        ).reward
        == 1.0
    )


@pytest.mark.parametrize(
    "kind_task,words",
    [
        ("best_region_identification", ["US states", "two-letter"]),
        ("lead_qualification", ["BANT", "not met"]),
        ("wrong_stage_rectification", ["exactly one stage", "Negotiation"]),
        ("named_entity_disambiguation", ["Salesforce record Ids"]),
    ],
)
def test_judge_prompt_names_the_kind_of_entity(kind_task: str, words: list[str]) -> None:
    task = next(t for t in EXACT if t.task == kind_task)
    judge = ScriptedJudge('["x"]')
    grade(task, "some answer text", judge=judge, protocol="workbench")
    assert all(w in judge.prompts[0] for w in words)
    assert task.query.strip()[:40] in judge.prompts[0]


def test_a_failing_judge_falls_back_to_the_deterministic_extractor() -> None:
    task = _row("best_region_identification")
    result = grade(
        task, "Oregon had the quickest closures.", judge=BrokenJudge(), protocol="workbench"
    )
    assert (result.reward, result.extraction) == (1.0, "deterministic")
    assert result.judge_model == "broken/judge"
    assert result.judge_raw is not None and "TimeoutError" in result.judge_raw
    assert "judge timed out" in str(result.metrics["judge_error"])


def test_a_judge_without_a_model_attribute_is_named_by_its_type() -> None:
    task = _row("best_region_identification")
    result = grade(task, "Oregon.", judge=lambda prompt: '["OR"]', protocol="workbench")  # type: ignore[arg-type]
    assert result.reward == 1.0 and result.judge_model == "function"


def test_imported_grades_keep_the_upstream_reward() -> None:
    from crmarena_tui.graders import imported_grade

    result = imported_grade("exact_match", "005Wt000003NIYnIAO", 1, ["005Wt000003NIYnIAO"])
    assert (result.reward, result.extraction, result.imported) == (1.0, "imported", True)
    assert result.success and not grade(EXACT[0], "").success
