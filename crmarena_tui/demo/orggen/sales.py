"""Opportunities with their products, quotes, contracts and orders.

- Each opportunity walks the stages Qualification -> Discovery -> Quote -> Negotiation -> Closed;
  its plan (`ctx.index["opps"]`) keeps the stage segments the activities are dated in.
- Won opportunities (Probability 100) have one 'Accepted' quote, a Contract whose
  CompanySignedDate is the CloseDate (Opportunity.ContractID__c points to it) and one Order
  (Order.ContractId) whose OrderItems are the accepted quote's lines at the discounted unit price.
- Quote lines respect the discount and configuration articles, except planted violations:
  ~10% of quotes carry one line discounted above its category's maximum; another ~15% break
  exactly one configuration rule (quantity out of range, not a pack multiple, or an add-on without the
  product it requires). Violating quotes are never 'Accepted'.
- Wrong-stage opportunities (~8%, never truly in Qualification): StageName differs from the
  stage their latest activities show.
- Activity-priority opportunities (~14% of open ones): get 'Not Started' tasks of other stages.
"""

from __future__ import annotations

from datetime import date, timedelta

from crmarena_tui.demo.orggen.context import DATA_END, DATA_START, BuildContext, dt_text, random_dt
from crmarena_tui.demo.stage_guide import STAGES

OPEN_STAGE_WEIGHTS = (("Qualification", 26), ("Discovery", 25), ("Quote", 27), ("Negotiation", 22))
PROBABILITY = {"Qualification": 10, "Discovery": 25, "Quote": 50, "Negotiation": 75}
QUOTE_STATUS = {
    "Quote": ("Draft", "Needs Review", "In Review", "Presented"),
    "Negotiation": ("Presented", "Approved", "In Review", "Needs Review"),
    "lost": ("Denied", "Rejected"),
}


def build_sales(ctx: BuildContext) -> None:
    rng = ctx.rng("sales")
    sales = ctx.index["sales_agents"]
    pace = {a: rng.uniform(0.45, 2.2) for a in sales}  # how long an agent's deals take
    volume = {a: rng.uniform(0.3, 2.5) for a in sales}  # how many deals an agent gets
    skill = {a: rng.uniform(0.15, 3.0) for a in sales}  # how often an agent wins
    plans = [_plan(ctx, rng, pace, volume) for _ in range(ctx.count("Opportunity", 10))]
    closed = [p for p in plans if p["stage"] == "Closed"]
    n_won = min(len(closed), ctx.count("won_opportunities", 2))
    won: set[int] = set()
    pool = closed[:]
    while len(won) < n_won:
        pick = rng.choices(pool, weights=[skill[p["owner"]] for p in pool])[0]
        won.add(id(pick))
        pool.remove(pick)
    for p in plans:
        p["won"] = id(p) in won
    _plant_flags(rng, plans)
    for p in plans:
        _write_opportunity(ctx, rng, p)
    _quotes(ctx, rng, plans)
    ctx.index["opps"] = plans


def _plan(ctx: BuildContext, rng, pace, volume) -> dict:
    accounts = ctx.index["accounts"]
    account = rng.choice(accounts)
    agents = ctx.index["territory_agents"][
        ctx.index["territory_of_state"][ctx.index["account_state"][account]]
    ]
    agents = agents or ctx.index["sales_agents"]
    owner = rng.choices(agents, weights=[volume[a] for a in agents])[0]
    stage = (
        "Closed"
        if rng.random() < 0.45
        else rng.choices(
            [s for s, _ in OPEN_STAGE_WEIGHTS], weights=[w for _, w in OPEN_STAGE_WEIGHTS]
        )[0]
    )
    k = STAGES.index(stage)
    durations = [max(3, round(rng.randint(6, 40) * pace[owner])) for _ in range(4)]
    if stage == "Closed":
        total = sum(durations)
        created = random_dt(rng, DATA_START, DATA_END - timedelta(days=total + 25))
    else:
        before = sum(durations[:k])
        latest = DATA_END - timedelta(days=before + 6)
        created = random_dt(rng, max(DATA_START, latest - timedelta(days=330)), latest)
    segments, start = [], created.date()
    for n in range(k):
        end = start + timedelta(days=durations[n])
        segments.append((STAGES[n], start, end))
        start = end
    if stage == "Closed":
        segments.append(
            ("Closed", start, min(DATA_END, start + timedelta(days=rng.randint(10, 40))))
        )
    else:
        segments.append((stage, start, DATA_END))
    return {
        "account": account,
        "owner": owner,
        "stage": stage,
        "created": created,
        "segments": segments,
        "contact": rng.choice(ctx.index["contacts_by_account"][account]),
        "wrong": None,
        "misfit": False,
    }


