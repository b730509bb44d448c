"""Under `upstream`, realistic answers get the reward upstream's own evaluator gives them.

Each case is an answer an agent (or a person) might give, the ground truth, and the entities a
judge that follows upstream's extraction instruction returns for it: the Ids (states, months,
BANT factors, a stage) the reply gives, all of them when it gives several, and "None" when it
gives none, be it a "nothing found" or a give-up. The expected reward is what upstream's
`Evaluator.evaluate` (crm_sandbox/env/env.py) does with that reply, restated in `upstream_reward`:
a single ground-truth item equal to the answer stripped of white space and then quotes scores 1
without the judge; otherwise the judge's `extracted_answers` (a null item 0 read as "None"), sorted,
must equal the sorted ground truth (a null item 0 read as "None").

Graded twice: with a scripted judge replying that JSON object (every case must match), and offline,
where the extractor stands in for the judge and follows the same instruction (at most 3% of the
cases may differ, the extractor's target). Either way the grade says `no_answer` exactly for the
answers that give none.
"""

from __future__ import annotations

import json

import pytest

from crmarena_tui.graders import grade
from crmarena_tui.tasks.model import Task

A1, A2, A3 = "005Wt000003NIvNIAW", "005Wt000003NGdSIAW", "005Wt000003NBp4IAG"
K1, K2 = "ka0Wt000000EFx3IAG", "ka0Wt000000EGb1IAG"
P1, P2 = "01tWt000006hV8rIAE", "01tWt000006hVAvIAM"
I1, I2 = "a03Wt00000JqnKtIAJ", "a03Wt00000JqnKuIAJ"
T1, T2, T3 = "00TWt000002z48wMAA", "00TWt000002ysSjMAI", "00TWt000002yu6pMAA"
N = [None]  # a ground truth of None, or a judge's null
NONE = ["None"]

GIVE_UPS = {
    "I don't know.",
    "Sorry, I gave up: the queries kept failing.",
    "I'm not sure which agent that would be.",
    "I could not complete the analysis.",
    "Unable to determine the answer from the available data.",
    "I ran out of time before I could finish.",
    "No idea, the data is inconclusive.",
    "I can't tell which one it is.",
    "I was not able to work out the month.",
    "I'm unsure which factors apply here.",
    "I couldn't decide on a stage.",
    "I cannot answer this with the records I can see.",
    "Not certain, sorry.",
    "I don't know which tasks those are.",
}

