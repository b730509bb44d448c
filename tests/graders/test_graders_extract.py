"""The deterministic extractor, kind by kind, and the never-raises property of deterministic grading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crmarena_tui.graders import grade
from crmarena_tui.graders.extract import extract_items
from crmarena_tui.graders.ids import find_ids, is_plausible_id
from crmarena_tui.orgs.salesforce_ids import to_18
from crmarena_tui.tasks.catalog import TASK_TYPES
from crmarena_tui.tasks.model import Task

SAMPLE = Path(__file__).parents[1] / "data" / "crmarenapro_b2b_sample.json"
ROWS = [Task(**row) for row in json.loads(SAMPLE.read_text(encoding="utf-8"))]
AGENT = "005Wt000003NIYnIAO"
ISSUE = "a03Wt00000JqXxYIAV"
ARTICLE = "ka0Wt000000EnvJIAS"


@pytest.mark.parametrize(
    ("text", "task_name", "items"),
    [
        (AGENT, "case_routing", [AGENT]),
        (f"The agent is **{AGENT}** (Jane Doe).", "case_routing", [AGENT]),
        (f"Agent {AGENT} handled issue {ISSUE} most often.", "case_routing", [AGENT]),
        (
            f"Issue {ISSUE} is the top one; its owner is {AGENT}.",
            "top_issue_identification",
            [ISSUE],
        ),
        (
            f"The quote breaks article {ARTICLE} (see quote 0Q0Wt000001AbCdKAS).",
            "quote_approval",
            [ARTICLE],
        ),
        (f"{AGENT[:15]} ({AGENT})", "handle_time", [AGENT]),
        (
            f"Compared {AGENT} with 005Wt000003NJufIAG; final answer: 005Wt000003NJufIAG",
            "handle_time",
            ["005Wt000003NJufIAG"],
        ),
        ("Implementations of confidentiality: none", "handle_time", ["None"]),
        ("There is no agent meeting the criteria.", "transfer_count", ["None"]),
        # No Id and no "none": no answer, never read as None.
        ("Call 555-0100 or 123456789012345 for help.", "handle_time", []),
        ("", "handle_time", []),
    ],
)
def test_ids(text: str, task_name: str, items: list[str]) -> None:
    kind = "ids" if task_name == "activity_priority" else "id"
    assert extract_items(text, kind, task_name) == items


def test_plausible_ids() -> None:
    assert is_plausible_id(AGENT) and is_plausible_id(AGENT[:15])
    assert not is_plausible_id("confidentiality")  # 15 letters
    assert not is_plausible_id("123456789012345")  # a number
    assert is_plausible_id("a7QWt000000AbCd")  # unknown custom prefix, 15 chars
    assert not is_plausible_id("a7QWt000000AbCdZZZ")  # unknown prefix needs a valid checksum
    assert is_plausible_id(to_18("a7QWt000000AbCd"))
    assert find_ids(f"x{AGENT}") == []  # glued to a word: not an Id


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("OR", ["OR"]),
        ("Oregon (OR) has the quickest closure.", ["OR"]),
        ("oregon", ["OR"]),
        ("The account ID is 001Wt00000ABCDE and its state is CA.", ["CA"]),
        ("CASE IN PROGRESS; the best state is TX.", ["TX"]),
        ("Washington, D.C. and New York", ["DC", "NY"]),
        ("West Virginia", ["WV"]),
        ("Arkansas", ["AR"]),
        ("No state stands out; CA and NV are close.", ["None"]),
        ("or maybe in", []),
    ],
)
def test_states(text: str, items: list[str]) -> None:
    assert extract_items(text, "state", "best_region_identification") == items


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("June", ["June"]),
        ("june 2024", ["June"]),
        ("Sept.", ["September"]),
        ("Compared with May and July, June stands out. Final answer: June", ["June"]),
        ("No month stands out; June and July are close.", ["None"]),
        ("We may see more cases; march on.", ["March"]),
        ("The spike was in MAY.", ["May"]),
        ("nothing notable", ["None"]),
    ],
)
def test_months(text: str, items: list[str]) -> None:
    assert extract_items(text, "month", "monthly_trend_analysis") == items


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("Authority", ["Authority"]),
        ("Authority, Timeline", ["Authority", "Timeline"]),
        ("Budget: Met\nAuthority: Not met\nNeed: Met\nTimeline: Met", ["Authority"]),
        ("Budget, Authority and Need are met, but Timeline is not.", ["Timeline"]),
        ("All four BANT criteria are satisfied.", ["None"]),
        (
            "The lead is qualified on Budget and Need but fails on Authority and Timeline.",
            ["Authority", "Timeline"],
        ),
        ("Budget \u2705 Authority \u274c Need \u2705 Timeline \u2705", ["Authority"]),
        ("Lacks budget, authority is fine", ["Budget"]),
        ("Budget is met, Authority is not", ["Authority"]),
        ("The lead doesn't meet Budget or Timeline requirements.", ["Budget", "Timeline"]),
        ("The contact does not have the authority to sign; we need to follow up.", ["Authority"]),
        ("Unmet: Need. Met: Budget, Authority, Timeline.", ["Need"]),
        ("None", ["None"]),
    ],
)
def test_bant(text: str, items: list[str]) -> None:
    assert extract_items(text, "bant", "lead_qualification") == items


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("Quote", ["Quote"]),
        ("negotiation", ["Negotiation"]),
        ("Closed Won", ["Closed"]),
        ("The opportunity is currently in Discovery but should be in Quote.", ["Quote"]),
        ("Move it from Discovery to Negotiation.", ["Negotiation"]),
        ("The customer asked for a quote, so the correct stage is Negotiation.", ["Negotiation"]),
        ("Discovery is incorrect; the opportunity belongs in Quote.", ["Quote"]),
        ("The correct stage is not Discovery, it is Quote.", ["Quote"]),
        ("Qualification is the right stage.", ["Qualification"]),
        ("I could not tell.", []),
    ],
)
def test_stage(text: str, items: list[str]) -> None:
    assert extract_items(text, "stage", "wrong_stage_rectification") == items


# ---------------------------------------------------------------- never raises

FRAGMENTS = st.sampled_from(
    [
        AGENT,
        AGENT[:15],
        ISSUE,
        ARTICLE,
        "00TWt000002z48wMAA",
        "OR",
        "ID",
        "IN",
        "Oregon",
        "Washington, D.C.",
        "June",
        "May",
        "Sept.",
        "Budget",
        "Authority",
        "need to",
        "Timeline",
        "not met",
        "met",
        "\u2705",
        "\u274c",
        "Quote",
        "Closed Won",
        "should be",
        "currently",
        "None",
        "no violation",
        "Final answer:",
        "the answer is",
        "**",
        "'",
        '"',
        "[",
        "]",
        ",",
        ".",
        ";",
        "\n",
        " ",
        "\u2019",
        "\x00",
        "\ud7ff",
        "\U0001f600",
    ]
)
TEXTS = st.one_of(
    st.text(max_size=300),
    st.lists(st.one_of(FRAGMENTS, st.text(max_size=6)), max_size=40).map("".join),
)
KINDS = st.sampled_from(["id", "ids", "state", "month", "bant", "stage", "text", "refusal", "?"])
TASK_NAMES = st.sampled_from([t.name for t in TASK_TYPES] + ["no_such_task", ""])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS, kind=KINDS, task_name=TASK_NAMES)
def test_extract_never_raises(text: str, kind: str, task_name: str) -> None:
    items = extract_items(text, kind, task_name)
    assert all(isinstance(i, str) and i for i in items)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS, task=st.sampled_from(ROWS))
def test_deterministic_grading_never_raises(text: str, task: Task) -> None:
    result = grade(task, text)
    assert 0.0 <= result.reward <= 1.0
    assert result.extraction in ("strip", "deterministic")
    assert result.grader == task.reward_metric
    if task.reward_metric == "exact_match":
        assert result.reward in (0.0, 1.0)


@settings(max_examples=100, deadline=None)
@given(text=TEXTS)
def test_unknown_task_types_grade_as_ids(text: str) -> None:
    task = Task(
        idx=1, task="some_future_task", query="q", answer=[AGENT], reward_metric="exact_match"
    )
    assert grade(task, text).reward in (0.0, 1.0)
    assert grade(task, f"It is {AGENT}.").reward == 1.0
