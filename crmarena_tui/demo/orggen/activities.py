"""Tasks, events, sales calls and sales emails along each opportunity's stage segments.

Tasks: every past stage gets Completed tasks dated inside its segment; the current (true) stage
gets Completed / In Progress tasks dated strictly after every earlier task, so the latest
non-'Not Started' task always names the true stage. 'Not Started' tasks are due after the data
ends: normally 0-1 of the current stage; activity-priority opportunities get 4-7 of other stages
plus 1-3 of the current stage; wrong-stage opportunities get none.
Calls (VoiceCallTranscript__c.OpportunityId__c): one per stage segment with probability 0.65
(always one in the current segment of a wrong-stage opportunity), carrying the opportunity's
planted subtopic sentiments and competitor mentions (phrases in `texts`). Competitor popularity
shifts from year to year.
"""

from __future__ import annotations

from datetime import date, timedelta

from crmarena_tui.demo.names import FIRST_NAMES
from crmarena_tui.demo.orggen import texts, transcripts
from crmarena_tui.demo.orggen.context import DATA_END, BuildContext, dt_text, random_dt
from crmarena_tui.demo.stage_guide import STAGE_ACTIVITIES, STAGE_CALL_TOPICS, STAGES

EVENT_SUBJECTS = {
    "Qualification": "Intro meeting with {account}",
    "Discovery": "Discovery workshop with {account}",
    "Quote": "Product demo for {account}",
    "Negotiation": "Negotiation meeting with {account}",
    "Closed": "Kick-off meeting with {account}",
}


def _day(rng, start: date, end: date) -> date:
    end = min(end, DATA_END)
    if end <= start:
        return min(start, DATA_END)
    return start + timedelta(days=rng.randint(0, (end - start).days))


def build_activities(ctx: BuildContext) -> None:
    rng = ctx.rng("activities")
    users = ctx.index["user_rows"]
    contacts = ctx.index["contact_rows"]
    for p in ctx.index["opps"]:
        account = ctx.index["account_name"][p["account"]]
        contact = contacts[p["contact"]]
        names = {"account": account, "contact": contact["Name"]}
        _tasks(ctx, rng, p, names)
        _calls(ctx, rng, p, names, users[p["owner"]]["FirstName"], contact["FirstName"])
        _emails(ctx, rng, p, names, users[p["owner"]], contact)
    plans = ctx.index["opps"]
    for _ in range(ctx.count("Event", 2)):
        p = rng.choice(plans)
        stage, start, end = rng.choice(p["segments"])
        when = random_dt(rng, start, min(end, DATA_END))
        ctx.add(
            "Event",
            WhatId=p["id"],
            OwnerId=p["owner"],
            StartDateTime=dt_text(when),
            Subject=EVENT_SUBJECTS[stage].format(account=ctx.index["account_name"][p["account"]]),
            Description=f"{stage} stage meeting.",
            DurationInMinutes=rng.choice((30, 45, 60, 90)),
            Location=rng.choice(("Video call", "Customer office", "Our office")),
            IsAllDayEvent=0,
        )


def _task(ctx, rng, p, subject: str, status: str, day: date) -> None:
    ctx.add(
        "Task",
        WhatId=p["id"],
        OwnerId=p["owner"],
        Priority=rng.choice(("High", "Normal", "Normal", "Low")),
        Status=status,
        ActivityDate=day.isoformat(),
        Subject=subject,
        Description=f"{subject}. {rng.choice(('Notes to follow.', 'See call notes.', 'Owner to update.'))}",
    )


def _tasks(ctx: BuildContext, rng, p: dict, names: dict) -> None:
    segments = p["segments"]
    stage = p["stage"]
    for i, (seg_stage, start, end) in enumerate(segments):
        pool = [t.format(**names) for t in STAGE_ACTIVITIES[seg_stage]]
        if i < len(segments) - 1:
            n = rng.choices((0, 1, 2), weights=(2, 7, 1))[0]
            for subject in rng.sample(pool, n):
                _task(ctx, rng, p, subject, "Completed", _day(rng, start, end - timedelta(days=1)))
            continue
        first = start + timedelta(days=1)
        current = rng.sample(pool, rng.choice((1, 2)))
        for n, subject in enumerate(current):
            status = "Completed" if stage == "Closed" or n == 0 else "In Progress"
            _task(ctx, rng, p, subject, status, _day(rng, first, first + timedelta(days=25)))
        if stage == "Closed" or p["wrong"]:
            continue
        spare = [s for s in pool if s not in current]
        fitting = (
            rng.sample(spare, min(len(spare), rng.randint(1, 3)))
            if p["misfit"]
            else (rng.sample(spare, 1) if spare and rng.random() < 0.5 else [])
        )
        misfits = []
        if p["misfit"]:
            others = [t.format(**names) for s in STAGES if s != stage for t in STAGE_ACTIVITIES[s]]
            misfits = rng.sample(others, rng.randint(4, 7))
        pending = fitting + misfits
        rng.shuffle(pending)
        for subject in pending:
            _task(
                ctx, rng, p, subject, "Not Started", DATA_END + timedelta(days=rng.randint(1, 45))
            )


