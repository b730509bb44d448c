"""Sales analytics: sales_amount_understanding, sales_cycle_understanding,
conversion_rate_comprehension.

A won opportunity points to its contract (Opportunity.ContractID__c); the contract's
CompanySignedDate places the deal in a period, and the contract's orders (Order.ContractId) hold
the sold items (Quantity x UnitPrice). Lead conversion reads Lead.CreatedDate, IsConverted and
ConvertedDate.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import date
from statistics import mean

from crmarena_tui.agents.solvers.base import Solver, Steps, Workbench, counts, get, pick, quoted
from crmarena_tui.agents.solvers.periods import Span, find_spans
from crmarena_tui.agents.solvers.requests import (
    Ranking,
    directed,
    period_words,
    ranking,
    ranking_gaps,
)
from crmarena_tui.tasks.model import Task

SIGNED = "ContractID__r.CompanySignedDate"


def _tied(tied: list[str]) -> str:
    return f" (tied with {', '.join(tied[1:])})." if len(tied) > 1 else "."


@dataclass(frozen=True, slots=True)
class SalesRequest:
    ranking: Ranking
    earlier: Span | None  # "the greatest increase from <earlier> to <ranking.span>"


class SalesAmount(Solver):
    task = "sales_amount_understanding"

    def parse(self, text: str, task: Task) -> SalesRequest:
        request = ranking(text, task)
        if re.search(r"\bincrease\b", text, re.I):
            spans = find_spans(text, task.today())
            if len(spans) == 2:
                first, second = sorted(spans, key=lambda s: s.start)
                return SalesRequest(replace(request, span=second, direction="max"), first)
        return SalesRequest(request, None)

    def missing(self, request: SalesRequest) -> str | None:
        return ranking_gaps(request.ranking, "sales amount")

    def _sales(self, bench: Workbench, span: Span, why: str) -> Steps:
        """Sales per agent over the contracts the company signed in `span` (None: no contract)."""
        opps = yield from bench.run(
            f"SELECT Id, OwnerId, ContractID__c, {SIGNED} FROM Opportunity "
            f"WHERE {span.date_filter(SIGNED)}",
            f"{why}Opportunities count when their contract was signed by the company from "
            f"{period_words(span)}.",
        )
        if not opps:
            bench.note(f"No contract was signed by the company from {period_words(span)}.")
            return None
        contracts = sorted({o["ContractID__c"] for o in opps if o.get("ContractID__c")})
        items = yield from bench.run(
            f"SELECT Id, Order.ContractId, Quantity, UnitPrice FROM OrderItem "
            f"WHERE Order.ContractId IN ({quoted(contracts)})",
            f"{len(opps)} opportunities on {len(contracts)} contracts. Their sales are the order "
            "items of the orders placed under those contracts: Quantity x UnitPrice.",
        )
        per_contract: dict[str, float] = defaultdict(float)
        for item in items:
            per_contract[get(item, "Order.ContractId")] += (item.get("Quantity") or 0) * (
                item.get("UnitPrice") or 0
            )
        sales: dict[str, float] = defaultdict(float)
        for opp in opps:
            sales[opp["OwnerId"]] += per_contract.get(opp.get("ContractID__c") or "", 0.0)
        return dict(sales)

    def solve(self, bench: Workbench, request: SalesRequest) -> Steps:
        span, direction = request.ranking.span, request.ranking.direction or "max"
        assert span is not None
        if request.earlier is not None:
            return (yield from self._growth(bench, request.earlier, span))
        sales = yield from self._sales(bench, span, "")
        if not sales:
            return "None"
        best, tied = pick(sales, direction)
        bench.note(
            f"Sales per agent ({len(sales)} agents): {best} has the "
            f"{directed(direction, 'smallest', 'largest')} total, {sales[best]:,.2f}" + _tied(tied)
        )
        return best or "None"

    def _growth(self, bench: Workbench, earlier: Span, later: Span) -> Steps:
        before = yield from self._sales(bench, earlier, "The increase compares two periods. ")
        after = yield from self._sales(bench, later, "Now the later period. ")
        if not before and not after:
            return "None"
        agents = set(before or {}) | set(after or {})
        growth = {a: (after or {}).get(a, 0.0) - (before or {}).get(a, 0.0) for a in agents}
        best, tied = pick(growth, "max")
        assert best is not None
        bench.note(
            f"Change in sales per agent ({len(agents)} agents, 0 where an agent sold nothing): "
            f"{best} grew the most, by {growth[best]:,.2f}" + _tied(tied)
        )
        return best


class SalesCycle(Solver):
    task = "sales_cycle_understanding"

    def parse(self, text: str, task: Task) -> Ranking:
        return ranking(text, task)

    def missing(self, request: Ranking) -> str | None:
        return ranking_gaps(request, "sales cycle")

    def solve(self, bench: Workbench, request: Ranking) -> Steps:
        span, direction = request.span, request.direction or "min"
        assert span is not None
        opps = yield from bench.run(
            f"SELECT Id, OwnerId, CreatedDate, {SIGNED} FROM Opportunity "
            f"WHERE {span.date_filter(SIGNED)}",
            f"Deals closed from {period_words(span)}: opportunities whose contract the company "
            "signed then. The cycle runs from the opportunity's creation to that signature.",
        )
        cycles: dict[str, list[int]] = defaultdict(list)
        for opp in opps:
            signed = get(opp, SIGNED)
            if signed and opp.get("CreatedDate"):
                days = (
                    date.fromisoformat(signed[:10]) - date.fromisoformat(opp["CreatedDate"][:10])
                ).days
                cycles[opp["OwnerId"]].append(days)
        averages = {a: mean(v) for a, v in cycles.items()}
        best, tied = pick(averages, direction)
        if best is None:
            bench.note("No deal closed in that period.")
            return "None"
        bench.note(
            f"Average cycle per agent ({len(averages)} agents): {best} is the "
            f"{directed(direction, 'quickest', 'slowest')} with {averages[best]:.1f} days "
            f"over {len(cycles[best])} deals" + _tied(tied)
        )
        return best


class ConversionRate(Solver):
    task = "conversion_rate_comprehension"

    def parse(self, text: str, task: Task) -> Ranking:
        return ranking(text, task)

    def missing(self, request: Ranking) -> str | None:
        return ranking_gaps(request, "conversion rate")

    def solve(self, bench: Workbench, request: Ranking) -> Steps:
        span, direction = request.span, request.direction or "max"
        assert span is not None
        created = span.datetime_filter("CreatedDate")
        rows = yield from bench.run(
            f"SELECT OwnerId, COUNT(Id) n FROM Lead WHERE {created} GROUP BY OwnerId",
            f"Leads created from {period_words(span)}, per owner: the denominator of each agent's "
            "conversion rate.",
        )
        totals = counts(rows, "OwnerId", "n")
        if not totals:
            bench.note("No lead was created in that period.")
            return "None"
        rows = yield from bench.run(
            f"SELECT OwnerId, COUNT(Id) n FROM Lead WHERE {created} AND IsConverted = true AND "
            f"{span.date_filter('ConvertedDate')} GROUP BY OwnerId",
            f"{len(totals)} agents own such leads. Of those leads, the ones converted within the "
            "same period.",
        )
        converted = counts(rows, "OwnerId", "n")
        if not converted:
            bench.note(
                "None of those leads converted within the period: no agent has a conversion "
                "rate to compare."
            )
            return "None"
        rates = {a: converted.get(a, 0) / n for a, n in totals.items() if n}
        best, tied = pick(rates, direction)
        assert best is not None
        bench.note(
            f"Conversion rate per agent: {best} has the "
            f"{directed(direction, 'lowest', 'highest')}, {rates[best]:.1%} "
            f"({int(converted.get(best, 0))} of {int(totals[best])} leads)" + _tied(tied)
        )
        return best
