"""Sales analytics tasks: sales_amount_understanding, sales_cycle_understanding,
conversion_rate_comprehension, lead_routing.

Facts planted by the generator (`orggen/sales.py`, `orggen/leads.py`): won opportunities point to
a Contract (Opportunity.ContractID__c) whose CompanySignedDate is the close date; the contract's
Order (Order.ContractId) holds the OrderItems; agents differ in deal pace, volume and win rate;
lead desk agents own the leads and convert at their own rates; each state is in one territory.

Rules fixing the answer:
- sales_amount_understanding: contracts with CompanySignedDate in the period; the opportunity's
  OwnerId earns the sum of Quantity * UnitPrice of the OrderItems of the Orders with that
  ContractId; the agent with the most (or least) sales. [None] when no contract was signed. The
  "greatest increase" form names two consecutive periods (quarters, seasons or months): the
  agent whose sales grew the most from the first to the second (an agent without sales in a
  period has 0 there); [None] when nobody sold in either period.
- sales_cycle_understanding: per won opportunity, days from DAY(Opportunity.CreatedDate) to
  Contract.CompanySignedDate; mean per OwnerId; shortest or longest. The period is read two ways
  (signed in it, created in it); tasks exist only where both give the same unique answer.
- conversion_rate_comprehension: leads with CreatedDate in the period, per OwnerId; converted when
  IsConverted = 1 and ConvertedDate in the period; the highest or lowest converted/total.
  [None] when no lead created in the period converted within it (no rate to compare).
- lead_routing: the Territory2 whose Description lists the state; its agents
  (UserTerritory2Association); most Quotes with Status 'Accepted' (through Quote.OpportunityId ->
  Opportunity.OwnerId); tie -> fewest unconverted leads (IsConverted = 0; tasks exist only when
  counting or not counting 'Closed - Not Converted' leads gives the same agent).
Every task has a unique answer under its rule.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from datetime import date, timedelta
from statistics import mean

from crmarena_tui.demo import dates
from crmarena_tui.demo.dates import Period, day_of
from crmarena_tui.demo.taskgen import wording
from crmarena_tui.demo.taskgen.common import (
    Ambiguous,
    Draft,
    OrgReader,
    agree,
    best,
    capitalized,
    collect,
    fixed_period,
    pick_period,
    random_today,
)


def _period(start: str, end: str) -> Period:
    return Period(date.fromisoformat(start), date.fromisoformat(end))


def _won(org: OrgReader) -> list:
    if "won" not in org.memo:
        org.memo["won"] = org.rows(
            "SELECT o.Id, o.OwnerId, o.CreatedDate, c.Id AS ContractId, c.CompanySignedDate "
            "FROM Opportunity o JOIN Contract c ON c.Id = o.ContractID__c ORDER BY o.Id"
        )
    return org.memo["won"]


# ----------------------------------------------------------------- sales_amount_understanding


def _sales(org: OrgReader, period: Period) -> dict[str, float]:
    if "contract_sales" not in org.memo:
        org.memo["contract_sales"] = {
            r[0]: r[1]
            for r in org.rows(
                'SELECT o.ContractId, SUM(i.Quantity * i.UnitPrice) FROM "Order" o '
                "JOIN OrderItem i ON i.OrderId = o.Id "
                "WHERE o.ContractId IS NOT NULL GROUP BY o.ContractId"
            )
        }
    totals = org.memo["contract_sales"]
    sales: dict[str, float] = defaultdict(float)
    for r in _won(org):
        if r["CompanySignedDate"] in period:
            sales[r["OwnerId"]] += totals.get(r["ContractId"], 0.0)
    return dict(sales)


def answer_sales_amount_understanding(
    org: OrgReader,
    *,
    start: str,
    end: str,
    direction: str,
    before_start: str = "",
    before_end: str = "",
) -> list:
    now = _sales(org, _period(start, end))
    if not before_start:
        return best(now, direction)
    before = _sales(org, _period(before_start, before_end))
    agents = set(now) | set(before)
    return best({a: now.get(a, 0.0) - before.get(a, 0.0) for a in agents}, "max")


AMOUNT_MAX = (
    "Which agent sold the most {period}? Return only the Id of the agent. ",
    "Which agent generated the highest sales amount {period}? Return only the Id of the agent. ",
    "Identify the agent with the largest total sales {period}. Return only the Id of the agent. ",
    "{Period}, which agent achieved the highest sales? Return only the Id of the agent. ",
)
AMOUNT_MIN = (
    "Which agent had the smallest sales total {period}? Return only the Id of the agent. ",
    "Which agent brought in the lowest sales {period}? Return only the Id of the agent. ",
    "{Period}, who had the lowest total sales among the agents? Return only the Id of the agent. ",
)
AMOUNT_GROWTH = (
    "Which agent had the greatest increase in sales from {first} to {second}? Return only the Id of the agent. ",
    "Identify the agent whose sales showed the greatest increase between {first} and {second}. Return only the Id of the agent. ",
)
AMOUNT_PERIODS = {"weeks": 1, "months": 3, "quarters": 3, "quarter": 2, "season": 1.5, "month": 0.5}


def _previous(period: Period, kind: str) -> Period:
    """The quarter, season or month just before `period`."""
    months = 1 if kind == "month" else 3
    start = dates.add_months(period.start, -months)
    return Period(start, period.start - timedelta(days=1))


def make_sales_amount_understanding(org: OrgReader, rng: random.Random, n: int) -> list[Draft]:
    def one(rng: random.Random, none: bool) -> Draft:
        today = random_today(rng)
        form = rng.choices(("max", "min", "growth"), weights=(45, 40, 15))[0]
        if form == "growth":
            kind = rng.choice(("quarter", "quarter", "season", "month"))
            text, period = fixed_period(rng, today, kind)
            before = _previous(period, kind)
            first = _name(before, kind, text)
            params = dict(
                start=period.bounds[0],
                end=period.bounds[1],
                direction="max",
                before_start=before.bounds[0],
                before_end=before.bounds[1],
            )
            query = rng.choice(AMOUNT_GROWTH).format(first=first, second=text)
        else:
            mix = {"weeks": 2, "month": 2} if none else AMOUNT_PERIODS
            text, period, _ = pick_period(rng, today, mix)
            params = dict(start=period.bounds[0], end=period.bounds[1], direction=form)
            query = rng.choice(AMOUNT_MAX if form == "max" else AMOUNT_MIN).format(
                period=text, Period=capitalized(text)
            )
        return Draft(
            "sales_amount_understanding",
            query,
            answer_sales_amount_understanding(org, **params),
            wording.SALES_AMOUNT.format(today=today),
            params | {"today": today.isoformat(), "form": form},
        )

    return collect(rng, one, n)


def _name(period: Period, kind: str, like: str) -> str:
    """`period` named the way `like` names its kind ("Q2 2022", "the fall of 2021", "May 2021")."""
    y, m = period.start.year, period.start.month
    if kind == "month":
        return f"{dates.MONTH_NAMES[m - 1]} {y}"
    if kind == "quarter":
        q = (m - 1) // 3 + 1
        ordinal = ("first", "second", "third", "fourth")[q - 1]
        return f"the {ordinal} quarter of {y}" if like.startswith("the ") else f"Q{q} {y}"
    season = {12: "winter", 3: "spring", 6: "summer", 9: "fall"}[m]
    return f"the {season} of {y}" if like.startswith("the ") else f"{season.capitalize()} {y}"


# ----------------------------------------------------------------- sales_cycle_understanding


def _cycle(org: OrgReader, period: Period, direction: str, mode: str) -> list:
    cycles: dict[str, list[int]] = defaultdict(list)
    for r in _won(org):
        anchor = r["CompanySignedDate"] if mode == "signed" else r["CreatedDate"]
        if anchor in period:
            cycles[r["OwnerId"]].append(
                (day_of(r["CompanySignedDate"]) - day_of(r["CreatedDate"])).days
            )
    return best({a: mean(v) for a, v in cycles.items()}, direction)


def answer_sales_cycle_understanding(
    org: OrgReader, *, start: str, end: str, direction: str
) -> list:
    period = _period(start, end)
    return agree(*(_cycle(org, period, direction, m) for m in ("signed", "created")))


CYCLE_MIN = (
    "{Period}, which agent moved opportunities from creation to a signed contract in the shortest average time? Return only the Id of the agent.",
    "Which agent closed deals fastest on average {period}, measured from opportunity creation to contract signature? Return only the Id of the agent.",
    "Identify the agent with the shortest average sales cycle {period}. Return only the Id of the agent.",
)
CYCLE_MAX = (
    "{Period}, whose opportunities took the longest on average to go from creation to a signed contract? Return only the Id of the agent.",
    "Which agent had the longest average sales cycle {period}? Return only the Id of the agent.",
    "Who needed the most time on average to move opportunities from creation to a signed contract {period}? Return only the Id of the agent.",
)
CYCLE_PERIODS = {"months": 2, "quarters": 3, "season": 3, "quarter": 2, "month": 0.5}


def make_sales_cycle_understanding(org: OrgReader, rng: random.Random, n: int) -> list[Draft]:
    def one(rng: random.Random, none: bool) -> Draft:
        direction = rng.choice(("min", "max"))
        today = random_today(rng)
        mix = {"weeks": 2, "month": 2} if none else CYCLE_PERIODS
        text, period, _ = pick_period(rng, today, mix)
        params = dict(start=period.bounds[0], end=period.bounds[1], direction=direction)
        template = rng.choice(CYCLE_MIN if direction == "min" else CYCLE_MAX)
        return Draft(
            "sales_cycle_understanding",
            template.format(period=text, Period=capitalized(text)),
            answer_sales_cycle_understanding(org, **params),
            wording.SALES_CYCLE.format(today=today),
            params | {"today": today.isoformat()},
        )

    return collect(rng, one, n)


# ----------------------------------------------------------------- conversion_rate_comprehension


def answer_conversion_rate_comprehension(
    org: OrgReader, *, start: str, end: str, direction: str
) -> list:
    period = _period(start, end)
    total: Counter = Counter()
    converted: Counter = Counter()
    if "leads" not in org.memo:
        org.memo["leads"] = org.rows(
            "SELECT OwnerId, CreatedDate, IsConverted, ConvertedDate FROM Lead"
        )
    for r in org.memo["leads"]:
        if r["CreatedDate"] in period:
            total[r["OwnerId"]] += 1
            if r["IsConverted"] == 1 and r["ConvertedDate"] and r["ConvertedDate"] in period:
                converted[r["OwnerId"]] += 1
    if not converted:
        return [None]
    return best({a: converted[a] / total[a] for a in total}, direction)


CONVERSION_MAX = (
    "Which agent achieved the best lead conversion rate {period}? Return only the Id of the agent.",
    "Which agent converted the largest share of their leads {period}? Return only the Id of the agent.",
    "{Period}, which agent had the highest conversion rate for leads? Return only the Id of the agent.",
)
CONVERSION_MIN = (
    "Which agent's leads converted at the lowest rate {period}? Return only the Id of the agent.",
    "Which agent converted the smallest share of their leads {period}? Return only the Id of the agent.",
    "{Period}, which agent had the lowest conversion rate for leads? Return only the Id of the agent.",
)
CONVERSION_PERIODS = {"weeks": 3, "months": 3, "quarters": 2.2, "season": 4.5, "quarter": 0.8}


def make_conversion_rate_comprehension(org: OrgReader, rng: random.Random, n: int) -> list[Draft]:
    def one(rng: random.Random, none: bool) -> Draft:
        direction = rng.choice(("max", "min"))
        today = random_today(rng)
        mix = {"weeks": 1} if none else CONVERSION_PERIODS
        text, period, _ = pick_period(rng, today, mix)
        params = dict(start=period.bounds[0], end=period.bounds[1], direction=direction)
        template = rng.choice(CONVERSION_MAX if direction == "max" else CONVERSION_MIN)
        return Draft(
            "conversion_rate_comprehension",
            template.format(period=text, Period=capitalized(text)),
            answer_conversion_rate_comprehension(org, **params),
            wording.CONVERSION_RATE.format(today=today),
            params | {"today": today.isoformat()},
        )

    return collect(rng, one, n, attempts=1500)


# ----------------------------------------------------------------- lead_routing


def _fewest_open(org: OrgReader, agents: list[str], closed_count: bool) -> list[str]:
    sql = "SELECT OwnerId, COUNT(*) FROM Lead WHERE IsConverted = 0"
    if not closed_count:
        sql += " AND Status != 'Closed - Not Converted'"
    open_leads = {r[0]: r[1] for r in org.rows(sql + " GROUP BY OwnerId")}
    low = min(open_leads.get(a, 0) for a in agents)
    return sorted(a for a in agents if open_leads.get(a, 0) == low)


def answer_lead_routing(org: OrgReader, *, state: str) -> list:
    matches = [
        r["Id"]
        for r in org.rows("SELECT Id, Description FROM Territory2")
        if state in [s.strip() for s in (r["Description"] or "").split(",")]
    ]
    if len(matches) != 1:
        raise Ambiguous("no single territory")
    agents = [
        r[0]
        for r in org.rows(
            "SELECT UserId FROM UserTerritory2Association WHERE Territory2Id = ?", matches[0]
        )
    ]
    if not agents:
        raise Ambiguous("territory without agents")
    accepted = Counter(
        r[0]
        for r in org.rows(
            "SELECT o.OwnerId FROM Quote q JOIN Opportunity o ON o.Id = q.OpportunityId WHERE q.Status = 'Accepted'"
        )
    )
    top = max(accepted.get(a, 0) for a in agents)
    tied = [a for a in agents if accepted.get(a, 0) == top]
    if len(tied) > 1:
        tied = agree(_fewest_open(org, tied, True), _fewest_open(org, tied, False))
    if len(tied) != 1:
        raise Ambiguous("tie after workload")
    return list(tied)


LEAD_ROUTING = (
    "Which agent should take this lead? Return only the Id of the agent.",
    "Who is the right agent to assign this new lead to? Return only the Id of the agent.",
    "Following the lead routing policy, who should take this new lead? Return only the Id of the agent.",
    "To whom should this lead be assigned? Return only the Id of the agent.",
)


def make_lead_routing(org: OrgReader, rng: random.Random, n: int) -> list[Draft]:
    states = sorted(
        {s.strip() for (d,) in org.rows("SELECT Description FROM Territory2") for s in d.split(",")}
    )

    def one(rng: random.Random, none: bool) -> Draft:
        state = rng.choice(states)
        answer = answer_lead_routing(org, state=state)
        return Draft(
            "lead_routing",
            rng.choice(LEAD_ROUTING),
            answer,
            wording.LEAD_ROUTING.format(state=state),
            {"state": state},
        )

    # 50 states for 100 tasks: a state comes back (as upstream's leads do) with other words
    return collect(rng, one, n, none_share=0, distinct=lambda d: (d.params["state"], d.query))