def _plant_flags(rng, plans: list[dict]) -> None:
    open_plans = [p for p in plans if p["stage"] != "Closed"]
    candidates = [p for p in open_plans if p["stage"] != "Qualification"]
    candidates += [p for p in plans if p["won"]]
    for p in rng.sample(candidates, min(len(candidates), max(1, round(0.08 * len(plans))))):
        p["wrong"] = rng.choice([s for s in STAGES if s != p["stage"]])
    rest = [p for p in open_plans if p["wrong"] is None]
    for p in rng.sample(rest, min(len(rest), max(1, round(0.14 * len(open_plans))))):
        p["misfit"] = True


def _line_items(ctx: BuildContext, rng) -> list[tuple[dict, int]]:
    products = ctx.index["products"]
    rules = {r.product: r for r in ctx.theme.config_rules}
    low, high = ctx.theme.lines_per_order
    names = rng.sample(sorted(products), rng.randint(low, high))
    for name in list(names):
        rule = rules.get(name)
        if rule and rule.kind == "requires" and rule.other not in names:
            names.append(rule.other)
    return [(products[n], legal_quantity(ctx, rng, n)) for n in names]


def legal_quantity(ctx: BuildContext, rng, name: str) -> int:
    """A quantity for `name` that its configuration rule (if any) allows."""
    qlow, qhigh = ctx.theme.quantity_range
    qty = rng.randint(qlow, qhigh)
    for rule in ctx.theme.config_rules:
        if rule.product == name and rule.kind == "range":
            qty = rng.randint(rule.low, rule.high)
        elif rule.product == name and rule.kind == "multiple":
            qty = rule.low * max(1, round(qty / rule.low))
    return qty


def _write_opportunity(ctx: BuildContext, rng, p: dict) -> None:
    account_name = ctx.index["account_name"][p["account"]]
    lines = _line_items(ctx, rng)
    p["lines"] = lines
    stage = p["stage"]
    close = (
        p["segments"][-1][1]
        if stage == "Closed"
        else DATA_END + timedelta(days=rng.randint(15, 120))
    )
    lead_product = lines[0][0]["name"]
    fields = dict(
        AccountId=p["account"],
        ContactId=p["contact"],
        OwnerId=p["owner"],
        StageName=p["wrong"] or stage,
        Probability=(100 if p["won"] else 0) if stage == "Closed" else PROBABILITY[stage],
        Amount=round(sum(prod["price"] * q for prod, q in lines), 2),
        Name=f"{account_name} - {lead_product}",
        Description=f"{account_name} is evaluating {lead_product} and {len(lines) - 1} related products.",
        CreatedDate=dt_text(p["created"]),
        CloseDate=close.isoformat(),
        ContractID__c=None,
    )
    if p["won"]:
        signed = close
        cid = ctx.add(
            "Contract",
            AccountId=p["account"],
            Status="Activated",
            StartDate=(signed + timedelta(days=rng.randint(1, 14))).isoformat(),
            CustomerSignedDate=(signed - timedelta(days=rng.randint(0, 5))).isoformat(),
            CompanySignedDate=signed.isoformat(),
            Description=f"Supply agreement with {account_name} for {lead_product}.",
            ContractTerm=rng.choice((12, 24, 36)),
        )
        fields["ContractID__c"] = cid
        p["contract"] = cid
    p["name"] = fields["Name"]
    p["id"] = ctx.add("Opportunity", **fields)
    p["oli"] = [
        ctx.add(
            "OpportunityLineItem",
            OpportunityId=p["id"],
            Product2Id=prod["id"],
            PricebookEntryId=prod["pbe"],
            Quantity=float(q),
            TotalPrice=round(prod["price"] * q, 2),
        )
        for prod, q in lines
    ]


def _allowed_discount(ctx: BuildContext, rng, category: str) -> int:
    top = ctx.theme.category(category).max_discount
    return rng.choice([0, 0, 0, *range(5, top + 1, 5), top])


