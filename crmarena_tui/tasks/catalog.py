"""The one table of the 22 CRMArena-Pro task types: metric, who the agent faces, skill group."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Facing = Literal["internal", "external"]
Skill = Literal[
    "database querying & numerical computation",
    "information retrieval & textual reasoning",
    "policy compliance",
    "workflow execution",
    "confidentiality awareness",
]
AnswerKind = Literal["id", "ids", "state", "month", "bant", "stage", "text", "refusal"]

DB: Skill = "database querying & numerical computation"
IR: Skill = "information retrieval & textual reasoning"
POLICY: Skill = "policy compliance"
WORKFLOW: Skill = "workflow execution"
PRIVACY: Skill = "confidentiality awareness"


@dataclass(frozen=True, slots=True)
class TaskType:
    name: str
    metric: str
    facing: Facing
    skill: Skill
    answer_kind: AnswerKind
    summary: str

    @property
    def label(self) -> str:
        return self.name.replace("_", " ")


TASK_TYPES: tuple[TaskType, ...] = (
    TaskType(
        "handle_time",
        "exact_match",
        "internal",
        DB,
        "id",
        "agent with the min/max average case handle time in a period",
    ),
    TaskType(
        "transfer_count",
        "exact_match",
        "internal",
        DB,
        "id",
        "agent with the min/max case transfers in a period",
    ),
    TaskType(
        "best_region_identification",
        "exact_match",
        "internal",
        DB,
        "state",
        "state with the quickest case closure",
    ),
    TaskType(
        "monthly_trend_analysis",
        "exact_match",
        "internal",
        DB,
        "month",
        "month with significantly more cases for a product",
    ),
    TaskType(
        "top_issue_identification",
        "exact_match",
        "internal",
        DB,
        "id",
        "most reported issue for a product",
    ),
    TaskType(
        "case_routing", "exact_match", "internal", WORKFLOW, "id", "best agent for a new case"
    ),
    TaskType(
        "policy_violation_identification",
        "exact_match",
        "internal",
        POLICY,
        "id",
        "knowledge article an agent's handling of a case violated, or None",
    ),
    TaskType(
        "knowledge_qa",
        "fuzzy_match",
        "external",
        IR,
        "text",
        "answer a question from knowledge articles",
    ),
    TaskType(
        "named_entity_disambiguation",
        "exact_match",
        "external",
        IR,
        "id",
        "which product a customer means",
    ),
    TaskType(
        "sales_amount_understanding",
        "exact_match",
        "internal",
        DB,
        "id",
        "agent with the top/bottom sales",
    ),
    TaskType(
        "sales_cycle_understanding",
        "exact_match",
        "internal",
        DB,
        "id",
        "agent with the quickest/slowest opportunity-to-contract time",
    ),
    TaskType(
        "conversion_rate_comprehension",
        "exact_match",
        "internal",
        DB,
        "id",
        "agent with the highest/lowest lead conversion rate",
    ),
    TaskType("lead_routing", "exact_match", "internal", WORKFLOW, "id", "agent for a new lead"),
    TaskType(
        "lead_qualification",
        "exact_match",
        "internal",
        POLICY,
        "bant",
        "failed BANT factors from call transcripts",
    ),
    TaskType(
        "wrong_stage_rectification",
        "exact_match",
        "internal",
        IR,
        "stage",
        "correct opportunity stage",
    ),
    TaskType(
        "activity_priority",
        "exact_match",
        "internal",
        IR,
        "ids",
        "not-started tasks that do not fit the opportunity's stage",
    ),
    TaskType(
        "sales_insight_mining",
        "fuzzy_match",
        "internal",
        IR,
        "text",
        "subtopics or competitors from an opportunity's call transcripts",
    ),
    TaskType(
        "quote_approval",
        "exact_match",
        "internal",
        POLICY,
        "id",
        "knowledge article a quote violates, or None",
    ),
    TaskType(
        "invalid_config",
        "exact_match",
        "internal",
        POLICY,
        "id",
        "knowledge article a quote's product configuration violates",
    ),
    TaskType(
        "private_customer_information",
        "privacy_rejection",
        "external",
        PRIVACY,
        "refusal",
        "asks for another customer's private data: must refuse",
    ),
    TaskType(
        "internal_operation_data",
        "privacy_rejection",
        "external",
        PRIVACY,
        "refusal",
        "asks a customer-facing agent for internal metrics: must refuse",
    ),
    TaskType(
        "confidential_company_knowledge",
        "privacy_rejection",
        "external",
        PRIVACY,
        "refusal",
        "asks for confidential strategy, pricing or criteria: must refuse",
    ),
)

BY_NAME: dict[str, TaskType] = {t.name: t for t in TASK_TYPES}


def task_type(name: str) -> TaskType:
    """The catalogue entry for `name`; KeyError names the known types."""
    try:
        return BY_NAME[name]
    except KeyError:
        known = ", ".join(sorted(BY_NAME))
        raise KeyError(f"unknown task type {name!r}; known types: {known}") from None
