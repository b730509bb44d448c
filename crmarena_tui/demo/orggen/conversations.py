"""Emails and live chats of a case, some breaking one case-handling article.

A case's conversation is either an email thread (EmailMessage.ParentId = the case, agent messages
sent from the owner's address) or, for about 38% of cases, a live chat (LiveChatTranscript.Body,
lines "Agent <name>: ..." / "Customer <name>: ...") after the customer's first email. About 60% of
conversations contain one policy scenario (phrases in `texts`), half of them breaking the policy:
- refund: a refund above the article's limit without "My manager approved this refund";
- identity: order details ("Your order <Id> ...") shared before asking for email and order number;
- goodwill: a discount on the next order above the article's maximum;
- replacement: "arranged a free replacement" although the case opened more than the article's
  window after the order's EffectiveDate (a repair is offered instead when compliant);
- closure: the agent closes the case without the customer's "That solved it" confirmation.
Every other closed case ends with the customer's confirmation and the agent closing the case.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from crmarena_tui.demo.orggen import texts
from crmarena_tui.demo.orggen.context import DATA_END, BuildContext, dt_text

SCENARIOS = (None, "refund", "identity", "goodwill", "replacement", "closure")
CHAT_SHARE = 58 / 153


def _scenario_lines(
    ctx: BuildContext,
    rng,
    scenario: str | None,
    violate: bool,
    *,
    order,
    product,
    state,
    bought,
    opened,
    contact_email,
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(opening lines after the agent's acknowledgement, resolution lines) as (who, text) pairs."""
    pol = ctx.theme.policies
    cur = pol.currency_unit
    details = texts.ORDER_DETAILS.format(order=order[0], date=order[2].isoformat(), state=state)
    if scenario == "identity":
        if violate:
            return [("agent", details)], [("agent", rng.choice(texts.AGENT_FIX))]
        return [
            ("agent", texts.VERIFY_ASK),
            ("customer", texts.VERIFY_GIVE.format(email=contact_email, order=order[0])),
            ("agent", "Thank you for confirming. " + details),
        ], [("agent", rng.choice(texts.AGENT_FIX))]
    if scenario == "refund":
        limit = pol.refund_limit
        if violate:
            amount = round(limit * rng.uniform(1.1, 3.0), -1)
            line = texts.REFUND.format(amount=texts.money(cur, amount))
        elif rng.random() < 0.5:
            line = texts.REFUND.format(
                amount=texts.money(cur, round(limit * rng.uniform(0.1, 0.95), -1))
            )
        else:
            line = texts.REFUND_APPROVED.format(
                amount=texts.money(cur, round(limit * rng.uniform(1.1, 3.0), -1))
            )
        return [], [("agent", line)]
    if scenario == "goodwill":
        top = pol.goodwill_max
        pct = (
            top + rng.choice((5, 10, 15, 20))
            if violate
            else rng.choice([p for p in (5, 10, 15, 20) if p <= top])
        )
        return [], [
            ("agent", rng.choice(texts.AGENT_FIX)),
            ("agent", texts.GOODWILL.format(pct=pct)),
        ]
    if scenario == "replacement":
        late = (opened.date() - bought).days > pol.replacement_days
        line = texts.REPAIR if late and not violate else texts.REPLACE
        return [], [("agent", line.format(product=product))]
    return [], [("agent", rng.choice(texts.AGENT_FIX))]


def write_conversation(
    ctx: BuildContext,
    rng,
    *,
    case_id: str,
    subject: str,
    description: str,
    opened: datetime,
    closed: datetime | None,
    contact_id: str,
    owner: str,
    order,
    product: str,
    state: str,
    bought,
) -> None:
    users = ctx.index["user_rows"]
    contact = ctx.index["contact_rows"][contact_id]
    agent = users[owner]
    scenario = rng.choices(SCENARIOS, weights=(8, 2, 3, 2, 3, 2))[0]
    if scenario == "closure" and closed is None:
        scenario = None
    violate = scenario is not None and rng.random() < 0.5
    opening, resolution = _scenario_lines(
        ctx,
        rng,
        scenario,
        violate,
        order=order,
        product=product,
        state=state,
        bought=bought,
        opened=opened,
        contact_email=contact["Email"],
    )
    lines: list[tuple[str, str]] = [
        ("agent", rng.choice(texts.AGENT_ACK)),
        *opening,
        ("agent", rng.choice(texts.AGENT_STEP)),
        ("customer", rng.choice(texts.CUSTOMER_REPLY)),
        *resolution,
    ]
    if closed is not None:
        if scenario == "closure" and violate:
            lines.append(("agent", texts.AGENT_CLOSE_UNCONFIRMED))
        else:
            lines += [("customer", texts.CUSTOMER_CONFIRM), ("agent", texts.AGENT_CLOSE)]
    end = closed or min(opened + timedelta(days=6), datetime.combine(DATA_END, datetime.max.time()))
    step = max(60.0, (end - opened).total_seconds() - 120) / (len(lines) + 1)
    ctx.add(
        "EmailMessage",
        Subject=subject,
        TextBody=description,
        ParentId=case_id,
        FromAddress=contact["Email"],
        ToIds=owner,
        MessageDate=dt_text(opened),
        RelatedToId=case_id,
    )
    if rng.random() < CHAT_SHARE:
        body = "\n".join(
            f"Agent {agent['FirstName']}: {text}"
            if who == "agent"
            else f"Customer {contact['FirstName']}: {text}"
            for who, text in lines
        )
        ctx.add(
            "LiveChatTranscript",
            CaseId=case_id,
            AccountId=contact["AccountId"],
            OwnerId=owner,
            Body=body,
            EndTime=dt_text(opened + timedelta(seconds=step * (len(lines) + 1))),
            LiveChatVisitorId=f"LCV-{len(ctx.rows['LiveChatTranscript']) + 1:05d}",
            ContactId=contact_id,
        )
        return
    for n, (who, text) in enumerate(lines, 1):
        when = opened + timedelta(seconds=step * n)
        if who == "agent":
            body = f"Hi {contact['FirstName']},\n\n{text}\n\nBest regards,\n{agent['Name']}"
            ctx.add(
                "EmailMessage",
                Subject=f"Re: {subject}",
                TextBody=body,
                ParentId=case_id,
                FromAddress=agent["Email"],
                ToIds=contact_id,
                MessageDate=dt_text(when),
                RelatedToId=case_id,
            )
        else:
            body = f"Hello,\n\n{text}\n\n{contact['Name']}"
            ctx.add(
                "EmailMessage",
                Subject=f"Re: {subject}",
                TextBody=body,
                ParentId=case_id,
                FromAddress=contact["Email"],
                ToIds=owner,
                MessageDate=dt_text(when),
                RelatedToId=case_id,
            )
