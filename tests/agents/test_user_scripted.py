"""The scripted user on the real sample rows: a sentence per turn, ###STOP### on an answer,
position read from the history alone."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from crmarena_tui.agents.base import STOP, UserSimulator
from crmarena_tui.agents.user_scripted import (
    NOT_SURE,
    NOTHING_MORE,
    ScriptedUser,
    answerable,
    context_line,
    is_answer,
    is_format_instruction,
    split_sentences,
)
from crmarena_tui.tasks.model import Task


@pytest.fixture
def tasks(sample_rows_path: Path) -> dict[int, Task]:
    rows = json.loads(sample_rows_path.read_text())
    return {r["idx"]: Task(**r, source="hf:b2b_interactive", interactive=True) for r in rows}


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_sentences_of_real_queries(tasks: dict[int, Task]) -> None:
    assert split_sentences(tasks[1083].query) == [
        "Which states had the quickest case closures in November 2021?",
        "Return only the two-letter abbreviation of the most matching state (eg. CA).",
    ]
    assert split_sentences(tasks[3].query)[2].startswith("Return only one or several")
    assert split_sentences(tasks[3].query)[2].endswith(
        "(i.e. 'Budget', 'Authority', 'Need', 'Timeline')."
    )
    routing = split_sentences(tasks[1483].query)
    assert len(routing) == 5 and routing[2].startswith("## Given Case\n- Case Subject:")
    assert split_sentences(tasks[503].query) == [tasks[503].query]
    for task in tasks.values():  # nothing is lost or reordered
        assert squash(" ".join(split_sentences(task.query))) == squash(task.query)


def play(user: ScriptedUser, task: Task, agent_lines: list[str]) -> list[str]:
    history = [{"role": "user", "content": user.opening(task)}]
    replies = []
    for line in agent_lines:
        history.append({"role": "agent", "content": line})
        reply = user.reply(task, history)
        replies.append(reply)
        history.append({"role": "user", "content": reply})
        if reply == STOP:
            break
    return replies


def test_every_multi_sentence_row_is_revealed_in_order_then_stopped(tasks: dict[int, Task]) -> None:
    user = ScriptedUser()
    multi = [t for t in tasks.values() if len(user.pieces(t)) > 1]
    assert len(multi) >= 14
    for task in multi:
        pieces = user.pieces(task)
        assert user.opening(task) == f"Hi! {pieces[0]}"
        questions = ["Could you tell me more?"] * (len(pieces) - 1)
        replies = play(user, task, [*questions, "The answer is 005Wt000003NInKIAW."])
        assert replies == [*pieces[1:], STOP], task.idx


def test_a_premature_answer_gets_the_missing_detail(tasks: dict[int, Task]) -> None:
    task = tasks[103]  # month trend: 3 sentences, the product Id in the second, the last a
    # format instruction the customer does not say
    replies = play(ScriptedUser(), task, ["It is March.", "It is still March.", "March."])
    assert replies == ["The associated product Id is 01tWt000006hV8LIAU.", STOP]


def test_questions_after_full_reveal_get_no_new_facts(tasks: dict[int, Task]) -> None:
    task = tasks[503]  # one sentence
    replies = play(ScriptedUser(patience=2), task, ["Which product?", "Which site?", "How many?"])
    assert replies == [NOTHING_MORE, NOTHING_MORE, STOP]
    assert play(ScriptedUser(), task, ["I cannot share internal installation data."]) == [STOP]


def test_closing_pleasantries_are_not_clarifying_questions() -> None:
    assert is_answer("The state is OR. Is there anything else I can help you with?")
    assert is_answer("I'm sorry, I can't share that. Let me know if you need anything else?")
    assert is_answer("Which one? It is 0Q0Wt000001WOwHKAW.")
    assert not is_answer("Which quote do you mean?")
    assert not is_answer("Do you mean the lead from Montana? Please confirm.")


def test_position_comes_from_the_history_alone(tasks: dict[int, Task]) -> None:
    task = tasks[1483]
    pieces = ScriptedUser().pieces(task)
    history = [
        {"role": "user", "content": ScriptedUser().opening(task)},
        {"role": "agent", "content": "Which quote?"},
        {"role": "user", "content": pieces[1]},
        {"role": "agent", "content": "And?"},
    ]
    assert ScriptedUser().reply(task, history) == pieces[2]
    assert ScriptedUser().reply(task, history) == ScriptedUser().reply(task, list(history))
    assert ScriptedUser().reply(task, []) == ScriptedUser().opening(task)


def test_never_says_the_ground_truth_unless_the_query_does(tasks: dict[int, Task]) -> None:
    user = ScriptedUser()
    for task in tasks.values():
        said = [user.opening(task), *play(user, task, ["Could you clarify?"] * 8)]
        for truth in task.gold:
            if truth != "None" and truth not in task.query:
                assert all(truth not in line for line in said), task.idx


def test_satisfies_the_user_simulator_protocol() -> None:
    assert isinstance(ScriptedUser(), UserSimulator)
    assert ScriptedUser().name == "scripted"


def test_a_question_it_cannot_answer_gets_not_sure_once(tasks: dict[int, Task]) -> None:
    task = tasks[103]  # month trend: 2 sentences said, nothing about account numbers
    pieces = ScriptedUser().pieces(task)
    replies = play(
        ScriptedUser(),
        task,
        [
            "What is your account number?",  # not in the request: not sure, no recital
            "And your phone number?",  # asked again: the user goes on
            "It is March.",
        ],
    )
    assert replies == [NOT_SURE, pieces[1], STOP]
    assert len(NOT_SURE) < 60 and NOT_SURE.startswith("I'm not sure")
    # a question about what the rest of the request mentions gets that part
    asked = play(ScriptedUser(), task, ["Which product do you mean?"])
    assert asked == [pieces[1]]


def test_answerable_questions() -> None:
    untold = ["The associated product Id is 01tWt000006hV8LIAU."]
    assert answerable("Could you tell me more?", untold)
    assert answerable("Which product?", untold)
    assert answerable("And?", untold)
    assert not answerable("What's the order number on your invoice?", untold)


def test_the_customer_never_recites_format_instructions(tasks: dict[int, Task]) -> None:
    user = ScriptedUser()
    for task in tasks.values():
        said = [user.opening(task), *play(user, task, ["Could you clarify?"] * 8)]
        assert not any("Return only" in line or "return None" in line for line in said), task.idx
    assert is_format_instruction("If no violation is found, return None.")
    assert is_format_instruction("Return only the Id of the agent.")
    assert not is_format_instruction("If not, which stage should it be in?")


def test_a_question_about_the_shared_context_gets_that_line(tasks: dict[int, Task]) -> None:
    task = tasks[3]  # lead qualification: "Lead Id to be considered is: 00QWt000008989sMAA"
    replies = play(ScriptedUser(), task, ["What is the lead Id?"])
    assert replies == [f"It's in the details I was given: Lead Id to be considered is: {LEAD}"]
    assert context_line("What is your account number?", task.metadata.required) is None
    # the line is not a piece of the request: the next question still gets the next sentence
    pieces = ScriptedUser().pieces(task)
    assert play(ScriptedUser(), task, ["What is the lead Id?", "Tell me more?"])[1] == pieces[1]


LEAD = "00QWt000008989sMAA"
