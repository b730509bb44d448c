"""Values of the standard fields a live org has beyond the benchmark's (`orgs/schema_standard`).

Filled last, from the rows the other families made, with a generator of their own (`standard`):
no other family's draws move, so every record, task and gold answer of the demo orgs stays as it
was; these fields only add what a live org would hold. Where a value follows from the org it is
derived (a case is closed when its status is, a contract ends its term after it starts, an
order's total is its items' sum, an account's billing state is its shipping state and its owner
an agent of its territory); elsewhere it is drawn.
"""

from __future__ import annotations

import calendar
import random
from collections import defaultdict
from datetime import date, timedelta
from typing import Any

from crmarena_tui.demo.orggen.context import BuildContext, phone

CITY = {  # one large city per state the demo uses
    "WA": "Seattle", "OR": "Portland", "ID": "Boise", "MT": "Billings", "AK": "Anchorage",
    "CA": "Los Angeles", "HI": "Honolulu", "NV": "Las Vegas", "UT": "Salt Lake City",
    "AZ": "Phoenix", "CO": "Denver", "WY": "Cheyenne", "NM": "Albuquerque", "ND": "Fargo",
    "SD": "Sioux Falls", "NE": "Omaha", "KS": "Wichita", "OK": "Oklahoma City",
    "MO": "Kansas City", "IA": "Des Moines", "TX": "Houston", "LA": "New Orleans",
    "AR": "Little Rock", "MS": "Jackson", "AL": "Birmingham", "MI": "Detroit",
    "OH": "Columbus", "IN": "Indianapolis", "IL": "Chicago", "WI": "Milwaukee",
    "MN": "Minneapolis", "KY": "Louisville", "TN": "Nashville", "WV": "Charleston",
    "VA": "Richmond", "FL": "Miami", "GA": "Atlanta", "SC": "Columbia", "NC": "Charlotte",
    "DE": "Wilmington", "NY": "New York", "NJ": "Newark", "PA": "Philadelphia",
    "MD": "Baltimore", "CT": "Hartford", "MA": "Boston", "RI": "Providence",
    "VT": "Burlington", "NH": "Manchester", "ME": "Portland",
}  # fmt: skip
COUNTRY = "United States"
CONTACT_TITLES = (
    "Operations Manager", "Procurement Lead", "IT Director", "Office Manager", "CFO",
    "Facilities Manager", "Purchasing Agent", "VP of Operations", "Engineering Manager",
)  # fmt: skip
CONTACT_DEPARTMENTS = ("Operations", "Procurement", "IT", "Finance", "Facilities", "Engineering")
LEAD_SOURCES = ("Web", "Phone Inquiry", "Partner Referral", "Trade Show", "Email", "Other")
CASE_TYPES = ("Problem", "Question", "Feature Request")
CASE_REASONS = ("Performance", "Breakdown", "Installation", "Equipment Design", "Other")
OPPORTUNITY_TYPES = ("New Customer", "Existing Customer - Upgrade", "Existing Customer - Other")
FORECAST = {"Quote": "Best Case", "Negotiation": "Commit", "Closed": "Closed"}
TASK_TYPES = ("Call", "Email", "Meeting", "Other")


def build_standard_fields(ctx: BuildContext) -> None:
    rng = ctx.rng("standard")
    b2c = ctx.org_type == "b2c"
    _users(ctx, rng)
    owners = _accounts(ctx, rng, b2c)
    for row in ctx.rows["Contact"]:
        state = ctx.index["account_state"].get(row["AccountId"])
        row.update(
            OwnerId=owners.get(row["AccountId"]),
            Phone=phone(rng),
            Title=None if b2c else rng.choice(CONTACT_TITLES),
            Department=None if b2c else rng.choice(CONTACT_DEPARTMENTS),
            MailingCity=CITY.get(state or ""),
            MailingState=state,
            MailingCountry=COUNTRY if state else None,
        )
    for row in ctx.rows["Lead"]:
        state = rng.choice(sorted(CITY))
        row.update(
            LeadSource=rng.choice(LEAD_SOURCES),
            Industry="Consumer" if b2c else rng.choice(_industries(ctx)),
            State=state,
            Country=COUNTRY,
        )
    _cases(ctx, rng)
    for row in ctx.rows["Opportunity"]:
        stage = row.get("StageName")
        row.update(
            Type=rng.choice(OPPORTUNITY_TYPES),
            LeadSource=rng.choice(LEAD_SOURCES),
            ForecastCategoryName=FORECAST.get(stage or "", "Pipeline"),
            IsClosed=int(stage == "Closed"),
        )
    _activities(ctx, rng)
    _contracts_and_orders(ctx, owners)


