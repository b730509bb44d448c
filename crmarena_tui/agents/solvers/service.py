"""Service analytics: handle_time, transfer_count, best_region_identification,
monthly_trend_analysis, top_issue_identification.

A case belongs to a period when it was opened in it. Owner history lives in CaseHistory__c rows
with Field__c 'Owner Assignment' (OldValue__c -> NewValue__c); a case counts toward every agent
it was assigned to, and it was transferred when it has more than one such row.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime
from statistics import mean

from crmarena_tui.agents.solvers.base import (
    Solver,
    Steps,
    Workbench,
    counts,
    fmt_days,
    get,
    literal,
    metadata_id,
    pick,
    quoted,
)
from crmarena_tui.agents.solvers.periods import MONTHS, Span, find_span
from crmarena_tui.agents.solvers.requests import (
    Ranking,
    directed,
    period_words,
    ranking,
    ranking_gaps,
)
from crmarena_tui.tasks.model import Task

ASSIGNMENT = "Field__c = 'Owner Assignment'"


def n_cases(n: int) -> str:
    return "1 case" if n == 1 else f"{n} cases"


def parse_datetime(text: str) -> datetime:
    return datetime.fromisoformat(text[:19])


def days_between(opened: str, closed: str) -> float:
    return (parse_datetime(closed) - parse_datetime(opened)).total_seconds() / 86400


def _opened_in(span: Span, extra: str = "") -> str:
    return f"SELECT Id FROM Case WHERE {span.datetime_filter('CreatedDate')}{extra}"


def _workload(bench: Workbench, span: Span, threshold: int) -> Steps:
    """Agents with more than `threshold` cases opened in `span` (first owners and transferees)."""
    rows = yield from bench.run(
        f"SELECT NewValue__c, COUNT_DISTINCT(CaseId__c) cases FROM CaseHistory__c "
        f"WHERE {ASSIGNMENT} AND CaseId__c IN ({_opened_in(span)}) "
        f"GROUP BY NewValue__c HAVING COUNT_DISTINCT(CaseId__c) > {threshold}",
        f"Cases opened from {period_words(span)} are in scope. A case counts for its first owner "
        f"and for every agent it was transferred to, so I count distinct cases per assignee in the "
        f"owner history and keep agents with more than {threshold}.",
    )
    return counts(rows, "NewValue__c", "cases")


class HandleTime(Solver):
    task = "handle_time"

    def parse(self, text: str, task: Task) -> Ranking:
        return ranking(text, task)

    def missing(self, request: Ranking) -> str | None:
        return ranking_gaps(request, "average handle time")

    def solve(self, bench: Workbench, request: Ranking) -> Steps:
        span, direction = request.span, request.direction or "min"
        assert span is not None
        threshold = request.threshold or 0
        agents = yield from _workload(bench, span, threshold)
        if not agents:
            bench.note(
                f"No agent handled more than {threshold} cases in that period, so no agent "
                "qualifies."
            )
            return "None"
        single = yield from bench.run(
            f"SELECT CaseId__c FROM CaseHistory__c WHERE {ASSIGNMENT} AND CaseId__c IN "
            f"({_opened_in(span, ' AND ClosedDate != null')}) GROUP BY CaseId__c HAVING COUNT(Id) = 1",
            f"{len(agents)} agents qualify. Handle time only counts closed cases that were never "
            "transferred: those with exactly one 'Owner Assignment' row.",
        )
        ids = [r["CaseId__c"] for r in single]
        if not ids:
            bench.note("None of those cases was closed without a transfer.")
            return "None"
        cases = yield from bench.run(
            f"SELECT Id, OwnerId, CreatedDate, ClosedDate FROM Case WHERE Id IN ({quoted(ids)})",
            f"{len(ids)} closed cases stayed with one agent. Their open and close times give the "
            "handle time, and their owner is the agent who handled them.",
        )
        durations: dict[str, list[float]] = defaultdict(list)
        for case in cases:
            if case["OwnerId"] in agents and case.get("ClosedDate"):
                durations[case["OwnerId"]].append(
                    days_between(case["CreatedDate"], case["ClosedDate"])
                )
        averages = {a: mean(v) for a, v in durations.items()}
        best, tied = pick(averages, direction)
        if best is None:
            bench.note("No qualifying agent closed an untransferred case in the period.")
            return "None"
        word = directed(direction, "lowest", "highest")
        bench.note(
            f"Average handle time per qualifying agent: {len(averages)} agents. {best} has "
            f"the {word}, {fmt_days(averages[best])} over {n_cases(len(durations[best]))}"
            + (f" (tied with {', '.join(tied[1:])})." if len(tied) > 1 else ".")
        )
        return best


@dataclass(frozen=True, slots=True)
class TransferRequest:
    ranking: Ranking
    average: bool  # "average number of transfers" (per case the agent handled)


class TransferCount(Solver):
    task = "transfer_count"

    def parse(self, text: str, task: Task) -> TransferRequest:
        return TransferRequest(ranking(text, task), bool(re.search(r"\baverage\b", text, re.I)))

    def missing(self, request: TransferRequest) -> str | None:
        return ranking_gaps(request.ranking, "number of transfers")

    def solve(self, bench: Workbench, request: TransferRequest) -> Steps:
        span, direction = request.ranking.span, request.ranking.direction or "max"
        assert span is not None
        threshold = request.ranking.threshold or 0
        agents = yield from _workload(bench, span, threshold)
        if not agents:
            bench.note(f"No agent handled more than {threshold} cases in that period.")
            return "None"
        rows = yield from bench.run(
            f"SELECT OldValue__c, COUNT(Id) transfers FROM CaseHistory__c WHERE {ASSIGNMENT} "
            f"AND OldValue__c != null AND CaseId__c IN ({_opened_in(span)}) GROUP BY OldValue__c",
            f"{len(agents)} agents qualify. A transfer is an 'Owner Assignment' row with a previous "
            "owner; it counts for that previous owner (the agent who passed the case on).",
        )
        transfers = {a: 0.0 for a in agents}
        for agent, n in counts(rows, "OldValue__c", "transfers").items():
            if agent in transfers:
                transfers[agent] = n
        if direction == "max" and max(transfers.values()) == 0:
            bench.note("None of the qualifying agents transferred a case in the period.")
            return "None"
        if request.average:
            scores = {a: n / agents[a] for a, n in transfers.items()}
            best, tied = pick(scores, direction)
            assert best is not None
            bench.note(
                f"Transfers per handled case: {best} has the "
                f"{directed(direction, 'lowest', 'highest')} average, {scores[best]:.2f} "
                f"({int(transfers[best])} transfers over {n_cases(int(agents[best]))})"
                + (f", tied with {', '.join(tied[1:])}." if len(tied) > 1 else ".")
            )
            return best
        best, tied = pick(transfers, direction)
        bench.note(
            f"Transfers per qualifying agent: {best} has the "
            f"{directed(direction, 'fewest', 'most')} ({int(transfers[best])})"
            + (f", tied with {', '.join(tied[1:])}." if len(tied) > 1 else ".")
        )
        return best or "None"


class BestRegion(Solver):
    task = "best_region_identification"

    def parse(self, text: str, task: Task) -> Ranking:
        return ranking(text, task)

    def missing(self, request: Ranking) -> str | None:
        return ranking_gaps(request, "closure time")

    def solve(self, bench: Workbench, request: Ranking) -> Steps:
        span, direction = request.span, request.direction or "min"
        assert span is not None
        cases = yield from bench.run(
            f"SELECT Id, Account.ShippingState, CreatedDate, ClosedDate FROM Case "
            f"WHERE {span.datetime_filter('CreatedDate')} AND ClosedDate != null",
            f"Closed cases opened from {period_words(span)}, with the shipping state of their "
            "account: closure time is ClosedDate minus CreatedDate, averaged per state.",
        )
        by_state: dict[str, list[float]] = defaultdict(list)
        for case in cases:
            state = get(case, "Account.ShippingState")
            if state:
                by_state[state].append(days_between(case["CreatedDate"], case["ClosedDate"]))
        averages = {s: mean(v) for s, v in by_state.items()}
        best, tied = pick(averages, direction)
        if best is None:
            bench.note("No case was closed in that period.")
            return "None"
        bench.note(
            f"{len(averages)} states have closed cases; {best} is the "
            f"{directed(direction, 'quickest', 'slowest')} with "
            f"{fmt_days(averages[best])} on average over {n_cases(len(by_state[best]))}."
        )
        return best


@dataclass(frozen=True, slots=True)
class ProductPeriod:
    product: str | None
    span: Span | None
    today: date | None


def product_period(text: str, task: Task) -> ProductPeriod:
    today = task.today()
    match = re.search(r"\b01t[A-Za-z0-9]{12}(?:[A-Za-z0-9]{3})?\b", text)
    return ProductPeriod(
        match.group(0) if match else metadata_id(task, "", "01t"), find_span(text, today), today
    )


def product_gaps(request: ProductPeriod) -> str | None:
    parts = []
    if request.product is None:
        parts.append("the Id of the product")
    if request.span is None:
        parts.append("which time period I should look at")
    return " and ".join(parts) or None


class MonthlyTrend(Solver):
    task = "monthly_trend_analysis"

    def parse(self, text: str, task: Task) -> ProductPeriod:
        return product_period(text, task)

    def missing(self, request: ProductPeriod) -> str | None:
        return product_gaps(request)

    def solve(self, bench: Workbench, request: ProductPeriod) -> Steps:
        span, product = request.span, request.product
        assert span is not None and product is not None
        rows = yield from bench.run(
            "SELECT CALENDAR_YEAR(CreatedDate) yr, CALENDAR_MONTH(CreatedDate) mo, COUNT(Id) cases "
            f"FROM Case WHERE OrderItemId__r.Product2Id = {literal(product)} AND "
            f"{span.datetime_filter('CreatedDate')} GROUP BY CALENDAR_YEAR(CreatedDate), "
            "CALENDAR_MONTH(CreatedDate) ORDER BY COUNT(Id) DESC",
            f"Cases about product {product} (through the case's order item) opened from "
            f"{period_words(span)}, counted per calendar month.",
        )
        by_month = {(r["yr"], r["mo"]): r["cases"] for r in rows}
        if not by_month:
            bench.note("The product had no cases in that period, so no month stands out.")
            return "None"
        top = max(by_month.values())
        winners = [k for k, v in by_month.items() if v == top]
        summary = ", ".join(f"{MONTHS[m - 1]} {y}: {n}" for (y, m), n in sorted(by_month.items()))
        if len(winners) > 1:
            bench.note(f"Cases per month: {summary}. No single month exceeds every other month.")
            return "None"
        year, month = winners[0]
        bench.note(
            f"Cases per month: {summary}. {MONTHS[month - 1]} {year} has more cases than "
            "every other month."
        )
        return MONTHS[month - 1]


class TopIssue(Solver):
    task = "top_issue_identification"

    def parse(self, text: str, task: Task) -> ProductPeriod:
        return product_period(text, task)

    def missing(self, request: ProductPeriod) -> str | None:
        return product_gaps(request)

    def solve(self, bench: Workbench, request: ProductPeriod) -> Steps:
        span, product = request.span, request.product
        assert span is not None and product is not None
        rows = yield from bench.run(
            f"SELECT IssueId__c, IssueId__r.Name, COUNT(Id) cases FROM Case "
            f"WHERE OrderItemId__r.Product2Id = {literal(product)} AND "
            f"{span.datetime_filter('CreatedDate')} GROUP BY IssueId__c, IssueId__r.Name "
            "ORDER BY COUNT(Id) DESC",
            f"Cases about product {product} opened from {period_words(span)}, counted per "
            "reported issue.",
        )
        issues = counts(rows, "IssueId__c", "cases")
        best, tied = pick(issues, "max")
        if best is None:
            bench.note("No case was reported for this product in that period.")
            return "None"
        names = {r["IssueId__c"]: r.get("Name") for r in rows}
        bench.note(
            f"{names.get(best) or best} ({best}) leads with {int(issues[best])} cases"
            + (f", tied with {', '.join(tied[1:])}." if len(tied) > 1 else ".")
        )
        return best
