"""Product service tasks: monthly_trend_analysis, top_issue_identification, case_routing.

Facts planted by the generator (`orggen/service.py`): every case names the order item it is about
(Case.OrderItemId__c -> OrderItem.Product2Id) and one Issue__c; products get bursts of cases in
single months; issue specialists among the agents close most cases of their issues.

Rules fixing the answer (a period is inclusive, compared by calendar day):
- monthly_trend_analysis: cases whose OrderItemId__c's Product2Id is the product, CreatedDate in
  the past N months/quarters; the calendar month with more cases than every other month (and at
  least two). Tasks are only generated when such a month exists.
- top_issue_identification: the product's cases created in the period, by IssueId__c; the issue
  with the most cases, [None] when there are no cases.
- case_routing: over all cases: the agent (OwnerId) with the most Closed cases of the new case's
  issue; tie -> most Closed cases of the new case's product; tie -> fewest cases not 'Closed'.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from datetime import date, timedelta
from typing import Any

from crmarena_tui.demo.dates import MONTH_NAMES, Period, day_of
from crmarena_tui.demo.orggen import casetext
from crmarena_tui.demo.taskgen import wording
from crmarena_tui.demo.taskgen.common import (
    Ambiguous,
    Draft,
    OrgReader,
    agree,
    best,
    capitalized,
    collect,
    pick_period,
    random_today,
    relative_period,
)


def _period(start: str, end: str) -> Period:
    return Period(date.fromisoformat(start), date.fromisoformat(end))


def _cases_by_product(org: OrgReader) -> dict[str, list]:
    if "cases_by_product" not in org.memo:
        out: dict[str, list] = defaultdict(list)
        for c in org.cases:
            out[org.product_of_item[c["OrderItemId__c"]]].append(c)
        org.memo["cases_by_product"] = dict(out)
    return org.memo["cases_by_product"]


# ----------------------------------------------------------------- monthly_trend_analysis


def _product_cases(org: OrgReader, product: str, period: Period) -> list:
    return [c for c in _cases_by_product(org).get(product, []) if c["CreatedDate"] in period]


def _standout(counts: Counter[Any]) -> Any:
    if not counts:
        return None
    top = max(counts.values())
    winners = [k for k, v in counts.items() if v == top]
    return winners[0] if len(winners) == 1 else None


def answer_monthly_trend_analysis(org: OrgReader, *, product: str, start: str, end: str) -> list:
    cases = _product_cases(org, product, _period(start, end))
    by_month = Counter(
        (day_of(c["CreatedDate"]).year, day_of(c["CreatedDate"]).month) for c in cases
    )
    by_name = Counter(day_of(c["CreatedDate"]).month for c in cases)
    ym = _standout(by_month)
    name = _standout(by_name)
    first = [MONTH_NAMES[ym[1] - 1] if ym else None]
    return agree(first, [MONTH_NAMES[name - 1] if name else None])


TREND = (
    "Was there a month {period} in which {name} got significantly more cases than in any other month? The associated product Id is {pid}. Return only the month name.",
    "{Period}, did {name} have one month with significantly more cases than the rest? The associated product Id is {pid}. Return only the month name.",
    "Did any single month {period} see notably more cases for {name} than the other months? The associated product Id is {pid}. Return only the month name.",
    "{Period}, was there a month in which cases about {name} clearly outnumbered those of every other month? The associated product Id is {pid}. Return only the month name.",
)


def _monthly_cases(org: OrgReader, product: str, period: Period, month: int) -> int:
    return sum(
        day_of(c["CreatedDate"]).month == month for c in _product_cases(org, product, period)
    )


def make_monthly_trend_analysis(org: OrgReader, rng: random.Random, n: int) -> list[Draft]:
    product_cases = _cases_by_product(org)
    busy = sorted(p for p, cases in product_cases.items() if len(cases) >= 2)

    def one(rng: random.Random, none: bool) -> Draft | None:
        product = rng.choice(busy)
        anchor = day_of(rng.choice(product_cases[product])["CreatedDate"])
        today = min(date(2025, 10, 31), anchor + timedelta(days=rng.randint(5, 240)))
        kind = rng.choice(("months", "months", "quarters"))
        text, period = relative_period(
            rng, today, kind, rng.randint(4, 12) if kind == "months" else rng.randint(2, 6)
        )
        params = dict(product=product, start=period.bounds[0], end=period.bounds[1])
        answer = answer_monthly_trend_analysis(org, **params)
        if (
            answer == [None]
            or _monthly_cases(org, product, period, MONTH_NAMES.index(answer[0]) + 1) < 2
        ):
            return None
        query = rng.choice(TREND).format(
            period=text, Period=capitalized(text), name=org.products[product], pid=product
        )
        return Draft(
            "monthly_trend_analysis",
            query,
            answer,
            wording.TODAY_DASH.format(today=today),
            params | {"today": today.isoformat(), "kind": kind},
        )

    return collect(
        rng,
        one,
        n,
        none_share=0.0,
        distinct=lambda d: (
            d.params["product"],
            d.answer[0],
            d.params["kind"],
            d.params["today"][:7],
        ),
    )


# ----------------------------------------------------------------- top_issue_identification


def answer_top_issue_identification(org: OrgReader, *, product: str, start: str, end: str) -> list:
    counts = Counter(c["IssueId__c"] for c in _product_cases(org, product, _period(start, end)))
    return best(dict(counts), "max")


TOP_ISSUE = (
    "Which problem was reported most frequently for {name} {period}? The associated product Id is {pid}. Return only the issue Id of the most reported issue for this product.",
    "Which issue has been reported most often for {name} {period}? The associated product Id is {pid}. Return only the issue Id of the most reported issue for this product.",
    "What was the top reported issue for {name} {period}? The associated product Id is {pid}. Return only the issue Id of the most reported issue for this product.",
    "{Period}, which issue did customers report most frequently for {name}? The associated product Id is {pid}. Return only the issue Id of the most reported issue for this product.",
)
TOP_ISSUE_PERIODS = {"months": 3.5, "quarters": 3, "season": 3.2, "quarter": 1, "month": 0.4}


def make_top_issue_identification(org: OrgReader, rng: random.Random, n: int) -> list[Draft]:
    product_cases = _cases_by_product(org)
    products = sorted(org.products)

    def one(rng: random.Random, none: bool) -> Draft:
        product = rng.choice(products)
        if none or product not in product_cases:
            today = date(2020, 9, 1) + timedelta(days=rng.randint(0, 1885))
        else:
            anchor = day_of(rng.choice(product_cases[product])["CreatedDate"])
            today = min(date(2025, 10, 31), anchor + timedelta(days=rng.randint(3, 200)))
        text, period, kind = pick_period(rng, today, TOP_ISSUE_PERIODS)
        params = dict(product=product, start=period.bounds[0], end=period.bounds[1])
        answer = answer_top_issue_identification(org, **params)
        query = rng.choice(TOP_ISSUE).format(
            name=org.products[product], period=text, Period=capitalized(text), pid=product
        )
        return Draft(
            "top_issue_identification",
            query,
            answer,
            wording.TODAY_DASH.format(today=today),
            params | {"today": today.isoformat(), "kind": kind},
        )

    return collect(
        rng, one, n, distinct=lambda d: (d.params["product"], d.answer[0], d.params["kind"])
    )


# ----------------------------------------------------------------- case_routing


def answer_case_routing(org: OrgReader, *, issue: str, product: str) -> list:
    closed = [c for c in org.cases if c["Status"] == "Closed"]
    by_issue = Counter(c["OwnerId"] for c in closed if c["IssueId__c"] == issue)
    if not by_issue:
        raise Ambiguous("nobody closed a case of this issue")
    top = max(by_issue.values())
    tied = [a for a, k in by_issue.items() if k == top]
    if len(tied) > 1:
        by_product = Counter(
            c["OwnerId"] for c in closed if org.product_of_item.get(c["OrderItemId__c"]) == product
        )
        top = max(by_product.get(a, 0) for a in tied)
        tied = [a for a in tied if by_product.get(a, 0) == top]
    if len(tied) > 1:
        open_cases = Counter(c["OwnerId"] for c in org.cases if c["Status"] != "Closed")
        low = min(open_cases.get(a, 0) for a in tied)
        tied = [a for a in tied if open_cases.get(a, 0) == low]
    if len(tied) > 1:
        raise Ambiguous("tie after every criterion")
    return tied


ROUTING = (
    "Based on the case routing policy, who is the best agent for the case below? Return only the Id of the agent.",
    "Following the case routing policy, which agent should this new case be assigned to? Return only the Id of the agent.",
    "Apply the case routing policy and find the best agent for the case below. Return only the Id of the agent.",
)


def make_case_routing(org: OrgReader, rng: random.Random, n: int) -> list[Draft]:
    from crmarena_tui.demo.theme import theme_for

    theme = theme_for(org.org_type)
    issue_ids = {r["Name"]: r["Id"] for r in org.rows("SELECT Id, Name FROM Issue__c")}
    product_ids = {name: pid for pid, name in org.products.items()}
    specs = sorted(theme.issues, key=lambda i: i.name)

    def one(rng: random.Random, none: bool) -> Draft:
        spec = rng.choice(specs)
        fitting = [p.name for p in theme.products if spec.name in theme.issues_for(p.category)]
        name = rng.choice(fitting)
        params = dict(issue=issue_ids[spec.name], product=product_ids[name])
        answer = answer_case_routing(org, **params)
        subject = rng.choice(spec.subjects).format(product=name)
        body = casetext.describe(rng, org.org_type, spec, name, random_today(rng))
        query = f"{rng.choice(ROUTING)}\n## Given Case\n- Case Subject: {subject}\n- Case Description: {body}"
        return Draft("case_routing", query, answer, wording.CASE_ROUTING, params)

    return collect(
        rng, one, n, none_share=0, distinct=lambda d: (d.params["issue"], d.params["product"])
    )