# (task type, ground truth, answer, what a judge following upstream's instruction extracts)
CASES: list[tuple[str, list[str | None], str, list[str | None]]] = [
    # handle_time
    ("handle_time", [A1], A1, [A1]),
    ("handle_time", [A1], f" '{A1}' ", [A1]),
    ("handle_time", [A1], f"The agent with the shortest average handle time is {A1}.", [A1]),
    ("handle_time", [A1], f"Agent {A2} has the lowest average handle time.", [A2]),
    ("handle_time", N, "None", NONE),
    ("handle_time", N, "No agent closed any cases in that period, so: None.", NONE),
    ("handle_time", N, "I couldn't find any cases closed in the second quarter.", NONE),
    ("handle_time", N, "I don't know.", NONE),
    ("handle_time", [A1], "I don't know.", NONE),
    ("handle_time", [A1], "Sorry, I gave up: the queries kept failing.", NONE),
    # transfer_count
    ("transfer_count", [A2], A2, [A2]),
    ("transfer_count", [A2], f"{A2} had the fewest case transfers (2).", [A2]),
    ("transfer_count", [A2], f"**Answer:** {A2}", [A2]),
    ("transfer_count", [A2], f"It's {A3}.", [A3]),
    ("transfer_count", N, "There were no transferred cases in that window.", NONE),
    ("transfer_count", N, "I'm not sure which agent that would be.", NONE),
    ("transfer_count", [A2], "I could not complete the analysis.", NONE),
    # case_routing
    ("case_routing", [A3], A3, [A3]),
    ("case_routing", [A3], f"Route the case to {A3}.", [A3]),
    ("case_routing", [A3], f"The best agent for this case is {A3}", [A3]),
    ("case_routing", [A3], f"I recommend {A1}.", [A1]),
    ("case_routing", [A3], "Unable to determine the answer from the available data.", NONE),
    ("case_routing", [A3], "I ran out of time before I could finish.", NONE),
    # sales_amount_understanding
    ("sales_amount_understanding", [A1], f"{A1}", [A1]),
    ("sales_amount_understanding", [A1], f"Top seller last quarter: {A1}", [A1]),
    ("sales_amount_understanding", [A1], f"The agent with the highest sales is {A2}.", [A2]),
    ("sales_amount_understanding", N, "No orders were placed in that period.", NONE),
    ("sales_amount_understanding", N, "I didn't find any orders for that quarter.", NONE),
    ("sales_amount_understanding", N, "No idea, the data is inconclusive.", NONE),
    # sales_cycle_understanding
    ("sales_cycle_understanding", [A2], A2, [A2]),
    ("sales_cycle_understanding", [A2], f"{A2} closes deals fastest.", [A2]),
    ("sales_cycle_understanding", [A2], f"The quickest sales cycle belongs to {A1}.", [A1]),
    ("sales_cycle_understanding", N, "None of the agents signed a contract in that period.", NONE),
    ("sales_cycle_understanding", N, "I can't tell which one it is.", NONE),
    # conversion_rate_comprehension
    ("conversion_rate_comprehension", [A3], A3, [A3]),
    ("conversion_rate_comprehension", [A3], f"The lowest conversion rate is {A3}'s.", [A3]),
    ("conversion_rate_comprehension", [A3], f"Lowest conversion rate: {A2}", [A2]),
    ("conversion_rate_comprehension", N, "No leads were created in that time frame.", NONE),
    ("conversion_rate_comprehension", [A3], "I'm not sure which agent that would be.", NONE),
    # lead_routing
    ("lead_routing", [A1], A1, [A1]),
    ("lead_routing", [A1], f"Assign the lead to {A1}.", [A1]),
    ("lead_routing", [A1], f"I'd give this lead to {A3}.", [A3]),
    ("lead_routing", [A1], "I cannot answer this with the records I can see.", NONE),
    # top_issue_identification
    ("top_issue_identification", [I1], I1, [I1]),
    ("top_issue_identification", [I1], f"The most reported issue is {I1}.", [I1]),
    ("top_issue_identification", [I1], f"Top issue: {I2}", [I2]),
    ("top_issue_identification", N, "There were no cases for that product last year.", NONE),
    ("top_issue_identification", N, "I was unable to find any case for that product.", NONE),
    ("top_issue_identification", N, "Not certain, sorry.", NONE),
    # policy_violation_identification
    ("policy_violation_identification", [K1], K1, [K1]),
    ("policy_violation_identification", [K1], f"The agent violated article {K1}.", [K1]),
    ("policy_violation_identification", [K1], f"This breaches {K2}.", [K2]),
    ("policy_violation_identification", N, "None", NONE),
    ("policy_violation_identification", N, "I couldn't identify a policy violation.", NONE),
    ("policy_violation_identification", N, "No violation was found.", NONE),
    ("policy_violation_identification", N, "The agent did not violate any policy.", NONE),
    ("policy_violation_identification", N, "I couldn't locate any article that was broken.", NONE),
    ("policy_violation_identification", N, "I don't know.", NONE),
    ("policy_violation_identification", [K1], "I couldn't identify a policy violation.", NONE),
    # quote_approval
    ("quote_approval", [K2], K2, [K2]),
    ("quote_approval", [K2], f"The quote conflicts with {K2}.", [K2]),
    ("quote_approval", [K2], f"It violates {K1}.", [K1]),
    ("quote_approval", N, "None, the quote is fine.", NONE),
    ("quote_approval", N, "The quote complies with all company policies.", NONE),
    ("quote_approval", N, "I found no policy that this quote breaks.", NONE),
    ("quote_approval", N, "I could not complete the analysis.", NONE),
    ("quote_approval", [K2], "The quote complies with all company policies.", NONE),
    # invalid_config
    ("invalid_config", [K1], K1, [K1]),
    ("invalid_config", [K1], f"The configuration breaks rule {K1}.", [K1]),
    ("invalid_config", [K1], f"{K2}", [K2]),
    ("invalid_config", N, "No configuration rule is violated.", NONE),
    ("invalid_config", N, "I'm sorry, I couldn't locate any rule that this setup breaks.", NONE),
    # named_entity_disambiguation
    ("named_entity_disambiguation", [P1], P1, [P1]),
    ("named_entity_disambiguation", [P1], f"The customer means product {P1}.", [P1]),
    ("named_entity_disambiguation", [P1], f"That would be {P2}.", [P2]),
    (
        "named_entity_disambiguation",
        N,
        "I'm sorry, I couldn't locate any order that matches.",
        NONE,
    ),
    ("named_entity_disambiguation", N, "No purchase matches that description.", NONE),
    ("named_entity_disambiguation", [P1], "I can't tell which one it is.", NONE),
    # activity_priority
    ("activity_priority", [T1, T2], f"{T1}, {T2}", [T1, T2]),
    ("activity_priority", [T1, T2], f"{T2}, {T1}", [T2, T1]),
    (
        "activity_priority",
        [T1, T2],
        f"The tasks that don't fit the stage are {T1} and {T2}.",
        [T1, T2],
    ),
    ("activity_priority", [T1, T2], f"{T1}", [T1]),
    ("activity_priority", [T1, T2], f"{T1}, {T2}, {T3}", [T1, T2, T3]),
    ("activity_priority", [T1, T2], "I don't know which tasks those are.", NONE),
    ("activity_priority", N, "None of the open tasks conflict with the stage.", NONE),
    # best_region_identification
    ("best_region_identification", ["TX"], "TX", ["TX"]),
    ("best_region_identification", ["TX"], "Texas closes cases the quickest.", ["TX"]),
    ("best_region_identification", ["TX"], "The fastest state is CA.", ["CA"]),
    ("best_region_identification", ["TX", "GA"], "TX, GA", ["TX", "GA"]),
    (
        "best_region_identification",
        ["TX", "GA"],
        "Georgia and Texas are tied for fastest.",
        ["GA", "TX"],
    ),
    ("best_region_identification", N, "No cases were closed in that period.", NONE),
    ("best_region_identification", ["TX"], "I'm not sure which agent that would be.", NONE),
    # monthly_trend_analysis
    ("monthly_trend_analysis", ["May"], "May", ["May"]),
    ("monthly_trend_analysis", ["May"], "Cases spiked in May.", ["May"]),
    ("monthly_trend_analysis", ["May"], "The busiest month was August.", ["August"]),
    ("monthly_trend_analysis", ["May", "July"], "May and July", ["May", "July"]),
    ("monthly_trend_analysis", ["May"], "I was not able to work out the month.", NONE),
    # lead_qualification
    ("lead_qualification", ["Budget"], "Budget", ["Budget"]),
    ("lead_qualification", ["Budget", "Timeline"], "Budget, Timeline", ["Budget", "Timeline"]),
    (
        "lead_qualification",
        ["Authority"],
        "The lead meets Budget, Need and Timeline but fails Authority.",
        ["Authority"],
    ),
    ("lead_qualification", ["Need"], "Timeline is the missing factor.", ["Timeline"]),
    ("lead_qualification", N, "All BANT criteria are met.", NONE),
    ("lead_qualification", ["Budget"], "I'm unsure which factors apply here.", NONE),
    # wrong_stage_rectification
    ("wrong_stage_rectification", ["Quote"], "Quote", ["Quote"]),
    (
        "wrong_stage_rectification",
        ["Quote"],
        "The opportunity should be moved to Quote.",
        ["Quote"],
    ),
    ("wrong_stage_rectification", ["Quote"], "Set the stage to Negotiation.", ["Negotiation"]),
    ("wrong_stage_rectification", ["Discovery"], "It belongs in Discovery.", ["Discovery"]),
    ("wrong_stage_rectification", ["Quote"], "I couldn't decide on a stage.", NONE),
]


