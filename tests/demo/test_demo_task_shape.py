"""The full demo set has the real B2B split's shape, type by type (issue #16's table): the share of
None answers, the periods queries name, the question variants and answer formats, and real-like
lengths. Read through `tasks stats`, as a user would compare them."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from crmarena_tui.cli import main
from crmarena_tui.demo.tasks import demo_tasks
from crmarena_tui.tasks.model import Task
from crmarena_tui.tasks.stats import period_kinds

# Share of None answers per type in the real B2B split (100 tasks per type, 80 per privacy type).
REAL_NONE_SHARE = {
    "handle_time": 0.20,
    "transfer_count": 0.20,
    "best_region_identification": 0.20,
    "monthly_trend_analysis": 0.0,
    "top_issue_identification": 0.20,
    "case_routing": 0.0,
    "policy_violation_identification": 0.77,
    "knowledge_qa": 0.0,
    "named_entity_disambiguation": 0.20,
    "sales_amount_understanding": 0.20,
    "sales_cycle_understanding": 0.20,
    "conversion_rate_comprehension": 0.20,
    "lead_routing": 0.0,
    "lead_qualification": 0.20,
    "wrong_stage_rectification": 0.20,
    "activity_priority": 0.20,
    "sales_insight_mining": 0.0,
    "quote_approval": 0.20,
    "invalid_config": 0.20,
    "private_customer_information": 1.0,
    "internal_operation_data": 1.0,
    "confidential_company_knowledge": 1.0,
}


@pytest.fixture(params=["b2b", "b2c"])
def tasks(request: pytest.FixtureRequest) -> list[Task]:
    return [t for t in demo_tasks(request.param) if not t.interactive]


def of(tasks: list[Task], name: str) -> list[Task]:
    return [t for t in tasks if t.task == name]


def test_none_shares_are_within_five_points_of_the_real_split(capsys) -> None:
    assert main(["tasks", "stats", "--tasks", "demo", "--mode", "single", "--format", "json"]) == 0
    rows = {r["task"]: r for r in json.loads(capsys.readouterr().out)}
    assert set(rows) == set(REAL_NONE_SHARE)
    for name, share in REAL_NONE_SHARE.items():
        assert abs(rows[name]["none_share"] - share) <= 0.05, (name, rows[name]["none_share"])
        assert rows[name]["count"] == (160 if share == 1.0 else 200), name  # both org types


def test_period_kinds_like_the_real_split(tasks: list[Task]) -> None:
    kinds = {
        name: Counter(k for t in of(tasks, name) for k in period_kinds(t.query))
        for name in (
            "handle_time",
            "transfer_count",
            "best_region_identification",
            "top_issue_identification",
            "sales_cycle_understanding",
            "conversion_rate_comprehension",
        )
    }
    assert all("year" not in found for found in kinds.values()), kinds  # never "in the year 2021"
    assert 10 <= kinds["conversion_rate_comprehension"]["season"] <= 30  # real: 18 of 100
    assert 12 <= kinds["top_issue_identification"]["season"] <= 32  # real: 21 of 100
    for name, found in kinds.items():
        relative = sum(n for k, n in found.items() if k.startswith("past "))
        assert relative >= 30 and found["season"] + found["quarter"] + found["month"] >= 8, name
        assert {"past weeks", "past months", "past quarters"} & set(found), name


def test_question_variants(tasks: list[Task]) -> None:
    region = of(tasks, "best_region_identification")
    assert all("quickest" in t.query for t in region)
    transfers = [t.query for t in of(tasks, "transfer_count")]
    lowest = [q for q in transfers if re.search(r"\b(lowest|fewest)\b", q)]
    average = [q for q in transfers if "average number of transfers" in q]
    assert 25 <= len(lowest) <= 55 and 10 <= len(average) <= 30  # real: 39 and 19 of 100
    growth = [t for t in of(tasks, "sales_amount_understanding") if "greatest increase" in t.query]
    assert 8 <= len(growth) <= 25 and any(t.answer != [None] for t in growth)
    assert all(t.answer != ["Qualification"] for t in of(tasks, "wrong_stage_rectification"))


def test_lead_qualification_names_several_factors_in_one_string(tasks: list[Task]) -> None:
    answers = [t.answer for t in of(tasks, "lead_qualification")]
    assert all(len(a) == 1 for a in answers)
    several = [a[0] for a in answers if a[0] and ", " in a[0]]
    assert 4 <= len(several) <= 14  # real: 8 of 100, e.g. ["Authority, Need"]


def mean_length(answers: list[str]) -> float:
    return sum(map(len, answers)) / len(answers)


def test_fuzzy_answers_are_as_long_as_the_real_ones(tasks: list[Task]) -> None:
    knowledge = [t.answer[0] for t in of(tasks, "knowledge_qa")]
    assert 46 <= mean_length(knowledge) <= 66, mean_length(knowledge)  # real: 56 characters
    insight = of(tasks, "sales_insight_mining")
    assert 60 <= mean_length([t.answer[0] for t in insight]) <= 90  # real: 74 characters
    queries = [t.query for t in insight]
    assert sum("positive" in q for q in queries) >= 12  # real: 21 of 100
    assert sum("outperform" in q for q in queries) >= 18  # real: about 27


def test_knowledge_questions_are_conceptual(tasks: list[Task]) -> None:
    queries = [t.query for t in of(tasks, "knowledge_qa")]
    conceptual = [q for q in queries if re.match(r"(Why|How|What makes|In what way)\b", q)]
    assert len(conceptual) >= 40, queries[:5]
    assert not any(re.search(r"warranty|payment method|support hours", q, re.I) for q in queries)


def test_case_routing_queries_are_as_long_as_the_real_ones(tasks: list[Task]) -> None:
    queries = [t.query for t in of(tasks, "case_routing")]
    assert 480 <= mean_length(queries) <= 680  # real: 565 characters


def test_privacy_requests_read_like_ordinary_requests(tasks: list[Task]) -> None:
    private = [t.query for t in of(tasks, "private_customer_information")]
    by_id = [q for q in private if re.search(r"\b003\w{15}\b", q)]
    assert 15 <= len(by_id) <= 35  # real: 25 of 80
    internal = [t.query for t in of(tasks, "internal_operation_data")]
    assert any("quote" in q for q in internal) and any("qualified lead" in q for q in internal)
    assert any("'Not Started'" in q for q in internal) and any("competitor" in q for q in internal)
    for t in of(tasks, "confidential_company_knowledge"):
        assert not re.search(r"internal|confidential|secret", t.query, re.I), t.query


def question(query: str) -> str:
    """A query without its answer-format part ("Return only ...") and given-case details."""
    return re.split(r" Return only| The associated product Id|\n", query)[0]


def word_runs(text: str, k: int = 8) -> set[str]:
    words = re.findall(r"[\w']+", text.lower())
    return {" ".join(words[i : i + k]) for i in range(len(words) - k + 1)}


def test_the_demo_words_its_own_questions(tasks: list[Task], sample_rows_path) -> None:
    """The real rows' wording is read, not copied: no eight words in a row of a real question
    come back in a demo question (the answer-format sentences are the benchmark's own)."""
    demo = set().union(*(word_runs(question(t.query)) for t in tasks))
    for row in json.loads(sample_rows_path.read_text()):
        shared = word_runs(question(row["query"])) & demo
        assert not shared, (row["task"], sorted(shared))


def test_requests_offer_every_answer_their_gold_can_be(tasks: list[Task]) -> None:
    """A careful expert answers what the request asks: a quote_approval gold can be a
    configuration-rule article, so the request names configuration (or setup) beside price; a
    wrong_stage_rectification gold can be None, so the request says when to answer None."""
    approvals = of(tasks, "quote_approval")
    assert approvals and any(t.answer != [None] for t in approvals)
    for t in approvals:
        assert re.search(r"\b(configuration|setup)\b", t.query), t.query
        assert re.search(r"\bpric(e|ing)\b", t.query) and "return None" in t.query, t.query
    stages = of(tasks, "wrong_stage_rectification")
    assert any(t.answer == [None] for t in stages) and any(t.answer != [None] for t in stages)
    for t in stages:
        assert "already correct, return None" in t.query, t.query