def _quotes(ctx: BuildContext, rng, plans: list[dict]) -> None:
    target = ctx.count("Quote", 3)
    quoted = [p for p in plans if p["won"]]
    others = [
        p
        for p in plans
        if not p["won"] and (p["stage"] in ("Quote", "Negotiation") or p["stage"] == "Closed")
    ]
    rng.shuffle(others)
    extra = max(0, target - len(quoted))
    candidates = others[:extra]
    quote_plans = [(p, "Accepted") for p in quoted]
    for p in candidates:
        key = "lost" if p["stage"] == "Closed" else p["stage"]
        quote_plans.append((p, rng.choice(QUOTE_STATUS[key])))
    n_discount = max(1, round(0.1 * len(quote_plans)))
    n_config = max(1, round(0.15 * len(quote_plans)))
    open_quotes = [n for n, (_, status) in enumerate(quote_plans) if status != "Accepted"]
    bad = rng.sample(open_quotes, min(len(open_quotes), n_discount + n_config))
    discount_bad, config_bad = set(bad[:n_discount]), set(bad[n_discount:])
    for n, (p, status) in enumerate(quote_plans):
        lines = [
            dict(prod=prod, qty=q, oli=oli, disc=_allowed_discount(ctx, rng, prod["category"]))
            for (prod, q), oli in zip(p["lines"], p["oli"], strict=True)
        ]
        if n in discount_bad:
            line = rng.choice(lines)
            line["disc"] = ctx.theme.category(line["prod"]["category"]).max_discount + rng.choice(
                (3, 5, 8, 10, 15)
            )
            status = rng.choice(("Needs Review", "In Review", "Draft"))
        elif n in config_bad:
            _break_config(ctx, rng, lines)
            status = rng.choice(("Needs Review", "In Review", "Draft"))
        seg = next(
            (s for s in p["segments"] if s[0] in ("Quote", "Negotiation", "Closed")),
            p["segments"][-1],
        )
        created = random_dt(rng, seg[1], min(seg[2], DATA_END))
        qid = ctx.add(
            "Quote",
            OpportunityId=p["id"],
            AccountId=p["account"],
            ContactId=p["contact"],
            Name=f"Q-{len(ctx.rows['Quote']) + 1:05d}",
            Description=f"Quote for {p['name']}",
            Status=status,
            CreatedDate=dt_text(created),
            ExpirationDate=(created.date() + timedelta(days=30)).isoformat(),
        )
        for line in lines:
            price = line["prod"]["price"]
            ctx.add(
                "QuoteLineItem",
                QuoteId=qid,
                OpportunityLineItemId=line["oli"],
                Product2Id=line["prod"]["id"],
                PricebookEntryId=line["prod"]["pbe"],
                Quantity=float(line["qty"]),
                UnitPrice=price,
                Discount=float(line["disc"]),
                TotalPrice=round(price * line["qty"] * (1 - line["disc"] / 100), 2),
            )
        if status == "Accepted":
            _order(ctx, rng, p, lines)


def _break_config(ctx: BuildContext, rng, lines: list[dict]) -> None:
    """Make `lines` break exactly one configuration rule."""
    products = ctx.index["products"]
    present = {line["prod"]["name"]: line for line in lines}
    rules = list(ctx.theme.config_rules)
    rng.shuffle(rules)
    for rule in rules:
        if rule.kind == "range":
            line = present.get(rule.product)
            bad = rule.high + rng.randint(1, 4)
            if line is None:
                lines.append(dict(prod=products[rule.product], qty=bad, oli=None, disc=0))
            else:
                line["qty"] = bad
            return
        if rule.kind == "multiple":
            bad = rule.low * rng.randint(1, 5) + rng.randint(1, rule.low - 1)
            line = present.get(rule.product)
            if line is None:
                lines.append(dict(prod=products[rule.product], qty=bad, oli=None, disc=0))
            else:
                line["qty"] = bad
            return
        if rule.product in present and rule.other in present and len(lines) > 2:
            lines.remove(present[rule.other])
            return
        if rule.product not in present and rule.other not in present:
            lines.append(
                dict(
                    prod=products[rule.product],
                    qty=legal_quantity(ctx, rng, rule.product),
                    oli=None,
                    disc=0,
                )
            )
            return


def _order(ctx: BuildContext, rng, p: dict, lines: list[dict]) -> None:
    signed: date = p["segments"][-1][1]
    effective = min(DATA_END, signed + timedelta(days=rng.randint(0, 10)))
    oid = ctx.add(
        "Order",
        AccountId=p["account"],
        ContractId=p["contract"],
        Status="Activated",
        EffectiveDate=effective.isoformat(),
        Pricebook2Id=ctx.index["pricebook"],
        OwnerId=p["owner"],
    )
    for line in lines:
        ctx.add(
            "OrderItem",
            OrderId=oid,
            Product2Id=line["prod"]["id"],
            Quantity=float(line["qty"]),
            UnitPrice=round(line["prod"]["price"] * (1 - line["disc"] / 100), 2),
            PriceBookEntryId=line["prod"]["pbe"],
        )
    ctx.index.setdefault("orders", []).append((oid, p["account"], effective))