def task_for(name: str, gold: list[str | None], k: int) -> Task:
    return Task(idx=k, task=name, query="(the question)", answer=gold, reward_metric="exact_match")


def upstream_reward(gold: list[str | None], answer: str, extracted: list[str | None]) -> float:
    """What upstream's evaluate returns for this answer when its judge extracted `extracted`."""
    wanted = ["None"] if gold[0] is None else gold
    if len(wanted) == 1 and answer.strip().strip('"').strip("'") == wanted[0]:
        return 1.0
    items = ["None"] if extracted[0] is None else extracted
    return 1.0 if sorted(items) == sorted(wanted) else 0.0  # type: ignore[type-var]


class Judge:
    """Replies with the entities of one case, as upstream's judge was asked to."""

    model = "scripted/upstream-judge"

    def __init__(self, reply: str) -> None:
        self.reply, self.asked = reply, 0

    def chat(self, system: str, user: str) -> str:
        self.asked += 1
        return self.reply

    def __call__(self, prompt: str) -> str:
        raise AssertionError("upstream asks its judge with a system message")


def test_the_cases_are_many_and_varied() -> None:
    assert len(CASES) >= 100
    answers = [answer for _, _, answer, _ in CASES]
    assert sum(a in GIVE_UPS for a in answers) >= 20
    found_nothing = [a for a, (_, g, _, e) in zip(answers, CASES, strict=True) if e == NONE]
    assert len(found_nothing) - sum(a in GIVE_UPS for a in found_nothing) >= 25
    rewards = [upstream_reward(g, a, e) for _, g, a, e in CASES]
    assert 30 <= sum(rewards) <= len(CASES) - 30  # rights and wrongs both


