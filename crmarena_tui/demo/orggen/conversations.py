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

Around the scenario, threads vary: more back and forth, a colleague of the customer chiming in,
a hand-over to a second-line agent, greetings, small talk and sign-offs (`texts.mail`), dates and
numbers in words. None of that is placed between the agent's request for identity details and
the customer's answer, and none of it uses a planted phrase.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from crmarena_tui.demo.orggen import talk, texts
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
    today = opened.date()
    middle: list[tuple[str, str]] = [
        ("agent", rng.choice(texts.AGENT_STEP)),
        ("customer", talk.utter(rng, rng.choice(texts.CUSTOMER_REPLY), today)),
    ]
    if rng.random() < 0.5:  # more back and forth before the fix
        middle += [
            ("agent", talk.fill(rng, rng.choice(texts.AGENT_FOLLOW_UP), today)),
            ("customer", talk.fill(rng, rng.choice(texts.CUSTOMER_DETAIL), today)),
        ]
    colleagues = [
        c for c in ctx.index["contacts_by_account"][contact["AccountId"]] if c != contact_id
    ]
    helper = rng.choice(colleagues) if colleagues and rng.random() < 0.3 else None
    if helper:
        middle.append(("colleague", talk.fill(rng, rng.choice(texts.COLLEAGUE_NOTE), today)))
    service = [a for a in ctx.index["service_agents"] if a != owner]
    second = rng.choice(service) if service and rng.random() < 0.25 else None
    if second:
        middle += [
            ("agent", texts.HANDOVER.format(name=users[second]["FirstName"])),
            ("second", talk.fill(rng, rng.choice(texts.SECOND_LINE), today)),
        ]
    lines: list[tuple[str, str]] = [
        ("agent", rng.choice(texts.AGENT_ACK)),
        *opening,
        *middle,
        *resolution,
    ]
    if closed is not None:
        if scenario == "closure" and violate:
            lines.append(("agent", texts.AGENT_CLOSE_UNCONFIRMED))
        else:
            lines += [("customer", texts.CUSTOMER_CONFIRM), ("agent", texts.AGENT_CLOSE)]
    end = closed or min(opened + timedelta(days=6), datetime.combine(DATA_END, datetime.max.time()))
    step = max(60.0, (end - opened).total_seconds() - 120) / (len(lines) + 1)
    # speaker -> (first name, full name, email address, record Id)
    people: dict[str, tuple[str, str, str, str]] = {
        "agent": (agent["FirstName"], agent["Name"], agent["Email"], owner),
        "customer": (contact["FirstName"], contact["Name"], contact["Email"], contact_id),
    }
    if second:
        row = users[second]
        people["second"] = (row["FirstName"], row["Name"], row["Email"], second)
    if helper:
        row = ctx.index["contact_rows"][helper]
        people["colleague"] = (row["FirstName"], row["Name"], row["Email"], helper)
    first_mail = texts.customer_mail(rng, contact["Name"], description, today)
    _email(ctx, case_id, subject, first_mail, contact["Email"], owner, opened)
    if rng.random() < CHAT_SHARE:
        chat = [
            f"{'Agent' if who in ('agent', 'second') else 'Customer'} {people[who][0]}: "
            + talk.hesitate(rng, text, 0.15)
            for who, text in lines
        ]
        chat.insert(1, f"Customer {contact['FirstName']}: {rng.choice(texts.CHAT_HELLO)}")
        ctx.add(
            "LiveChatTranscript",
            CaseId=case_id,
            AccountId=contact["AccountId"],
            OwnerId=owner,
            Body="\n".join(chat),
            EndTime=dt_text(opened + timedelta(seconds=step * (len(lines) + 1))),
            LiveChatVisitorId=f"LCV-{len(ctx.rows['LiveChatTranscript']) + 1:05d}",
            ContactId=contact_id,
        )
        return
    for n, (who, text) in enumerate(lines, 1):
        _first, name, email, _ref = people[who]
        staff = who in ("agent", "second")
        reader = contact["FirstName"] if staff else agent["FirstName"]
        body = texts.mail(rng, text, reader, name, staff, ctx.theme.company, today)
        to = contact_id if staff else owner
        _email(
            ctx, case_id, f"Re: {subject}", body, email, to, opened + timedelta(seconds=step * n)
        )


def _email(ctx: BuildContext, case_id, subject, body, sender, to, when) -> None:
    ctx.add(
        "EmailMessage",
        Subject=subject,
        TextBody=body,
        ParentId=case_id,
        FromAddress=sender,
        ToIds=to,
        MessageDate=dt_text(when),
        RelatedToId=case_id,
    )