def _users(ctx: BuildContext, rng: random.Random) -> None:
    service = set(ctx.index["service_agents"])
    sales = set(ctx.index["sales_agents"])
    leads = {
        "service": rng.choice(sorted(service)) if service else None,
        "sales": rng.choice(sorted(sales)) if sales else None,
    }
    for row in ctx.rows["User"]:
        team = "service" if row["Id"] in service else "sales" if row["Id"] in sales else None
        manager = leads.get(team or "")
        row.update(
            Title={"service": "Support Agent", "sales": "Account Executive"}.get(team or ""),
            Department={"service": "Customer Support", "sales": "Sales"}.get(team or ""),
            ManagerId=manager if manager != row["Id"] else None,
        )
        if team and manager == row["Id"]:
            row["Title"] = {"service": "Support Manager", "sales": "Sales Manager"}[team]


def _accounts(ctx: BuildContext, rng: random.Random, b2c: bool) -> dict[str, str]:
    """Fill the accounts; the owner of each account, by its Id."""
    agents = ctx.index["territory_agents"]
    territory = ctx.index["territory_of_state"]
    sales = ctx.index["sales_agents"]
    customers = {r.get("AccountId") for r in ctx.rows["Order"]} | {
        r.get("AccountId") for r in ctx.rows["Contract"]
    }
    owners: dict[str, str] = {}
    for row in ctx.rows["Account"]:
        state = row.get("ShippingState")
        pool = agents.get(territory.get(state)) or sales
        owners[row["Id"]] = owner = rng.choice(pool)
        employees = row.get("NumberOfEmployees")
        revenue = None
        if not b2c and isinstance(employees, int):
            revenue = float(round(employees * rng.uniform(80_000, 250_000), -3))
        site = "".join(c for c in str(row["Name"]).lower() if c.isalnum())
        row.update(
            OwnerId=owner,
            Type="Customer - Direct" if row["Id"] in customers else "Prospect",
            AnnualRevenue=revenue,
            Website=None if b2c else f"https://www.{site}.example",
            BillingCity=CITY.get(state or ""),
            BillingState=state,
            BillingCountry=COUNTRY if state else None,
        )
    return owners


def _industries(ctx: BuildContext) -> list[str]:
    found = sorted({str(r["Industry"]) for r in ctx.rows["Account"] if r.get("Industry")})
    return found or ["Other"]


def _cases(ctx: BuildContext, rng: random.Random) -> None:
    chats = {r.get("CaseId") for r in ctx.rows["LiveChatTranscript"]}
    emailed = {r.get("ParentId") for r in ctx.rows["EmailMessage"]}
    moves: dict[Any, int] = defaultdict(int)
    for r in ctx.rows["CaseHistory__c"]:
        moves[r.get("CaseId__c")] += 1
    ordered = sorted(ctx.rows["Case"], key=lambda r: (str(r.get("CreatedDate")), r["Id"]))
    for n, row in enumerate(ordered):
        kid = row["Id"]
        origin = "Chat" if kid in chats else "Email" if kid in emailed else None
        row.update(
            CaseNumber=f"{1001 + n:08d}",
            Origin=origin or rng.choice(("Phone", "Web")),
            Type=rng.choice(CASE_TYPES),
            Reason=rng.choice(CASE_REASONS),
            IsClosed=int(row.get("Status") == "Closed"),
            IsEscalated=int(moves[kid] > 1),  # handed to another agent
        )


def _activities(ctx: BuildContext, rng: random.Random) -> None:
    opp_contact = {r["Id"]: r.get("ContactId") for r in ctx.rows["Opportunity"]}
    for row in ctx.rows["Task"]:
        subject = str(row.get("Subject") or "").lower()
        kind = next(
            (t for t, word in (("Call", "call"), ("Email", "email"), ("Meeting", "meet"))
             if word in subject),
            None,
        )  # fmt: skip
        row.update(
            WhoId=opp_contact.get(row.get("WhatId")),
            Type=kind or rng.choice(TASK_TYPES),
        )


def _contracts_and_orders(ctx: BuildContext, owners: dict[str, str]) -> None:
    for n, row in enumerate(ctx.rows["Contract"]):
        row.update(
            OwnerId=owners.get(str(row.get("AccountId"))),
            ContractNumber=f"{n + 1:08d}",
            EndDate=_end_date(row.get("StartDate"), row.get("ContractTerm")),
        )
    totals: dict[Any, float] = defaultdict(float)
    for item in ctx.rows["OrderItem"]:
        totals[item.get("OrderId")] += float(item.get("Quantity") or 0) * float(
            item.get("UnitPrice") or 0
        )
    for n, row in enumerate(ctx.rows["Order"]):
        row.update(OrderNumber=f"{n + 1:08d}", TotalAmount=round(totals[row["Id"]], 2))


def _end_date(start: Any, months: Any) -> str | None:
    """The day before the term's end, as Salesforce computes a contract's end date."""
    if not start or not isinstance(months, int):
        return None
    first = date.fromisoformat(str(start)[:10])
    year, month = divmod(first.month - 1 + months, 12)
    year, month = first.year + year, month + 1
    day = min(first.day, calendar.monthrange(year, month)[1])
    return (date(year, month, day) - timedelta(days=1)).isoformat()