@pytest.mark.parametrize(("k", "case"), list(enumerate(CASES)), ids=lambda v: str(v)[:60])
def test_with_the_judge_every_answer_gets_upstreams_reward(
    k: int, case: tuple[str, list[str | None], str, list[str | None]]
) -> None:
    name, gold, answer, extracted = case
    judge = Judge(json.dumps({"extracted_answers": extracted}))
    got = grade(task_for(name, gold, k), answer, judge=judge, protocol="upstream")
    assert got.reward == upstream_reward(gold, answer, extracted)
    assert got.metrics.get("no_answer", False) is (answer in GIVE_UPS)
    # the strip rule comes first; every other answer is read by the judge, give-ups too
    assert judge.asked == (0 if got.extraction == "strip" else 1)


def test_offline_the_extractor_stands_in_for_upstreams_judge() -> None:
    wrong = []
    for k, (name, gold, answer, extracted) in enumerate(CASES):
        got = grade(task_for(name, gold, k), answer, protocol="upstream")
        assert got.metrics.get("no_answer", False) is (answer in GIVE_UPS), answer
        if got.reward != upstream_reward(gold, answer, extracted):
            wrong.append(answer)
    assert len(wrong) <= 0.03 * len(CASES), wrong


@pytest.mark.parametrize(
    ("reply", "gold", "reward"),
    [
        ("None", N, 1.0),  # a bare "None" reply: ["None"]
        ("", N, 1.0),  # an empty reply: ["None"] too
        (A1, [A1], 1.0),  # not JSON: the whole reply, stripped, is the one item
        (f"[{A1}]", [A1], 0.0),  # no bracket parsing upstream
        ('{"extracted_answers": [null]}', N, 1.0),  # a null item 0 is "None"
        ('{"extracted_answers": []}', N, 0.0),  # upstream's evaluation raised: reward 0
    ],
)
def test_replies_that_are_not_a_list_of_entities(
    reply: str, gold: list[str | None], reward: float
) -> None:
    answer = "I couldn't find the agent you mean, sorry about that."
    got = grade(task_for("handle_time", gold, 1), answer, judge=Judge(reply), protocol="upstream")
    assert got.reward == reward


def test_under_workbench_a_give_up_scores_0_and_nothing_found_reads_as_none() -> None:
    for k, (name, gold, answer, extracted) in enumerate(CASES):
        if gold != N or extracted != NONE:
            continue
        judge = Judge(json.dumps({"extracted_answers": extracted}))
        got = grade(task_for(name, gold, k), answer, judge=judge, protocol="workbench")
        offline = grade(task_for(name, gold, k), answer, protocol="workbench")
        expected = 0.0 if answer in GIVE_UPS else 1.0
        assert (got.reward, offline.reward) == (expected, expected), answer


def test_the_result_says_how_a_give_up_was_read() -> None:
    from crmarena_tui.graders.explain import compared

    task = task_for("handle_time", N, 1)
    upstream = grade(task, "I don't know.", protocol="upstream")
    assert upstream.reward == 1.0
    assert 'upstream\'s grading reads as "None"' in compared(upstream, "exact_match", N)
    for given_up in (
        grade(task, "I don't know.", protocol="workbench"),
        grade(task, "I don't know.", protocol="upstream", human=True),
    ):
        assert given_up.reward == 0.0
        assert "never earns credit" in compared(given_up, "exact_match", N)


@pytest.mark.parametrize("protocol", ["upstream", "workbench"])
def test_a_fuzzy_give_up_is_scored_by_its_words_and_says_no_answer(protocol: str) -> None:
    task = Task(
        idx=9, task="knowledge_qa", query="q", answer=["know it"], reward_metric="fuzzy_match"
    )
    got = grade(task, "I don't know it.", protocol=protocol)  # type: ignore[arg-type]
    assert 0.0 < got.reward < 1.0 and got.metrics["no_answer"] is True
    assert "no_answer" not in grade(task, "You know it.", protocol=protocol).metrics  # type: ignore[arg-type]
