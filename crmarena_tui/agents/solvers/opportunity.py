"""Opportunity work: wrong_stage_rectification, activity_priority, sales_insight_mining.

Stages are read from the kind of work a task or call is about, following the activity priority
guide (Qualification, Discovery, Quote, Negotiation, Closed). The keyword lists below are the
analyst's reading of that guide; the most specific phrase wins.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import date

from crmarena_tui.agents.solvers.base import Solver, Steps, Workbench, literal, metadata_id
from crmarena_tui.agents.solvers.periods import find_span, period_phrase
from crmarena_tui.agents.solvers.requests import period_words
from crmarena_tui.tasks.model import Task

STAGES = ("Qualification", "Discovery", "Quote", "Negotiation", "Closed")

# (phrase, stage), checked in this order: later stages' phrases first where they overlap.
TASK_CUES: tuple[tuple[str, str], ...] = (
    ("win/loss", "Closed"),
    ("onboarding", "Closed"),
    ("kick-off", "Closed"),
    ("finalized contract", "Closed"),
    ("key learnings", "Closed"),
    ("upsell", "Closed"),
    ("cross-sell", "Closed"),
    ("nurturing", "Closed"),
    ("post-sale", "Closed"),
    ("negotiation", "Negotiation"),
    ("objection", "Negotiation"),
    ("finalize terms", "Negotiation"),
    ("prepare contract", "Negotiation"),
    ("legal", "Negotiation"),
    ("detailed discussion", "Quote"),
    ("proposal", "Quote"),
    ("needs analysis", "Quote"),
    ("demo", "Quote"),
    ("case studies", "Quote"),
    ("testimonial", "Quote"),
    ("trial", "Quote"),
    ("industry and competitors", "Discovery"),
    ("pain points", "Discovery"),
    ("needs conversation", "Discovery"),
    ("specific requirements", "Discovery"),
    ("solution alignment", "Discovery"),
    ("business objectives", "Discovery"),
    ("background information", "Qualification"),
    ("introductory", "Qualification"),
    ("initial contact", "Qualification"),
    ("discovery meeting", "Qualification"),
    ("prospecting", "Qualification"),
    ("trade show", "Qualification"),
    ("networking event", "Qualification"),
)
CALL_CUES: tuple[tuple[str, str], ...] = (
    ("contract is signed", "Closed"),
    ("post-sale", "Closed"),
    ("onboarding", "Closed"),
    ("expansion", "Closed"),
    ("contract terms", "Negotiation"),
    ("pricing objections", "Negotiation"),
    ("payment terms", "Negotiation"),
    ("revised offer", "Negotiation"),
    ("proposal", "Quote"),
    ("formal quote", "Quote"),
    ("demo", "Quote"),
    ("pain points", "Discovery"),
    ("current processes", "Discovery"),
    ("problems they want to solve", "Discovery"),
    ("introduced ourselves", "Qualification"),
    ("getting to know", "Qualification"),
    ("whether there is a fit", "Qualification"),
)


def stage_of(text: str, cues: tuple[tuple[str, str], ...] = TASK_CUES) -> str | None:
    lowered = text.lower()
    return next((stage for phrase, stage in cues if phrase in lowered), None)


def call_stage(body: str) -> str | None:
    first = (body or "").strip().splitlines()[0] if (body or "").strip() else ""
    return stage_of(first, CALL_CUES) if first.lower().startswith("call summary") else None


@dataclass(frozen=True, slots=True)
class OpportunityRef:
    opportunity: str | None


class _OnOpportunity(Solver):
    def parse(self, text: str, task: Task) -> OpportunityRef:
        return OpportunityRef(metadata_id(task, text, "006"))

    def missing(self, request: OpportunityRef) -> str | None:
        return None if request.opportunity else "the Id of the opportunity"


class WrongStage(_OnOpportunity):
    task = "wrong_stage_rectification"

    def solve(self, bench: Workbench, request: OpportunityRef) -> Steps:
        opp = request.opportunity
        assert opp is not None
        rows = yield from bench.run(
            f"SELECT Id, Name, StageName FROM Opportunity WHERE Id = {literal(opp)}",
            f"What stage is opportunity {opp} recorded in?",
        )
        current = rows[0]["StageName"] if rows else None
        tasks = yield from bench.run(
            f"SELECT Id, Subject, Status, ActivityDate FROM Task WHERE WhatId = {literal(opp)} "
            "AND Status IN ('Completed', 'In Progress') ORDER BY ActivityDate DESC",
            f"Recorded stage: {current}. The work actually done shows the real stage: its "
            "completed and in-progress tasks, latest first.",
        )
        calls = yield from bench.run(
            f"SELECT Id, CreatedDate, Body__c FROM VoiceCallTranscript__c "
            f"WHERE OpportunityId__c = {literal(opp)} ORDER BY CreatedDate DESC LIMIT 1",
            "And the latest sales call, whose summary says what the conversation was about.",
        )
        latest_day = tasks[0]["ActivityDate"] if tasks else None
        latest = [t for t in tasks if t["ActivityDate"] == latest_day]
        stages = Counter(s for t in latest if (s := stage_of(t.get("Subject") or "")))
        by_call = call_stage(calls[0].get("Body__c") or "") if calls else None
        stage: str | None
        if stages:
            stage = stages.most_common(1)[0][0]
            why = (
                f"The latest tasks ({latest_day}: " + "; ".join(t["Subject"] for t in latest) + ")"
            )
        elif by_call:
            stage, why = by_call, "The latest call's summary"
        else:
            stage, why = current, "Nothing recorded"
        check = f" The latest call points to {by_call}." if by_call else ""
        bench.note(
            f"{why} belong to {stage}.{check} "
            + (
                "The recorded stage is right, so there is nothing to correct."
                if stage == current
                else f"The recorded stage {current} is wrong: it should be {stage}."
            )
        )
        return "None" if stage == current else stage or "None"


class ActivityPriority(_OnOpportunity):
    task = "activity_priority"

    def solve(self, bench: Workbench, request: OpportunityRef) -> Steps:
        opp = request.opportunity
        assert opp is not None
        rows = yield from bench.run(
            f"SELECT Id, StageName FROM Opportunity WHERE Id = {literal(opp)}",
            f"Which stage is opportunity {opp} in?",
        )
        stage = rows[0]["StageName"] if rows else None
        tasks = yield from bench.run(
            f"SELECT Id, Subject, ActivityDate FROM Task WHERE WhatId = {literal(opp)} "
            "AND Status = 'Not Started' ORDER BY ActivityDate",
            f"It is in {stage}. Its 'Not Started' tasks, to compare each with the stage's kind of "
            "work in the guide.",
        )
        off = [t for t in tasks if stage_of(t.get("Subject") or "") != stage]
        notes = "; ".join(
            f"{t['Id']} {t['Subject']!r} -> {stage_of(t.get('Subject') or '')}" for t in off
        )
        bench.note(
            f"{len(off)} of {len(tasks)} not-started tasks do not fit {stage}: {notes}"
            if off
            else f"Every not-started task fits {stage}."
        )
        return ", ".join(t["Id"] for t in off) or "None"


NEGATIVE = (
    re.compile(r"unhappy with the (.+?) so far", re.I),
    re.compile(r"\bThe (.+?) is a real concern for us"),
    re.compile(r"frustrated with the (.+?) you proposed", re.I),
    re.compile(r"not convinced by the (.+?) at all", re.I),
)
POSITIVE = (
    re.compile(r"really like the (.+?) you offered", re.I),
    re.compile(r"\bThe (.+?) looks great to us"),
    re.compile(r"pleased with the (.+?) so far", re.I),
)
COMPANY = r"([A-Z][\w&]*(?: [A-Z][\w&]*)*)"  # a name of capitalised words
EDGE = (
    re.compile(COMPANY + r" has the edge over you"),
    re.compile(r"Frankly, (.+?) made us a stronger offer"),
)
BEHIND = (
    re.compile(COMPANY + r" could not match your offer"),
    re.compile(r"you are well ahead of (.+?) on this"),
)
NEUTRAL = (re.compile(r"We also spoke to (.+?), but they were not a good fit"),)
FORMS: dict[str, tuple[tuple[re.Pattern[str], ...], str]] = {
    "negative": (NEGATIVE, "subtopics raised with negative sentiment"),
    "positive": (POSITIVE, "subtopics raised with positive sentiment"),
    "edge": (EDGE, "competitors the customer says are ahead of us or made a better offer"),
    "behind": (BEHIND, "competitors the customer says we outperform"),
}


def mentions(body: str, patterns: tuple[re.Pattern[str], ...]) -> list[str]:
    """What the patterns capture in a transcript, in order; speakers' names are left out."""
    found: list[str] = []
    for line in (body or "").splitlines():
        said = line.split(": ", 1)[1] if ": " in line else line
        hits = sorted((m.start(), m.group(1).strip()) for p in patterns for m in p.finditer(said))
        found += [h for _, h in hits]
    return found


