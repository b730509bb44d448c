"""How the reference agent reads requests and texts: periods, directions, stages of work,
customers' product descriptions and FAQ questions, checked against the demo generator's own
vocabulary (which the tests may read; the agent does not)."""

from __future__ import annotations

from datetime import date

import pytest

from crmarena_tui.agents.solvers import solver_for
from crmarena_tui.agents.solvers.customer import KnowledgeQA, descriptor_score
from crmarena_tui.agents.solvers.opportunity import call_stage, stage_of
from crmarena_tui.agents.solvers.periods import (
    find_days_ago,
    find_direction,
    find_span,
    find_threshold,
)
from crmarena_tui.demo.generator import ensure_demo_org
from crmarena_tui.demo.stage_guide import STAGE_ACTIVITIES, STAGE_CALL_TOPICS
from crmarena_tui.demo.taskgen.common import OrgReader
from crmarena_tui.demo.taskgen.customer_tasks import WHEN
from crmarena_tui.demo.tasks import demo_tasks, draft_tasks
from crmarena_tui.demo.theme import theme_for

RANKED = (
    "handle_time",
    "transfer_count",
    "best_region_identification",
    "sales_amount_understanding",
    "sales_cycle_understanding",
    "conversion_rate_comprehension",
)
NAMES = {"account": "Summit Analytics", "contact": "Ana Okafor"}


@pytest.mark.parametrize(
    ("text", "today", "start", "end"),
    [
        ("over the past 6 months", date(2024, 8, 31), date(2024, 2, 29), date(2024, 8, 31)),
        ("in the last quarter", date(2023, 5, 31), date(2023, 2, 28), date(2023, 5, 31)),
        ("during the past three weeks", date(2023, 1, 10), date(2022, 12, 20), date(2023, 1, 10)),
        ("In the past twelve months,", date(2022, 3, 1), date(2021, 3, 1), date(2022, 3, 1)),
        ("in Q4 2023", None, date(2023, 10, 1), date(2023, 12, 31)),
        ("in the second quarter of 2021", None, date(2021, 4, 1), date(2021, 6, 30)),
        ("in Winter 2023", None, date(2023, 12, 1), date(2024, 2, 29)),
        ("in the fall of 2022", None, date(2022, 9, 1), date(2022, 11, 30)),
        ("in February 2024", None, date(2024, 2, 1), date(2024, 2, 29)),
        ("in the year 2021", None, date(2021, 1, 1), date(2021, 12, 31)),
        ("in 2020", None, date(2020, 1, 1), date(2020, 12, 31)),
    ],
)
def test_periods(text: str, today: date | None, start: date, end: date) -> None:
    span = find_span(text, today)
    assert span is not None and (span.start, span.end) == (start, end)


def test_relative_periods_need_today_and_bounds_are_inclusive() -> None:
    assert find_span("over the past 3 months", None) is None
    span = find_span("in March 2022", None)
    assert span is not None
    assert span.datetime_filter("CreatedDate") == (
        "CreatedDate >= 2022-03-01T00:00:00Z AND CreatedDate < 2022-04-01T00:00:00Z"
    )
    assert span.date_filter("D") == "D >= 2022-03-01 AND D <= 2022-03-31"


def _span(span) -> tuple[str, str]:
    assert span is not None
    return span.start.isoformat(), span.end.isoformat()


def test_every_ranking_request_reads_as_the_generator_meant_it() -> None:
    """Period(s), direction, case threshold and variant of every ranking task of the full demo
    set match its parameters (the task is draft number idx % 100 of its type)."""
    checked = 0
    for org_type in ("b2b", "b2c"):
        reader = OrgReader(ensure_demo_org(org_type))
        try:
            for task_type in RANKED:
                drafts = draft_tasks(reader, task_type, 100)
                solver = solver_for(task_type)
                assert solver is not None
                for task in demo_tasks(org_type):
                    if task.task != task_type or task.interactive:
                        continue
                    p = drafts[task.idx % 100].params
                    parsed = solver.parse(task.query, task)
                    request = getattr(parsed, "ranking", parsed)
                    assert _span(request.span) == (p["start"], p["end"]), task.query
                    assert request.direction == p["direction"], task.query
                    if "threshold" in p:
                        assert (request.threshold or 0) == p["threshold"], task.query
                    if task_type == "transfer_count":
                        assert parsed.average == p["average"], task.query
                    if p.get("before_start"):  # "the greatest increase from A to B"
                        assert _span(parsed.earlier) == (p["before_start"], p["before_end"])
                    checked += 1
        finally:
            reader.close()
    assert checked == 2 * len(RANKED) * 100


def test_directions_and_thresholds() -> None:
    assert find_direction("Identify the top-selling agent in 2021.") == "max"
    assert (
        find_direction("Which agent closed cases the fastest, among those with more than 3 cases?")
        == "min"
    )
    assert find_direction("who took the most time on average to close cases") == "max"
    assert find_threshold("among agents managing over one cases") == 1
    assert find_threshold("who handled more than zero cases") == 0
    assert find_threshold("which agent is fastest") is None


@pytest.mark.parametrize("days", sorted(WHEN))
def test_days_ago(days: int) -> None:
    for words in WHEN[days]:
        assert find_days_ago(f"Display the design tool that I purchased {words}.") == days


@pytest.mark.parametrize("stage", sorted(STAGE_ACTIVITIES))
def test_every_task_subject_reads_as_its_stage(stage: str) -> None:
    for template in STAGE_ACTIVITIES[stage]:
        assert stage_of(template.format(**NAMES)) == stage, template


@pytest.mark.parametrize("stage", sorted(STAGE_CALL_TOPICS))
def test_every_call_summary_reads_as_its_stage(stage: str) -> None:
    for template in STAGE_CALL_TOPICS[stage]:
        assert call_stage(f"Call summary: {template.format(**NAMES)}\nAna: Hello.") == stage, (
            template
        )


@pytest.mark.parametrize("org_type", ["b2b", "b2c"])
def test_customer_descriptions_point_to_their_category(org_type: str) -> None:
    categories = [c.name for c in theme_for(org_type).categories]
    for category in theme_for(org_type).categories:
        for descriptor in category.descriptors:
            scores = {name: descriptor_score(descriptor, name) for name in categories}
            best = max(scores.values())
            assert [n for n, s in scores.items() if s == best] == [category.name], (
                descriptor,
                scores,
            )


@pytest.mark.parametrize("org_type", ["b2b", "b2c"])
def test_faq_questions_find_their_article(org_type: str) -> None:
    """Every question wording of every FAQ kind picks that kind's article among all kinds' ones."""
    theme = theme_for(org_type)
    for product in theme.products:
        articles = [
            {"Id": kind.key, "Title": kind.title.format(product=product.name)}
            for kind in theme.faq_kinds
        ]
        for kind in theme.faq_kinds:
            for question in kind.questions:
                best = KnowledgeQA._best(
                    question.format(product=product.name), articles, product.name
                )
                assert best is not None and best["Id"] == kind.key, question
