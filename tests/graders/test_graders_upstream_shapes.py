"""Replies the offline extractor once misread (issue 34, item 8), each with the reward upstream's
`Evaluator.evaluate` gives it (`upstream_reward` restates it: the strip rule, then the judge's
sorted `extracted_answers` against the sorted ground truth).

The shapes: several Ids in one sentence ("You bought two items that day: X and Y", where a pick
cue such as "most recent ... is" or "so" once kept the first Id only: upstream's judge, told to
extract every Id, returns both), Ids listed beside Id-like tokens (dates, amounts, phone numbers),
a lead that "cannot be qualified" for a reason that names no BANT factor (the judge finds no factor
and answers "None"; the extractor once read no answer), the same with a factor named ("cannot be
qualified" once counted as "qualified", a met cue), "they need approval" (the verb, not the factor)
and answers in capitals or lower case. The words are this project's own.

Each reply is graded offline (no judge) and with a scripted judge replying what a judge following
upstream's instruction extracts: both must give upstream's reward, and the offline extractor must
read exactly those items. The same replies are in tests/data/graders/extraction_set.json (for
benchmarks/bench_extraction.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.graders import grade
from crmarena_tui.graders.exact_match import answer_kind
from crmarena_tui.graders.extract import extract_items
from tests.graders.test_graders_upstream_answers import NONE, Judge, N, task_for, upstream_reward

P1, P2 = "01tWt000006hV8rIAE", "01tWt000006hVAvIAM"
T1, T2, T3 = "00TWt000002z48wMAA", "00TWt000002ysSjMAI", "00TWt000002yu6pMAA"
A1, A2 = "005Wt000003NIvNIAW", "005Wt000003NGdSIAW"
NED, AP, LQ = "named_entity_disambiguation", "activity_priority", "lead_qualification"
BOTH = [P1, P2]

# (task type, ground truth, reply, what upstream's judge extracts, upstream's reward)
SHAPES: list[tuple[str, list[str | None], str, list[str], float]] = [
    # several Ids in prose: the judge takes every one, so a one-Id ground truth scores 0
    (NED, [P1], f"You bought two items that day: {P1} and {P2}.", BOTH, 0.0),
    (
        NED,
        [P1],
        f"Your most recent order is from June 2, and you bought two items that day: {P1} and {P2}.",
        BOTH,
        0.0,
    ),
    (NED, [P1], f"You bought two items that day, so it is {P1} or {P2}.", BOTH, 0.0),
    (NED, [P1], f"So, you bought two items that day: {P1} and {P2}.", BOTH, 0.0),
    (NED, [P1], f"The best match is {P1} and {P2}; you bought both that day.", BOTH, 0.0),
    (NED, [P1], f"Therefore the products are {P1} as well as {P2}.", BOTH, 0.0),
    (NED, [P1], f"The most recent purchase is {P1}, {P2} or {P1} again.", BOTH, 0.0),
    (NED, [P1], f"Your latest order, from June 2, has one product: {P1}.", [P1], 1.0),
    (NED, [P2], f"The most recent purchase is {P2}.", [P2], 1.0),
    ("case_routing", [A1], f"Assign it to {A1} or {A2}: both know the product.", [A1, A2], 0.0),
    (
        "lead_routing",
        [A2],
        f"Assign the lead to {A2}, ahead of {A1} who has more open leads.",
        [A2],
        1.0,
    ),
    # Ids in a list beside other Id-like tokens
    (AP, [T1, T2], f"Tasks to fix (due 2024-06-12): {T1}, {T2}.", [T1, T2], 1.0),
    (AP, [T1, T2], f"- {T1} (call, due 06/12)\n- {T2} (email, $12,500 deal)", [T1, T2], 1.0),
    (AP, [T1, T2], f"{T1}; {T2}. Reach the owner at 4155550123.", [T1, T2], 1.0),
    (AP, [T1, T2], f"Tasks {T1}, {T2} and {T3} don't fit the Quote stage.", [T1, T2, T3], 0.0),
    (NED, [P1], f"Your order of 2024-06-02 (total $1,249.00) had product {P1}.", [P1], 1.0),
    # mixed case: the judge copies Ids as written, and names factors, states, months as usual
    (NED, [P1], f"That is product {P1.lower()}.", [P1.lower()], 0.0),
    (LQ, ["Budget", "Timeline"], "BUDGET and TIMELINE are not met.", ["Budget", "Timeline"], 1.0),
    (LQ, ["Budget", "Authority"], "budget, authority", ["Budget", "Authority"], 1.0),
    (LQ, ["Authority"], "authority", ["Authority"], 1.0),  # the strip rule is case-sensitive
    ("monthly_trend_analysis", ["June"], "Cases peaked in JUNE.", ["June"], 1.0),
    # several states or months after a pick, written as names
    (
        "best_region_identification",
        ["TX"],
        "So the quickest states are texas and georgia.",
        ["TX", "GA"],
        0.0,
    ),
    (
        "monthly_trend_analysis",
        ["May", "June"],
        "So cases spiked in May and June.",
        ["May", "June"],
        1.0,
    ),
    # a lead that cannot be qualified, for a reason that is no BANT factor: "None"
    (
        LQ,
        N,
        "The lead cannot be qualified because the call transcripts never got past introductions.",
        NONE,
        1.0,
    ),
    (LQ, N, "I cannot qualify this lead: the prospect never answered our calls.", NONE, 1.0),
    (LQ, N, "The lead cannot be qualified at this time, since the contact left.", NONE, 1.0),
    (
        LQ,
        N,
        "Unfortunately the lead cannot be qualified, as the call was about a support case.",
        NONE,
        1.0,
    ),
    (LQ, N, "Based on the transcripts, this lead is not qualified.", NONE, 1.0),
    (LQ, N, "The lead doesn't qualify: it is a duplicate record.", NONE, 1.0),
    (LQ, N, "The lead does not qualify; it went with a competitor.", NONE, 1.0),
    (LQ, N, "It cannot be qualified because the lead record is a duplicate.", NONE, 1.0),
    (LQ, N, "Lead cannot be qualified - the transcripts are empty.", NONE, 1.0),
    (LQ, N, "THE LEAD CANNOT BE QUALIFIED BECAUSE THE CONTACT IS A STUDENT.", NONE, 1.0),
    (LQ, N, "Lead status: cannot be qualified (contact unreachable).", NONE, 1.0),
    (LQ, N, "The lead can not be qualified: the company is going out of business.", NONE, 1.0),
    (LQ, ["Authority"], "This lead is unqualified: the company was acquired.", NONE, 0.0),
    (LQ, ["Need"], "I won't qualify this lead, the transcripts only cover scheduling.", NONE, 0.0),
    # ... and for a reason that is a factor: that factor
    (
        LQ,
        ["Budget"],
        "The lead cannot be qualified because the budget was never discussed.",
        ["Budget"],
        1.0,
    ),
    (
        LQ,
        ["Budget", "Authority"],
        "This lead cannot be qualified: no budget, and the contact lacks authority.",
        ["Budget", "Authority"],
        1.0,
    ),
    (
        LQ,
        ["Authority"],
        "Not qualified. The prospect said they need approval from their CFO, so Authority is "
        "missing.",
        ["Authority"],
        1.0,
    ),
    (LQ, ["Timeline"], "The lead cannot be qualified: the timeline is unknown.", ["Timeline"], 1.0),
    (LQ, N, "The lead cannot be qualified: the timeline is unknown.", ["Timeline"], 0.0),
]
SET = json.loads(
    (Path(__file__).parents[1] / "data" / "graders" / "extraction_set.json").read_text("utf-8")
)


def test_the_shapes_are_many_and_their_rewards_are_upstreams() -> None:
    assert len(SHAPES) >= 30
    for _, gold, answer, extracted, reward in SHAPES:
        assert upstream_reward(gold, answer, list(extracted)) == reward, answer
    rewards = [reward for *_, reward in SHAPES]
    assert rewards.count(0.0) >= 8 and rewards.count(1.0) >= 8


@pytest.mark.parametrize(("k", "case"), list(enumerate(SHAPES)), ids=lambda v: str(v)[:60])
def test_offline_and_with_the_judge_each_reply_gets_upstreams_reward(
    k: int, case: tuple[str, list[str | None], str, list[str], float]
) -> None:
    name, gold, answer, extracted, reward = case
    assert sorted(extract_items(answer, answer_kind(name), name)) == sorted(extracted)
    assert grade(task_for(name, gold, k), answer, protocol="upstream").reward == reward
    judge = Judge(json.dumps({"extracted_answers": extracted}))
    assert grade(task_for(name, gold, k), answer, judge=judge, protocol="upstream").reward == reward


def test_every_shape_is_in_the_extraction_set_with_the_same_items() -> None:
    listed = {(e["task"], e["answer"]): sorted(e["expected"]) for e in SET}
    missing = [a for n, _, a, x, _ in SHAPES if listed.get((n, a)) != sorted(x)]
    assert missing == []
