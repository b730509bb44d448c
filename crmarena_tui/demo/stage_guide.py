"""The five opportunity stages and the activities that belong to each.

Task subjects in the demo orgs come from `STAGE_ACTIVITIES`: every subject names exactly one
stage's kind of work, following the activity priority guide that the activity_priority tasks show
in their metadata. `stage_of_subject` maps a generated subject back to its stage.
"""

from __future__ import annotations

import re

STAGES = ("Qualification", "Discovery", "Quote", "Negotiation", "Closed")

# {account} and {contact} are filled in. Each line paraphrases one item of the stage's guide list.
STAGE_ACTIVITIES: dict[str, tuple[str, ...]] = {
    "Qualification": (
        "Research background information on {account}",
        "Send introductory email to {contact}",
        "Make initial contact call to {contact}",
        "Schedule discovery meeting with {account}",
        "Hold initial prospecting call with {account}",
        "Invite {contact} to our booth at the regional trade show",
    ),
    "Discovery": (
        "Research {account}'s industry and competitors",
        "Gather insights on {account}'s pain points and business objectives",
        "Hold needs conversation with {contact} about their specific requirements",
        "Identify solution alignment for {account} ahead of value proposition",
        "Map {account}'s business objectives to our solutions",
    ),
    "Quote": (
        "Follow up with {contact} to set up detailed discussion",
        "Prepare tailored proposal for {account}",
        "Run needs analysis presentation for {account}",
        "Organize product demo for {account}",
        "Send case studies and testimonials to {contact}",
        "Set up product trial for {account}",
    ),
    "Negotiation": (
        "Hold negotiation meeting with {account} on terms and pricing",
        "Follow up on proposal objections from {contact}",
        "Coordinate with legal to finalize terms for {account}",
        "Prepare contract for {account} review and approval",
        "Address pricing objections raised by {contact}",
    ),
    "Closed": (
        "Schedule onboarding hand-off for {account}",
        "Conduct win/loss analysis for {account} deal",
        "Record finalized contract details for {account}",
        "Hold internal review of key learnings from {account} deal",
        "Organize customer kick-off meeting with {account}",
        "Send upsell and cross-sell offer to {contact}",
        "Add {contact} to nurturing campaign for future opportunities",
    ),
}

# What a sales call at each stage is about (voice call transcripts).
STAGE_CALL_TOPICS: dict[str, tuple[str, ...]] = {
    "Qualification": (
        "We introduced ourselves and asked whether {account} is looking at solutions this year.",
        "This first call was about getting to know {account} and whether there is a fit at all.",
    ),
    "Discovery": (
        "We dug into {account}'s current processes and the problems they want to solve.",
        "{contact} walked us through their pain points and objectives in detail.",
    ),
    "Quote": (
        "We reviewed the tailored proposal and walked {contact} through the demo.",
        "{contact} asked for a formal quote after the product demo.",
    ),
    "Negotiation": (
        "We went through the contract terms and the pricing objections line by line.",
        "{contact} pushed back on the payment terms and we discussed a revised offer.",
    ),
    "Closed": (
        "The contract is signed; we planned the onboarding kick-off with {contact}.",
        "We held the post-sale check-in and talked about next year's expansion.",
    ),
}

_PATTERNS: list[tuple[re.Pattern[str], str]] = []


def _compile() -> list[tuple[re.Pattern[str], str]]:
    if not _PATTERNS:
        for stage, templates in STAGE_ACTIVITIES.items():
            for template in templates:
                parts = re.split(r"\{account\}|\{contact\}", template)
                regex = "(.+?)".join(re.escape(p) for p in parts)
                _PATTERNS.append((re.compile(f"^{regex}$"), stage))
    return _PATTERNS


def stage_of_subject(subject: str) -> str | None:
    """The stage whose activity list `subject` comes from, or None for a subject of no stage."""
    for pattern, stage in _compile():
        if pattern.match(subject):
            return stage
    return None


_CALL_PATTERNS: list[tuple[re.Pattern[str], str]] = []


def stage_of_call_summary(line: str) -> str | None:
    """The stage of a sales call from its first line ("Call summary: ..."), or None."""
    if not _CALL_PATTERNS:
        for stage, templates in STAGE_CALL_TOPICS.items():
            for template in templates:
                parts = re.split(r"\{account\}|\{contact\}", template)
                regex = "(.+?)".join(re.escape(p) for p in parts)
                _CALL_PATTERNS.append((re.compile(f"^Call summary: {regex}$"), stage))
    for pattern, stage in _CALL_PATTERNS:
        if pattern.match(line.strip()):
            return stage
    return None