def _competitor_weights(ctx: BuildContext, year: int) -> list[float]:
    comps = ctx.theme.competitors
    shift = (year - 2020) * 3
    return [float(len(comps) - ((n + shift) % len(comps))) ** 2 for n in range(len(comps))]


def _calls(ctx: BuildContext, rng, p: dict, names: dict, agent: str, contact: str) -> None:
    theme = ctx.theme
    segments = p["segments"]
    chosen = [i for i in range(len(segments)) if rng.random() < 0.65]
    if p["wrong"] and len(segments) - 1 not in chosen:
        chosen.append(len(segments) - 1)
    year = p["created"].year
    negatives = rng.sample(theme.subtopics, rng.choice((0, 1, 2, 3, 3, 4)))
    rest = [s for s in theme.subtopics if s not in negatives]
    positives = rng.sample(rest, rng.choice((0, 1, 2, 3, 3, 4)))
    n_edge = rng.choices((0, 1, 2, 3), weights=(9, 6, 4, 2))[0]
    edge: list[str] = []
    weights = _competitor_weights(ctx, year)
    while len(edge) < n_edge:
        c = rng.choices(theme.competitors, weights=weights)[0]
        if c not in edge:
            edge.append(c)
    behind: list[str] = []
    for _ in range(rng.choices((0, 1, 2, 3), weights=(9, 6, 4, 2))[0]):
        c = rng.choices(theme.competitors, weights=weights)[0]
        if c not in edge and c not in behind:
            behind.append(c)
    neutral = [
        c
        for c in rng.choices(theme.competitors, weights=weights, k=1)
        if c not in edge and c not in behind and rng.random() < 0.4
    ]
    statements = (
        [rng.choice(texts.NEGATIVE).format(s=s) for s in negatives]
        + [rng.choice(texts.POSITIVE).format(s=s) for s in positives]
        + [rng.choice(texts.EDGE).format(c=c) for c in edge]
        + [rng.choice(texts.BEHIND).format(c=c) for c in behind]
        + [texts.NEUTRAL[0].format(c=c) for c in neutral]
    )
    rng.shuffle(statements)
    if statements and not chosen:
        chosen = [len(segments) - 1]
    chosen.sort()
    groups: dict[int, list[str]] = {i: [] for i in chosen}
    for s in statements:
        groups[rng.choice(chosen)].append(s)
    for i in chosen:
        stage, start, end = segments[i]
        lo = start + timedelta(days=1) if i == len(segments) - 1 else start
        hi = end if i == len(segments) - 1 else end - timedelta(days=1)
        when = random_dt(rng, lo, min(max(lo, hi), DATA_END))
        topic = rng.choice(STAGE_CALL_TOPICS[stage]).format(**names)
        others = [n for n in FIRST_NAMES if n not in (agent, contact)]
        body = transcripts.opp_call(
            rng,
            agent=agent,
            contact=contact,
            company=theme.company,
            today=when.date(),
            topic=topic,
            statements=groups[i],
            colleague=rng.choice(others) if rng.random() < 0.3 else None,
            engineer=rng.choice(others) if rng.random() < 0.15 else None,
        )
        ctx.add(
            "VoiceCallTranscript__c",
            OpportunityId__c=p["id"],
            LeadId__c=None,
            Body__c=body,
            CreatedDate=dt_text(when),
            EndTime__c=dt_text(when + timedelta(minutes=rng.randint(10, 60))),
        )


def _emails(ctx: BuildContext, rng, p: dict, names: dict, user: dict, contact: dict) -> None:
    fill = {
        "company": ctx.theme.company,
        "account": names["account"],
        "contact": contact["FirstName"],
        "agent": user["Name"],
    }
    mails = []
    for stage, start, end in p["segments"]:
        if rng.random() < 0.85:
            mails.append((texts.SALES_EMAILS[stage], start, end))
    for _ in range(rng.randint(0, 2)):
        _, start, end = rng.choice(p["segments"])
        mails.append((rng.choice(texts.FOLLOW_UPS), start, end))
    for (subject, body), start, end in mails:
        when = random_dt(rng, start, min(end, DATA_END))
        ctx.add(
            "EmailMessage",
            Subject=subject.format(**fill),
            TextBody=body.format(**fill),
            ParentId=None,
            FromAddress=user["Email"],
            ToIds=contact["Id"],
            MessageDate=dt_text(when),
            RelatedToId=p["id"],
        )
