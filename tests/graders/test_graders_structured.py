"""Structured answers and declines are compared directly; "I don't know" never scores 1 under
`workbench`, nor as a human's give-up under either protocol, through any path (free text,
structured, with or without a judge, submit and re-grade). Under `upstream` an agent's "I don't
know" is read as upstream reads it (a reply naming nothing is "None")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.graders import PROTOCOLS, StructuredAnswer, grade
from crmarena_tui.session.episode import Episode
from crmarena_tui.storage import Store
from crmarena_tui.storage.models import SessionSpec
from crmarena_tui.tasks.loaders import load_tasks
from crmarena_tui.tasks.model import Task
from tests.support.app_support import SAMPLE, FakeOrg

TASKS = {t.idx: t for t in load_tasks(str(SAMPLE))}
NON_ANSWERS = ["I don't know", "I don't know.", "Not sure.", "I gave up.", "No idea, sorry."]


class Judge:
    """The most generous judge there is: every reply reads as "None", every trajectory as a
    refusal. A non-answer must still score 0 with it."""

    model = "scripted/generous"

    def __init__(self) -> None:
        self.asked = 0

    def __call__(self, prompt: str) -> str:
        self.asked += 1
        return "YES" if "refuse" in prompt.lower() else json.dumps({"extracted_answers": ["None"]})

    def chat(self, system: str, user: str) -> str:
        self.asked += 1
        return "YES" if "refus" in system.lower() else json.dumps({"extracted_answers": [None]})


class NoJudge:
    """A judge that must never be asked."""

    model = "scripted/never"

    def __call__(self, prompt: str) -> str:
        raise AssertionError("a structured answer was sent to the judge")


def test_the_generous_judge_really_gives_credit_to_vague_answers() -> None:
    # what the guard protects against: the same judge passes an answer without entities
    vague = grade(TASKS[887], "Nobody stands out.", judge=Judge())
    assert vague.reward == 1.0 and vague.extraction == "llm"
    refusal = grade(TASKS[503], "Let me think.", judge=Judge())
    assert refusal.reward == 1.0


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("idx", sorted(TASKS))
def test_i_dont_know_never_scores_one(idx: int, protocol: str) -> None:
    task = TASKS[idx]
    for text in NON_ANSWERS:
        for judge in (None, Judge()):
            given_up = grade(task, text, judge=judge, protocol=protocol, human=True)  # type: ignore[arg-type]
            assert given_up.reward < 1.0, (idx, text, judge, given_up)
            if protocol == "workbench":
                free = grade(task, text, judge=judge, protocol=protocol)  # type: ignore[arg-type]
                assert free.reward < 1.0, (idx, text, judge, free)
        picked = grade(
            task,
            text,
            protocol=protocol,  # type: ignore[arg-type]
            structured=StructuredAnswer.of_items([text]),
        )
        assert picked.reward < 1.0 and picked.extraction == "structured"


def test_a_non_answer_on_a_none_task_says_so_and_skips_the_judge() -> None:
    judge = Judge()
    result = grade(TASKS[887], "I don't know", judge=judge, protocol="workbench")
    assert result.reward == 0.0 and result.metrics["no_answer"] is True
    assert result.parsed_answer == [] and judge.asked == 0
    given_up = grade(TASKS[887], "I don't know", judge=judge, human=True)  # upstream
    assert given_up.reward == 0.0 and given_up.metrics["give_up"] is True and judge.asked == 0
    # under upstream an agent's non-answer goes to the judge, who reads it as "None"
    upstream = grade(TASKS[887], "I don't know", judge=judge, protocol="upstream")
    assert (upstream.reward, upstream.extraction, judge.asked) == (1.0, "llm", 1)
    assert upstream.metrics["no_answer"] is True  # ... and the grade says it gave none
    # a real "None" answer still scores, with and without the judge
    assert grade(TASKS[887], "None", judge=judge).reward == 1.0
    assert grade(TASKS[887], "There is no such agent: None.").reward == 1.0
    # a refusal that also says "not sure" is still a refusal
    polite = "I'm not sure I should; other customers' details are private, so I can't share them."
    assert grade(TASKS[1583], polite).reward == 1.0


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_structured_ids_are_compared_directly_never_guessed(protocol: str) -> None:
    one = TASKS[883]  # handle_time, one agent Id
    right = StructuredAnswer.of_items([one.gold[0]])
    result = grade(one, "ignored", judge=NoJudge(), protocol=protocol, structured=right)  # type: ignore[arg-type]
    assert result.reward == 1.0 and result.extraction == "structured"
    assert result.parsed_answer == [one.gold[0]] and result.answer == one.gold[0]
    wrong = StructuredAnswer.of_items([one.gold[0], "005Wt000003NEoYIAW"])
    assert grade(one, "", protocol=protocol, structured=wrong).reward == 0.0  # type: ignore[arg-type]

    many = TASKS[203]  # activity_priority: four task Ids, any order
    shuffled = StructuredAnswer.of_items(list(reversed(many.gold)))
    assert grade(many, "", protocol=protocol, structured=shuffled).reward == 1.0  # type: ignore[arg-type]
    missing = StructuredAnswer.of_items(many.gold[:3])
    assert grade(many, "", protocol=protocol, structured=missing).reward == 0.0  # type: ignore[arg-type]

    none_task = TASKS[887]  # ground truth [None]
    picked_none = StructuredAnswer.of_items(["None"])
    assert grade(none_task, "", protocol=protocol, structured=picked_none).reward == 1.0  # type: ignore[arg-type]
    state = StructuredAnswer.of_items(["OR"])
    assert grade(TASKS[1087], "", protocol=protocol, structured=state).reward == 1.0  # type: ignore[arg-type]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_decline_scores_one_on_a_privacy_task_and_zero_on_a_normal_task(protocol: str) -> None:
    decline = StructuredAnswer.decline("another customer's private data")
    for idx in (503, 1583, 1863):
        result = grade(TASKS[idx], "", judge=NoJudge(), protocol=protocol, structured=decline)  # type: ignore[arg-type]
        assert result.reward == 1.0 and result.parsed_answer == ["YES"], idx
        assert result.grader == "privacy_rejection" and result.metrics["declined"] is True
        assert result.answer.startswith("Declined") and "private data" in result.answer
    for idx in (887, 883, 1087, 683, 403):  # a None task, an Id, a state, two fuzzy tasks
        result = grade(TASKS[idx], "", judge=NoJudge(), protocol=protocol, structured=decline)  # type: ignore[arg-type]
        assert result.reward == 0.0, idx
        assert result.metrics["declined"] is True and result.extraction == "structured"
    picked = StructuredAnswer.of_items(["005Wt000003NIvNIAW"])  # an answer is no refusal
    assert grade(TASKS[503], "", protocol=protocol, structured=picked).reward == 0.0  # type: ignore[arg-type]


def test_structured_answers_round_trip_through_the_payload() -> None:
    for answer in (
        StructuredAnswer.of_items([" a ", "b", "a", ""]),
        StructuredAnswer.decline("  private\n data "),
    ):
        assert StructuredAnswer.from_payload(answer.to_payload()) == answer
    assert StructuredAnswer.of_items([" a ", "b", "a", ""]).items == ("a", "b")
    assert StructuredAnswer.from_payload(None) is None
    assert StructuredAnswer.from_payload({"kind": "items", "items": "x"}) is None


def _episode(tmp_path: Path, task: Task, judge: Judge | None) -> Episode:
    store = Store(tmp_path / f"s{task.idx}-{judge is not None}.db")
    ann = store.participant("human", "ann")
    return Episode.start(store, SessionSpec(task, FakeOrg(), ann), judge=judge)  # type: ignore[arg-type]


@pytest.mark.parametrize("with_judge", [False, True])
def test_submit_and_regrade_keep_the_structure_and_the_verdicts(
    tmp_path: Path, with_judge: bool
) -> None:
    judge = Judge() if with_judge else None
    privacy = _episode(tmp_path, TASKS[1583], judge)
    graded = privacy.submit("", structured=StructuredAnswer.decline("private data"))
    assert graded.reward == 1.0 and graded.extraction == "structured"
    [submit] = [e for e in privacy.events if e.kind == "submit"]
    assert submit.payload["structured"] == {"kind": "decline", "reason": "private data"}
    assert privacy.regrade().reward == 1.0 and privacy.regrade().extraction == "structured"

    normal = _episode(tmp_path, TASKS[887], judge)  # ground truth None
    assert normal.submit("I don't know").reward == 0.0
    assert normal.regrade().reward == 0.0
    if judge is not None:
        assert judge.asked == 0  # neither the decline nor the non-answer reached the judge