@dataclass(frozen=True, slots=True)
class Insight:
    form: str | None  # "negative", "positive", "edge", "behind" or "top"
    opportunity: str | None
    period: str | None  # the words naming the period ("over the past 7 months")
    today: date | None


class SalesInsight(Solver):
    task = "sales_insight_mining"

    def parse(self, text: str, task: Task) -> Insight:
        lowered = text.lower()
        if re.search(
            r"referenced the most|mentioned the most|most often|most frequently|most mentioned",
            lowered,
        ):
            form: str | None = "top"
        elif re.search(r"outperform|we beat|ahead of them|better than them", lowered):
            form = "behind"
        elif re.search(r"\bedge\b|ahead of us|better offer|rival|competitor", lowered):
            form = "edge"
        elif re.search(r"negative|unhappy|concern|frustrat|complain", lowered):
            form = "negative"
        elif re.search(r"positive|pleased|happy with|liked|like about", lowered):
            form = "positive"
        else:
            form = None
        return Insight(form, metadata_id(task, text, "006"), period_phrase(text), task.today())

    def missing(self, request: Insight) -> str | None:
        if request.form is None:
            return "what you would like to learn from the sales calls"
        if request.form == "top" and request.period is None:
            return "which time period I should look at"
        if request.form != "top" and request.opportunity is None:
            return "the Id of the opportunity"
        return None

    def solve(self, bench: Workbench, request: Insight) -> Steps:
        if request.form == "top":
            return (yield from self._top_competitor(bench, request))
        opp = request.opportunity
        calls = yield from bench.run(
            f"SELECT Id, CreatedDate, Body__c FROM VoiceCallTranscript__c "
            f"WHERE OpportunityId__c = {literal(opp or '')} ORDER BY CreatedDate, Id",
            f"The call transcripts of opportunity {opp}, oldest first.",
        )
        patterns, what = FORMS[request.form or "negative"]
        found = list(
            dict.fromkeys(h for c in calls for h in mentions(c.get("Body__c") or "", patterns))
        )
        bench.note(
            f"{len(calls)} calls. The {what}, in order of first mention: "
            + (", ".join(found) if found else "none")
            + "."
        )
        return ", ".join(found) or "None"

    def _top_competitor(self, bench: Workbench, request: Insight) -> Steps:
        today = request.today
        if today is None:
            today = bench.today()
            bench.note(
                f"The request gives no date to count '{request.period}' back from; I take "
                f"the org's current date, {today.isoformat()}."
            )
        span = find_span(request.period or "", today)
        assert span is not None
        calls = yield from bench.run(
            'FIND {"has the edge over you" OR "made us a stronger offer" OR "We also spoke to" OR '
            '"could not match your offer" OR "well ahead of"} '
            "IN ALL FIELDS RETURNING VoiceCallTranscript__c(Id, CreatedDate, Body__c "
            f"WHERE OpportunityId__c != null AND {span.datetime_filter('CreatedDate')})",
            f"Sales calls from {period_words(span)} that mention another vendor, whether as ahead "
            "of us or as considered and dropped.",
        )
        tally: Counter[str] = Counter()
        for call in calls:
            tally.update(set(mentions(call.get("Body__c") or "", EDGE + BEHIND + NEUTRAL)))
        if not tally:
            bench.note("No competitor was mentioned in that period.")
            return "None"
        ranked = tally.most_common()
        bench.note(
            f"Transcripts mentioning each competitor ({len(calls)} calls): "
            + ", ".join(f"{n} {k}" for k, n in ranked[:5])
            + f". {ranked[0][0]} leads."
        )
        return ranked[0][0]
