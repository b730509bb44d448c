"""Leads, owned by the lead desk (a subset of sales agents with their own conversion rates), and
the voice calls with leads that state the BANT facts.

A lead with calls states each BANT fact exactly once across its calls (phrases in `texts`):
Budget is met when the stated budget is at least the BANT article's minimum, Timeline when the
stated months are at most the article's maximum, Authority and Need by the met/unmet phrases.
"""

from __future__ import annotations

from datetime import timedelta

from crmarena_tui.demo.names import COMPANY_HEADS, COMPANY_TAILS, FIRST_NAMES, JOB_TITLES
from crmarena_tui.demo.orggen import texts, transcripts
from crmarena_tui.demo.orggen.context import (
    DATA_END,
    DATA_START,
    BuildContext,
    dt_text,
    phone,
    random_dt,
    slug,
)


def build_leads(ctx: BuildContext) -> None:
    rng = ctx.rng("leads")
    sales = ctx.index["sales_agents"]
    desk = rng.sample(sales, min(len(sales), ctx.count("lead_desk_agents", 3)))
    conv_rate = {a: rng.uniform(0.15, 0.75) for a in desk}
    weight = [rng.uniform(0.5, 2.0) for _ in desk]
    ctx.index["lead_desk"] = desk
    accounts = ctx.index["accounts"]
    contacts_by_account = ctx.index["contacts_by_account"]
    pol = ctx.theme.policies
    b2c = ctx.org_type == "b2c"
    user_rows = ctx.index["user_rows"]
    for _ in range(ctx.count("Lead", 5)):
        p = ctx.person(rng)
        owner = rng.choices(desk, weights=weight)[0]
        created = random_dt(rng, DATA_START, DATA_END - timedelta(days=3))
        company = (
            f"{p.last} Household"
            if b2c
            else f"{rng.choice(COMPANY_HEADS)} {rng.choice(COMPANY_TAILS)}"
        )
        has_calls = rng.random() < 0.42
        unmet = (
            [f for f in ("Budget", "Authority", "Need", "Timeline") if rng.random() < 0.25]
            if has_calls
            else []
        )
        p_conv = conv_rate[owner] * (0.45 if unmet else 1.0)
        converted_on = created.date() + timedelta(days=rng.randint(2, 90))
        converted = rng.random() < p_conv and converted_on <= DATA_END
        fields = dict(
            FirstName=p.first,
            LastName=p.last,
            Name=p.name,
            Email=f"{slug(p.name)}@{'mailbox' if b2c else slug(company).replace('.', '')}.example",
            Phone=phone(rng),
            Company=company,
            Title=None if b2c else rng.choice(JOB_TITLES),
            CreatedDate=dt_text(created),
            OwnerId=owner,
        )
        if converted:
            aid = rng.choice(accounts)
            fields.update(
                Status="Closed - Converted",
                IsConverted=1,
                ConvertedDate=converted_on.isoformat(),
                ConvertedAccountId=aid,
                ConvertedContactId=rng.choice(contacts_by_account[aid]),
            )
        else:
            status = (
                rng.choice(("Working - Contacted", "Closed - Not Converted"))
                if has_calls
                else rng.choice(
                    ("Open - Not Contacted", "Working - Contacted", "Closed - Not Converted")
                )
            )
            fields.update(
                Status=status,
                IsConverted=0,
                ConvertedDate=None,
                ConvertedAccountId=None,
                ConvertedContactId=None,
            )
        lead_id = ctx.add("Lead", **fields)
        if has_calls:
            _calls(
                ctx, rng, lead_id, p.first, user_rows[owner]["FirstName"], created, unmet, pol, b2c
            )


def _calls(ctx, rng, lead_id, lead_first, agent_first, created, unmet, pol, b2c) -> None:
    cur = pol.currency_unit
    low_budget = max(1, pol.bant_budget // 5)
    step = 500 if b2c else 5000
    if "Budget" in unmet:
        amount = rng.randrange(low_budget, pol.bant_budget - step + 1, step)
    else:
        amount = rng.randrange(pol.bant_budget + step, pol.bant_budget * 6, step)
    months = (
        rng.randint(pol.bant_months + 2, pol.bant_months * 4)
        if "Timeline" in unmet
        else rng.randint(1, pol.bant_months)
    )
    roles = texts.B2C_ROLES if b2c else texts.ROLES
    statements = [
        ("Budget", rng.choice(texts.BUDGET).format(amount=texts.money(cur, amount))),
        (
            "Authority",
            rng.choice(texts.AUTHORITY_UNMET).format(role=rng.choice(roles))
            if "Authority" in unmet
            else rng.choice(texts.AUTHORITY_MET),
        ),
        (
            "Need",
            rng.choice(texts.NEED_UNMET)
            if "Need" in unmet
            else rng.choice(texts.NEED_MET).format(need=rng.choice(ctx.theme.buyer_needs)),
        ),
        ("Timeline", rng.choice(texts.TIMELINE).format(months=texts.months(months))),
    ]
    rng.shuffle(statements)
    n_calls = rng.choice((1, 2, 2, 3, 3))
    groups: list[list[tuple[str, str]]] = [[] for _ in range(n_calls)]
    for n, s in enumerate(statements):
        groups[n % n_calls if n < n_calls else rng.randrange(n_calls)].append(s)
    when = created
    others = [n for n in FIRST_NAMES if n not in (lead_first, agent_first)]
    for group in groups:
        when = when + timedelta(days=rng.randint(1, 12), hours=rng.randint(0, 5))
        if when.date() > DATA_END:
            when = when - timedelta(days=(when.date() - DATA_END).days)
        colleague = rng.choice(others) if rng.random() < 0.25 else None
        engineer = rng.choice(others) if rng.random() < 0.15 else None
        body = transcripts.lead_call(
            rng,
            agent=agent_first,
            lead=lead_first,
            company=ctx.theme.company,
            today=when.date(),
            statements=group,
            colleague=colleague,
            engineer=engineer if engineer != colleague else None,
        )
        ctx.add(
            "VoiceCallTranscript__c",
            OpportunityId__c=None,
            LeadId__c=lead_id,
            Body__c=body,
            CreatedDate=dt_text(when),
            EndTime__c=dt_text(when + timedelta(minutes=rng.randint(6, 45))),
        )
