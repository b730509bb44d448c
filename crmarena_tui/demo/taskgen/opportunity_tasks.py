"""Opportunity tasks: wrong_stage_rectification, activity_priority, sales_insight_mining.

Facts planted by the generator (`orggen/sales.py`, `orggen/activities.py`): tasks follow each
opportunity's stage segments (subjects from `stage_guide.STAGE_ACTIVITIES`, which name one stage
each); some opportunities carry a wrong StageName; some open ones carry 'Not Started' tasks of
other stages; sales calls (VoiceCallTranscript__c.OpportunityId__c) start with "Call summary: "
naming the stage's topic and carry subtopic sentiments and competitor mentions.

Rules fixing the answer:
- wrong_stage_rectification: the stage of the opportunity's latest (max ActivityDate) Task with
  Status 'Completed' or 'In Progress'; the latest call's summary shows the same stage (tasks are
  generated only when both agree). The answer is that stage, or [None] when StageName already
  matches it. Tasks whose answer would be Qualification are not generated.
- activity_priority: the Ids of the opportunity's 'Not Started' Tasks whose subject belongs to a
  stage other than Opportunity.StageName; [None] when every one fits the stage.
- sales_insight_mining, five forms, each answered comma-separated in order of first mention over
  the opportunity's calls: (a) subtopics in a negative sentence (`NEGATIVE`); (b) subtopics in a
  positive sentence (`POSITIVE`); (c) competitors said to be ahead or to have made a stronger offer
  (`EDGE`); (d) competitors we outperform (`BEHIND`); (e) over all calls created in a period, the
  competitor mentioned (`EDGE`, `BEHIND` or `NEUTRAL`) in the most transcripts.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from datetime import date

from crmarena_tui.demo.dates import Period
from crmarena_tui.demo.stage_guide import stage_of_call_summary, stage_of_subject
from crmarena_tui.demo.taskgen import wording
from crmarena_tui.demo.taskgen.common import (
    Ambiguous,
    Draft,
    OrgReader,
    best,
    collect,
    pick_period,
    random_today,
)

NEGATIVE = (
    re.compile(r"unhappy with the (.+?) so far"),
    re.compile(r"The (.+?) is a real concern for us"),
    re.compile(r"frustrated with the (.+?) you proposed"),
    re.compile(r"not convinced by the (.+?) at all"),
)
POSITIVE = (
    re.compile(r"We really like the (.+?) you offered"),
    re.compile(r"The (.+?) looks great to us"),
    re.compile(r"pleased with the (.+?) so far"),
)
EDGE = (
    re.compile(r"\b([A-Z][\w&]*(?: [A-Z][\w&]*)*) has the edge over you"),
    re.compile(r"Frankly, (.+?) made us a stronger offer"),
)
BEHIND = (
    re.compile(r"\b([A-Z][\w&]*(?: [A-Z][\w&]*)*) could not match your offer"),
    re.compile(r"you are well ahead of (.+?) on this"),
)
NEUTRAL = (re.compile(r"We also spoke to (.+?), but they were not a good fit"),)
FORMS = {"negative": NEGATIVE, "positive": POSITIVE, "edge": EDGE, "behind": BEHIND}


def _calls(org: OrgReader, opp: str) -> list:
    return org.rows(
        "SELECT * FROM VoiceCallTranscript__c WHERE OpportunityId__c = ? ORDER BY CreatedDate, Id",
        opp,
    )


# ----------------------------------------------------------------- wrong_stage_rectification


def answer_wrong_stage_rectification(org: OrgReader, *, opp: str) -> list:
    tasks = org.rows(
        "SELECT Subject, ActivityDate FROM Task WHERE WhatId = ? AND Status IN ('Completed', 'In Progress')",
        opp,
    )
    if not tasks:
        raise Ambiguous("no activity")
    latest = max(t["ActivityDate"] for t in tasks)
    stages = {stage_of_subject(t["Subject"]) for t in tasks if t["ActivityDate"] == latest}
    if len(stages) != 1 or None in stages:
        raise Ambiguous("latest tasks disagree")
    stage = stages.pop()
    calls = _calls(org, opp)
    if calls and stage_of_call_summary(calls[-1]["Body__c"].splitlines()[0]) != stage:
        raise Ambiguous("latest call disagrees")
    recorded = org.scalar("SELECT StageName FROM Opportunity WHERE Id = ?", opp)
    return [None] if recorded == stage else [stage]


STAGE_QUERIES = (
    "Does this opportunity sit in the right stage? If not, what stage should it be in? Return only the correct stage label among ('Qualification', 'Discovery', 'Quote', 'Negotiation', 'Closed'). If the current stage is already correct, return None.",
    "Is the stage recorded on this opportunity right for the work being done? If it is not, which stage fits? Return only the correct stage label among ('Qualification', 'Discovery', 'Quote', 'Negotiation', 'Closed'). If the current stage is already correct, return None.",
    "Does the opportunity's stage reflect its recent tasks and calls? If not, which stage should it be in? Return only the correct stage label among ('Qualification', 'Discovery', 'Quote', 'Negotiation', 'Closed'). If the current stage is already correct, return None.",
)


def make_wrong_stage_rectification(org: OrgReader, rng: random.Random, n: int) -> list[Draft]:
    opps = org.rows("SELECT Id, StageName FROM Opportunity ORDER BY Id")
    wrong = [
        r["Id"]
        for r in org.rows(
            "SELECT o.Id, o.StageName FROM Opportunity o WHERE EXISTS (SELECT 1 FROM Task t "
            "WHERE t.WhatId = o.Id AND t.Status IN ('Completed', 'In Progress')) ORDER BY o.Id"
        )
    ]

    def one(rng: random.Random, none: bool) -> Draft | None:
        opp = rng.choice(opps)["Id"] if none else rng.choice(wrong)
        answer = answer_wrong_stage_rectification(org, opp=opp)
        if answer == ["Qualification"]:
            return None
        return Draft(
            "wrong_stage_rectification",
            rng.choice(STAGE_QUERIES),
            answer,
            wording.WRONG_STAGE.format(opp=opp),
            {"opp": opp},
        )

    return collect(rng, one, n, attempts=4000, distinct=lambda d: d.params["opp"])


# ----------------------------------------------------------------- activity_priority


def answer_activity_priority(org: OrgReader, *, opp: str) -> list:
    stage = org.scalar("SELECT StageName FROM Opportunity WHERE Id = ?", opp)
    ids = [
        r["Id"]
        for r in org.rows(
            "SELECT Id, Subject FROM Task WHERE WhatId = ? AND Status = 'Not Started' "
            "ORDER BY ActivityDate, Id",
            opp,
        )
        if stage_of_subject(r["Subject"]) != stage
    ]
    return ids or [None]


PRIORITY_QUERIES = (
    "Which 'Not Started' tasks on this opportunity don't belong to its current stage? Return only the Id of the tasks.",
    "List the 'Not Started' tasks that are out of step with the opportunity's current stage. Return only the Id of the tasks.",
    "Which of the opportunity's 'Not Started' tasks belong to a different stage than the one it is in? Return only the Id of the tasks.",
)


def make_activity_priority(org: OrgReader, rng: random.Random, n: int) -> list[Draft]:
    opps = [
        r[0]
        for r in org.rows(
            "SELECT DISTINCT WhatId FROM Task WHERE Status = 'Not Started' ORDER BY WhatId"
        )
    ]

    def one(rng: random.Random, none: bool) -> Draft | None:
        opp = rng.choice(opps)
        answer = answer_activity_priority(org, opp=opp)
        if answer != [None] and len(answer) < 2:
            return None
        return Draft(
            "activity_priority",
            rng.choice(PRIORITY_QUERIES),
            answer,
            wording.ACTIVITY_PRIORITY.format(opp=opp),
            {"opp": opp},
        )

    return collect(rng, one, n, attempts=4000, distinct=lambda d: d.params["opp"])


# ----------------------------------------------------------------- sales_insight_mining


def _found(patterns, text: str) -> list[str]:
    hits: list[tuple[int, str]] = []
    for pattern in patterns:
        hits += [(m.start(), m.group(1).strip()) for m in pattern.finditer(text)]
    return [h for _, h in sorted(hits)]


def _ordered_unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def answer_sales_insight_mining(
    org: OrgReader, *, form: str, opp: str = "", start: str = "", end: str = ""
) -> list:
    if form in FORMS:
        found = _ordered_unique(
            [h for c in _calls(org, opp) for h in _found(FORMS[form], c["Body__c"])]
        )
        if not found:
            raise Ambiguous("nothing to report")
        return [", ".join(found)]
    period = Period(date.fromisoformat(start), date.fromisoformat(end))
    mentions: Counter = Counter()
    for c in org.rows(
        "SELECT CreatedDate, Body__c FROM VoiceCallTranscript__c WHERE OpportunityId__c IS NOT NULL"
    ):
        if c["CreatedDate"] in period:
            for name in set(_found(EDGE + BEHIND + NEUTRAL, c["Body__c"])):
                mentions[name] += 1
    return best(dict(mentions), "max")


QUERIES = {
    "negative": (
        "Which subtopics did the customer discuss with negative sentiment in this opportunity's sales calls?",
        "What aspects of our offer has the customer been unhappy about in the calls for this opportunity?",
        "In the sales discussions of this opportunity, which subtopics drew negative reactions from the customer?",
    ),
    "positive": (
        "Which subtopics were discussed with positive sentiment in the sales calls of this opportunity?",
        "What did the customer react positively to in this opportunity's sales discussions?",
    ),
    "edge": (
        "Which rival companies do the sales discussions say have an edge over us on this deal?",
        "According to the call transcripts, which competitors have made this customer a better offer or have an edge over us?",
    ),
    "behind": (
        "Which competitors do we outperform according to the sales discussions of this opportunity?",
        "Based on this opportunity's calls, which competitors are we outperforming?",
    ),
}
TOP_COMPETITOR = (
    "Which competitor was mentioned the most in our sales calls {period}?",
    "Which rival company came up most often in our sales calls {period}?",
)
FORM_WEIGHTS = {"negative": 31, "positive": 21, "behind": 27, "edge": 12, "top": 9}


def _opps_with(org: OrgReader) -> dict[str, list[str]]:
    """Form -> the opportunities whose calls say something of that form."""
    out: dict[str, list[str]] = {form: [] for form in FORMS}
    said: dict[str, str] = {}
    for r in org.rows(
        "SELECT OpportunityId__c, Body__c FROM VoiceCallTranscript__c "
        "WHERE OpportunityId__c IS NOT NULL ORDER BY OpportunityId__c, CreatedDate, Id"
    ):
        said[r[0]] = said.get(r[0], "") + "\n" + r[1]
    for opp, text in said.items():
        for form, patterns in FORMS.items():
            if _found(patterns, text):
                out[form].append(opp)
    return out


def make_sales_insight_mining(org: OrgReader, rng: random.Random, n: int) -> list[Draft]:
    opps = _opps_with(org)

    def one(rng: random.Random, none: bool) -> Draft:
        form = rng.choices(list(FORM_WEIGHTS), weights=list(FORM_WEIGHTS.values()))[0]
        if form == "top":
            today = random_today(rng)
            text, period, _ = pick_period(rng, today, {"months": 1, "quarters": 2})
            params = dict(form=form, start=period.bounds[0], end=period.bounds[1])
            answer = answer_sales_insight_mining(org, **params)
            if answer == [None]:
                raise Ambiguous("no competitor mentioned")
            return Draft(
                "sales_insight_mining",
                rng.choice(TOP_COMPETITOR).format(period=text),
                answer,
                wording.SALES_INSIGHT + wording.TODAY_DASH.format(today=today),
                params | {"today": today.isoformat()},
            )
        opp = rng.choice(opps[form])
        answer = answer_sales_insight_mining(org, form=form, opp=opp)
        required = wording.SALES_INSIGHT + f"- Opportunity Id to be considered is: {opp}"
        return Draft(
            "sales_insight_mining",
            rng.choice(QUERIES[form]),
            answer,
            required,
            {"form": form, "opp": opp},
        )

    return collect(
        rng,
        one,
        n,
        none_share=0,
        distinct=lambda d: (d.params.get("opp"), d.params.get("start"), d.params["form"]),
    )
