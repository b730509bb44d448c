"""Scripted solvers for the demo task types, one per type (see `base.Solver`)."""

from __future__ import annotations

from crmarena_tui.agents.solvers.base import QueryFailed, Solver, Workbench
from crmarena_tui.agents.solvers.customer import KnowledgeQA, NamedEntity
from crmarena_tui.agents.solvers.opportunity import ActivityPriority, SalesInsight, WrongStage
from crmarena_tui.agents.solvers.policy import (
    InvalidConfig,
    LeadQualification,
    PolicyViolation,
    QuoteApproval,
)
from crmarena_tui.agents.solvers.privacy import REFUSALS, Decline
from crmarena_tui.agents.solvers.routing import CaseRouting, LeadRouting
from crmarena_tui.agents.solvers.sales import ConversionRate, SalesAmount, SalesCycle
from crmarena_tui.agents.solvers.service import (
    BestRegion,
    HandleTime,
    MonthlyTrend,
    TopIssue,
    TransferCount,
)

__all__ = ["SOLVERS", "QueryFailed", "Solver", "Workbench", "solver_for"]

SOLVERS: dict[str, Solver] = {
    s.task: s
    for s in (
        HandleTime(),
        TransferCount(),
        BestRegion(),
        MonthlyTrend(),
        TopIssue(),
        CaseRouting(),
        PolicyViolation(),
        KnowledgeQA(),
        NamedEntity(),
        SalesAmount(),
        SalesCycle(),
        ConversionRate(),
        LeadRouting(),
        LeadQualification(),
        WrongStage(),
        ActivityPriority(),
        SalesInsight(),
        QuoteApproval(),
        InvalidConfig(),
        *(Decline(kind) for kind in REFUSALS),
    )
}


def solver_for(task_type: str) -> Solver | None:
    return SOLVERS.get(task_type)
