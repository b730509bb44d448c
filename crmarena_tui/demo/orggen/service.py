"""Cases and their owner history.

- Every case is about an OrderItem bought by the case's account before the case was opened
  (Case.OrderItemId__c; the product is OrderItem.Product2Id) and names one Issue__c.
- Service agents have two specialist issues each; most cases of an issue go to its specialists.
  Each agent has a speed factor and each state a factor, so handle times differ by agent and state.
- Owner history (CaseHistory__c): one 'Case Creation' row, then 'Owner Assignment' rows: the first
  has OldValue__c empty and NewValue__c the first owner; each transfer adds a row OldValue__c = A,
  NewValue__c = B. A case is transferred exactly when it has more than one 'Owner Assignment'.
  Case.OwnerId is the last owner. Closed cases have Status 'Closed' and a ClosedDate.
- Monthly bursts: for ~16% of the case count, a product gets 2-4 cases in one month (the
  monthly_trend_analysis facts); the other cases spread over 2020-2025.
"""

from __future__ import annotations

import bisect
from datetime import date, datetime, timedelta

from crmarena_tui.demo.dates import add_months
from crmarena_tui.demo.names import STATES
from crmarena_tui.demo.orggen import casetext
from crmarena_tui.demo.orggen.context import DATA_END, BuildContext, dt_text
from crmarena_tui.demo.orggen.conversations import write_conversation

OPEN_STATUSES = ("New", "Working", "Escalated")


def build_cases(ctx: BuildContext) -> None:
    rng = ctx.rng("service")
    agents = ctx.index["service_agents"]
    issues = list(ctx.index["issues"].items())
    specialists = {name: rng.sample(agents, min(2, len(agents))) for name, _ in issues}
    speed = {a: rng.uniform(0.35, 2.6) for a in agents}
    state_factor = {s: rng.uniform(0.5, 1.7) for s in STATES}
    items = _purchases(ctx)
    dates = [d for d, _, _ in items]
    n_cases = ctx.count("Case", 3)
    n_bursts = max(1, round(n_cases * 0.16))
    plans: list[tuple[datetime, tuple]] = []
    by_product: dict[str, list[tuple]] = {}
    for item in items:
        by_product.setdefault(item[1]["Product2Id"], []).append(item)
    products = sorted(by_product)
    for _ in range(n_bursts):
        product = rng.choice(products)
        first = by_product[product][0][0]
        start = add_months(date(first.year, first.month, 1), 1)
        if start > date(2025, 9, 1):
            continue
        months = (2025 - start.year) * 12 + 9 - start.month
        month_start = add_months(start, rng.randint(0, max(0, months)))
        for _ in range(rng.randint(2, 4)):
            when = _dt(rng, month_start + timedelta(days=rng.randint(0, 27)))
            choices = [it for it in by_product[product] if it[0] < when.date()]
            if choices and len(plans) < n_cases:
                plans.append((when, rng.choice(choices)))
    first_day = dates[0] + timedelta(days=3) if dates else date(2020, 4, 1)
    while len(plans) < n_cases and items:
        when = _dt(rng, first_day + timedelta(days=rng.randint(0, (DATA_END - first_day).days - 1)))
        k = bisect.bisect_left(dates, when.date())
        if k == 0:
            continue
        plans.append((when, items[rng.randrange(max(0, k - 60), k)]))
    plans.sort(key=lambda x: x[0])
    issue_weight = {name: rng.uniform(0.5, 2.0) for name, _ in issues}
    issue_ids = dict(issues)
    category_of = {p["id"]: p["category"] for p in ctx.index["products"].values()}
    for when, (bought, item, order) in plans:
        fitting = ctx.theme.issues_for(category_of[item["Product2Id"]])
        name = rng.choices(fitting, weights=[issue_weight[n] for n in fitting])[0]
        issue_id = issue_ids[name]
        owners = [rng.choice(specialists[name]) if rng.random() < 0.6 else rng.choice(agents)]
        for _ in range(rng.choices((0, 1, 2), weights=(62, 30, 8))[0]):
            nxt = rng.choice(specialists[name]) if rng.random() < 0.5 else rng.choice(agents)
            if nxt != owners[-1]:
                owners.append(nxt)
        _write_case(
            ctx, rng, when, bought, item, order, name, issue_id, owners, speed, state_factor
        )


def _dt(rng, day: date) -> datetime:
    return datetime(
        day.year, day.month, day.day, rng.randint(7, 19), rng.randint(0, 59), rng.randint(0, 59)
    )


def _purchases(ctx: BuildContext) -> list[tuple[date, dict, tuple]]:
    orders = {oid: (oid, account, day) for oid, account, day in ctx.index.get("orders", [])}
    out = [(orders[r["OrderId"]][2], r, orders[r["OrderId"]]) for r in ctx.rows["OrderItem"]]
    out.sort(key=lambda x: (x[0], x[1]["Id"]))
    return out


def _write_case(
    ctx, rng, when, bought, item, order, issue_name, issue_id, owners, speed, state_factor
) -> None:
    account = order[1]
    state = ctx.index["account_state"][account]
    product = next(p for p in ctx.index["products"].values() if p["id"] == item["Product2Id"])
    spec = next(i for i in ctx.theme.issues if i.name == issue_name)
    hours = rng.uniform(3, 150) * speed[owners[-1]] * state_factor[state]
    closed = when + timedelta(hours=hours)
    is_closed = closed.date() <= DATA_END and (
        closed.date() < DATA_END - timedelta(days=20) or rng.random() < 0.5
    )
    subject = rng.choice(spec.subjects).format(product=product["name"])
    description = casetext.describe(rng, ctx.org_type, spec, product["name"], when.date())
    contact = rng.choice(ctx.index["contacts_by_account"][account])
    case_id = ctx.add(
        "Case",
        Priority=rng.choice(("Low", "Medium", "Medium", "High")),
        Subject=subject,
        Description=description,
        Status="Closed" if is_closed else rng.choice(OPEN_STATUSES),
        ContactId=contact,
        CreatedDate=dt_text(when),
        ClosedDate=dt_text(closed) if is_closed else None,
        OrderItemId__c=item["Id"],
        IssueId__c=issue_id,
        AccountId=account,
        OwnerId=owners[-1],
    )
    ctx.add(
        "CaseHistory__c",
        CaseId__c=case_id,
        OldValue__c=None,
        NewValue__c=None,
        CreatedDate=dt_text(when),
        Field__c="Case Creation",
    )
    end = (
        closed
        if is_closed
        else min(when + timedelta(days=10), datetime.combine(DATA_END, datetime.min.time()))
    )
    span = max(60.0, (end - when).total_seconds())
    moments = sorted(rng.uniform(0.05, 0.9) * span for _ in owners[1:])
    previous = None
    for n, owner in enumerate(owners):
        at = when + timedelta(seconds=60) if n == 0 else when + timedelta(seconds=moments[n - 1])
        ctx.add(
            "CaseHistory__c",
            CaseId__c=case_id,
            OldValue__c=previous,
            NewValue__c=owner,
            CreatedDate=dt_text(at),
            Field__c="Owner Assignment",
        )
        previous = owner
    write_conversation(
        ctx,
        rng,
        case_id=case_id,
        subject=subject,
        description=description,
        opened=when,
        closed=closed if is_closed else None,
        contact_id=contact,
        owner=owners[-1],
        order=order,
        product=product["name"],
        state=state,
        bought=bought,
    )
