"""Sales analytics tasks: sales_amount_understanding, sales_cycle_understanding,
conversion_rate_comprehension, lead_routing.

Facts planted by the generator (`orggen/sales.py`, `orggen/leads.py`): won opportunities point to
a Contract (Opportunity.ContractID__c) whose CompanySignedDate is the close date; the contract's
Order (Order.ContractId) holds the OrderItems; agents differ in deal pace, volume and win rate;
lead desk agents own the leads and convert at their own rates; each state is in one territory.

Rules fixing the answer:
- sales_amount_understanding: contracts with CompanySignedDate in the period; the opportunity's
  OwnerId earns the sum of Quantity * UnitPrice of the OrderItems of the Orders with that
  ContractId; the agent with the most (or least) sales. [None] when no contract was signed.
- sales_cycle_understanding: per won opportunity, days from DAY(Opportunity.CreatedDate) to
  Contract.CompanySignedDate; mean per OwnerId; shortest or longest. The period is read two ways
  (signed in it, created in it); tasks exist only where both give the same unique answer.
- conversion_rate_comprehension: leads with CreatedDate in the period, per OwnerId; converted when
  IsConverted = 1 and ConvertedDate in the period; the highest or lowest converted/total.
- lead_routing: the Territory2 whose Description lists the state; its agents
  (UserTerritory2Association); most Quotes with Status 'Accepted' (through Quote.OpportunityId ->
  Opportunity.OwnerId); tie -> fewest unconverted leads (IsConverted = 0; tasks exist only when
  counting or not counting 'Closed - Not Converted' leads gives the same agent).
Every task has a unique answer under its rule.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import date
from statistics import mean

from crmarena_tui.demo.dates import Period, day_of
from crmarena_tui.demo.taskgen import wording
from crmarena_tui.demo.taskgen.common import (
    Ambiguous,
    Draft,
    OrgReader,
    agree,
    any_period,
    best,
    collect,
    collect_each,
    random_today,
)


def _period(start: str, end: str) -> Period:
    return Period(date.fromisoformat(start), date.fromisoformat(end))


def _won(org: OrgReader) -> list:
    return org.rows(
        "SELECT o.Id, o.OwnerId, o.CreatedDate, c.Id AS ContractId, c.CompanySignedDate "
        "FROM Opportunity o JOIN Contract c ON c.Id = o.ContractID__c ORDER BY o.Id"
    )


# ----------------------------------------------------------------- sales_amount_understanding


def answer_sales_amount_understanding(
    org: OrgReader, *, start: str, end: str, direction: str
) -> list:
    period = _period(start, end)
    totals = {
        r[0]: r[1]
        for r in org.rows(
            'SELECT o.ContractId, SUM(i.Quantity * i.UnitPrice) FROM "Order" o JOIN OrderItem i ON i.OrderId = o.Id '
            "WHERE o.ContractId IS NOT NULL GROUP BY o.ContractId"
        )
    }
    sales: dict[str, float] = defaultdict(float)
    for r in _won(org):
        if r["CompanySignedDate"] in period:
            sales[r["OwnerId"]] += totals.get(r["ContractId"], 0.0)
    return best(dict(sales), direction)


AMOUNT_MAX = (
    "Who recorded the most sales {period}? Return only the Id of the agent. ",
    "Which agent generated the highest sales amount {period}? Return only the Id of the agent. ",
    "Identify the top-selling agent {period}. Return only the Id of the agent. ",
)
AMOUNT_MIN = (
    "Determine which agent had the smallest amount of sales {period}. Return only the Id of the agent. ",
    "Which agent brought in the lowest sales {period}? Return only the Id of the agent. ",
)


def make_sales_amount_understanding(org: OrgReader, rng, n: int) -> list[Draft]:
    return collect_each(rng, lambda d: lambda rng: _amount_draft(org, rng, d), ("max", "min"), n)


def _amount_draft(org: OrgReader, rng, direction: str) -> Draft:
    today = random_today(rng, date(2020, 6, 1))
    text, period = any_period(rng, today, fixed_share=0.4, kinds=("months", "quarters"))
    params = dict(start=period.bounds[0], end=period.bounds[1], direction=direction)
    answer = answer_sales_amount_understanding(org, **params)
    query = rng.choice(AMOUNT_MAX if direction == "max" else AMOUNT_MIN).format(period=text)
    return Draft(
        "sales_amount_understanding",
        query,
        answer,
        wording.SALES_AMOUNT.format(today=today),
        params | {"today": today.isoformat()},
    )


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
    "{Period}, which agent had the quickest average duration for transitioning opportunities from start to finish? Return only the Id of the agent.",
    "Which agent closed deals fastest on average {period}, measured from opportunity creation to contract signature? Return only the Id of the agent.",
)
CYCLE_MAX = (
    "{Period}, which agent took the longest average time to transition opportunities from initiation to closure? Return only the Id of the agent.",
    "Which agent had the longest average sales cycle {period}? Return only the Id of the agent.",
)


def make_sales_cycle_understanding(org: OrgReader, rng, n: int) -> list[Draft]:
    return collect_each(rng, lambda d: lambda rng: _cycle_draft(org, rng, d), ("min", "max"), n)


def _cycle_draft(org: OrgReader, rng, direction: str) -> Draft:
    today = random_today(rng, date(2020, 6, 1))
    text, period = any_period(rng, today, fixed_share=0.5, kinds=("months", "quarters"))
    params = dict(start=period.bounds[0], end=period.bounds[1], direction=direction)
    answer = answer_sales_cycle_understanding(org, **params)
    template = rng.choice(CYCLE_MIN if direction == "min" else CYCLE_MAX)
    query = template.format(period=text, Period=text[0].upper() + text[1:])
    return Draft(
        "sales_cycle_understanding",
        query,
        answer,
        wording.SALES_CYCLE.format(today=today),
        params | {"today": today.isoformat()},
    )


# ----------------------------------------------------------------- conversion_rate_comprehension


def answer_conversion_rate_comprehension(
    org: OrgReader, *, start: str, end: str, direction: str
) -> list:
    period = _period(start, end)
    total: Counter = Counter()
    converted: Counter = Counter()
    for r in org.rows("SELECT OwnerId, CreatedDate, IsConverted, ConvertedDate FROM Lead"):
        if r["CreatedDate"] in period:
            total[r["OwnerId"]] += 1
            if r["IsConverted"] == 1 and r["ConvertedDate"] and r["ConvertedDate"] in period:
                converted[r["OwnerId"]] += 1
    return best({a: converted[a] / total[a] for a in total}, direction)


CONVERSION_MAX = (
    "Who achieved the highest lead conversion rate among agents {period}? Return only the Id of the agent.",
    "Which agent converted the largest share of their leads {period}? Return only the Id of the agent.",
)
CONVERSION_MIN = (
    "Who had the lowest lead conversion rate among agents {period}? Return only the Id of the agent.",
    "Which agent converted the smallest share of their leads {period}? Return only the Id of the agent.",
)


def make_conversion_rate_comprehension(org: OrgReader, rng, n: int) -> list[Draft]:
    return collect_each(
        rng,
        lambda d: lambda rng: _conversion_draft(org, rng, d),
        ("max", "min"),
        n,
        attempts=1500,
        none_share=0.1,
    )


def _conversion_draft(org: OrgReader, rng, direction: str) -> Draft:
    today = random_today(rng, date(2020, 6, 1))
    kinds = ("weeks", "months", "quarters") if direction == "max" else ("quarters",)
    text, period = any_period(rng, today, fixed_share=0.3, kinds=kinds)
    params = dict(start=period.bounds[0], end=period.bounds[1], direction=direction)
    answer = answer_conversion_rate_comprehension(org, **params)
    query = rng.choice(CONVERSION_MAX if direction == "max" else CONVERSION_MIN).format(period=text)
    return Draft(
        "conversion_rate_comprehension",
        query,
        answer,
        wording.CONVERSION_RATE.format(today=today),
        params | {"today": today.isoformat()},
    )


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
    "Which agent ought to be allocated to this lead? Return only the Id of the agent.",
    "Which agent should be allocated to this lead? Return only the Id of the agent.",
    "Following the lead routing policy, who should take this new lead? Return only the Id of the agent.",
    "To whom should this lead be assigned? Return only the Id of the agent.",
)


def make_lead_routing(org: OrgReader, rng, n: int) -> list[Draft]:
    states = sorted(
        {s.strip() for (d,) in org.rows("SELECT Description FROM Territory2") for s in d.split(",")}
    )

    def one(rng) -> Draft:
        state = rng.choice(states)
        answer = answer_lead_routing(org, state=state)
        return Draft(
            "lead_routing",
            rng.choice(LEAD_ROUTING),
            answer,
            wording.LEAD_ROUTING.format(state=state),
            {"state": state},
        )

    return collect(rng, one, n, none_share=0, distinct=lambda d: d.params["state"])
