"""Voice call transcripts: varied multi-turn conversations that carry the planted statements.

A transcript is lines "Speaker: text". Lead calls are between the lead desk agent and the lead,
sometimes with a colleague of the lead or a solutions engineer of ours; opportunity calls start
with the line "Call summary: <topic>" (the stage the call belongs to) and then the same kind of
conversation with the opportunity's contact. Each planted statement is said once, by the lead's
or the contact's side, as a whole sentence (`talk.utter`), in answer to a question of the agent
or on its own, at a random point of the call; openings, small talk, numbers and dates in words,
questions and goodbyes vary from call to call.
"""

from __future__ import annotations

import random
from datetime import date

from crmarena_tui.demo.orggen import talk

GREETINGS = ("Hi", "Hello", "Good morning", "Good afternoon", "Hey", "Morning")
OPENERS = (
    "thanks for making time today.",
    "thanks for picking up.",
    "I hope I'm not catching you at a bad time?",
    "good to finally talk in person, well, by phone.",
    "thanks for jumping on so quickly.",
    "is now still a good time?",
    "I appreciate you squeezing this in.",
    "how has your week been so far?",
)
SELF_INTROS = (
    "",
    " This is {agent} from {company}.",
    " {agent} here, from {company}.",
    " It's {agent} again.",
)
REPLIES = (
    "Hi {agent}, yes, this works.",
    "Hello! Sure, go ahead.",
    "Yes, perfect timing actually.",
    "Hi. Give me one second... okay, I'm here.",
    "Good to hear from you, {agent}.",
    "Hey. Sorry, I'm a couple of minutes late.",
    "No problem at all.",
    "Sure. I blocked out half an hour for this.",
)
COLLEAGUE_JOINS = (
    "Hi all, sorry I'm late. I look after the systems side here.",
    "Hello everyone, I joined from the car, so bear with me.",
    "Hi, I'm the one who will actually use this day to day.",
    "Morning. I asked to sit in, I run operations.",
)
ENGINEER_JOINS = (
    "Hi, I'm one of the solutions engineers. I'm just listening in today.",
    "Hello, I'll take any technical questions that come up.",
)
LEAD_QUESTIONS: dict[str, tuple[str, ...]] = {
    "Budget": (
        "How are you thinking about money for this?",
        "Is there funding set aside yet?",
        "Can I ask where you are on the financial side?",
    ),
    "Authority": (
        "Who else is involved in signing off on something like this?",
        "How do decisions like this usually get made at your end?",
    ),
    "Need": (
        "What prompted you to reach out?",
        "What problem are you hoping to solve?",
        "What is driving this on your side?",
    ),
    "Timeline": (
        "When would you want to have something in place?",
        "What sort of timing are you working towards?",
    ),
}
GENERAL_QUESTIONS = (
    "Could you tell me a little about your current setup?",
    "How many people would be using it?",
    "Have you looked at anything similar before?",
    "What does a normal week look like for your team?",
    "Is there anything you would like me to send over in writing?",
)
ANSWERS = (
    "We use a mix of older tools that do not talk to each other.",
    "About {n} people, maybe more next year.",
    "We looked at a few options on {day} but nothing stuck.",
    "Mostly spreadsheets, if I am honest.",
    "It depends on the season, really.",
    "Some of it, yes. I will forward what I have.",
)
OPP_PROMPTS = (
    "What did your team think of where we landed?",
    "How does this compare with the other options on your table?",
    "Anything from our last session you want to revisit?",
    "How is it landing with the people who will use it?",
    "Where do you see the open points right now?",
    "What feedback did you get internally?",
)
WRAP_UPS = (
    "I'll send a recap by email and we can pick this up on {day}.",
    "Let's pencil in a follow-up for {day}. I'll send the invite.",
    "Thanks, this was really useful. I'll be in touch before {day}.",
    "Great. I'll write up the next steps and share them today.",
)
GOODBYES = (
    "Sounds good, talk soon.",
    "Perfect, thanks {agent}.",
    "Great, bye for now.",
    "Thanks, have a good rest of the day.",
    "Okay. Speak then.",
)


def _opening(rng: random.Random, agent: str, other: str, company: str) -> str:
    opener = rng.choice(OPENERS)
    intro = rng.choice(SELF_INTROS).format(agent=agent, company=company).strip()
    if intro:
        return f"{rng.choice(GREETINGS)} {other}. {intro} {opener[0].upper()}{opener[1:]}"
    return f"{rng.choice(GREETINGS)} {other}, {opener}"


def _future(rng: random.Random, today: date) -> str:
    return talk.day_in_words(rng, date.fromordinal(today.toordinal() + rng.randint(2, 20)))


def conversation(
    rng: random.Random,
    *,
    agent: str,
    other: str,
    company: str,
    today: date,
    statements: list[tuple[str, str]],
    colleague: str | None,
    engineer: str | None,
    questions: dict[str, tuple[str, ...]],
) -> list[tuple[str, str]]:
    """(speaker, text) turns: opening, the statements (kind, sentence) in order with questions,
    answers and small talk around them, and a goodbye."""
    turns = [
        (agent, _opening(rng, agent, other, company)),
        (other, talk.hesitate(rng, rng.choice(REPLIES).format(agent=agent))),
    ]
    if rng.random() < 0.5:
        turns.append((other, talk.small_talk(rng, today)))
        turns.append((agent, rng.choice(talk.AGREEMENT)))
    joined: list[tuple[str, str]] = []
    if colleague:
        joined.append((colleague, rng.choice(COLLEAGUE_JOINS)))
    if engineer:
        joined.append((engineer, rng.choice(ENGINEER_JOINS)))
    middle: list[list[tuple[str, str]]] = []
    for kind, sentence in statements:
        block: list[tuple[str, str]] = []
        if rng.random() < 0.75:
            block.append((agent, rng.choice(questions.get(kind) or OPP_PROMPTS)))
        speaker = colleague if colleague and rng.random() < 0.3 else other
        block.append((speaker, talk.utter(rng, sentence, today)))
        if rng.random() < 0.4:
            block.append((agent, rng.choice(talk.AGREEMENT)))
        middle.append(block)
    asked = rng.sample(GENERAL_QUESTIONS, rng.randint(0, 3))
    for question, answer in zip(asked, rng.sample(ANSWERS, len(asked)), strict=True):
        block = [(agent, question), (other, talk.hesitate(rng, talk.fill(rng, answer, today)))]
        middle.insert(rng.randint(0, len(middle)), block)
    if joined:  # before anything the newcomer says
        said = [
            n for n, b in enumerate(middle) if any(who in (colleague, engineer) for who, _ in b)
        ]
        middle.insert(rng.randint(0, min([1, *said])), joined)
    for block in middle:
        turns += block
    if engineer and rng.random() < 0.6:
        turns.append((engineer, "I'll send the technical notes over after this call."))
    turns.append((agent, rng.choice(WRAP_UPS).format(day=_future(rng, today))))
    turns.append((other, rng.choice(GOODBYES).format(agent=agent)))
    return turns


def transcript(turns: list[tuple[str, str]], summary: str | None = None) -> str:
    lines = [f"Call summary: {summary}"] if summary else []
    return "\n".join(lines + [f"{who}: {text}" for who, text in turns])


def lead_call(
    rng: random.Random,
    *,
    agent: str,
    lead: str,
    company: str,
    today: date,
    statements: list[tuple[str, str]],
    colleague: str | None = None,
    engineer: str | None = None,
) -> str:
    """A call with a lead stating the BANT facts in `statements` ((factor, sentence) pairs)."""
    turns = conversation(
        rng,
        agent=agent,
        other=lead,
        company=company,
        today=today,
        statements=statements,
        colleague=colleague,
        engineer=engineer,
        questions=LEAD_QUESTIONS,
    )
    return transcript(turns)


def opp_call(
    rng: random.Random,
    *,
    agent: str,
    contact: str,
    company: str,
    today: date,
    topic: str,
    statements: list[str],
    colleague: str | None = None,
    engineer: str | None = None,
) -> str:
    """A sales call on an opportunity: its summary line, then the conversation."""
    turns = conversation(
        rng,
        agent=agent,
        other=contact,
        company=company,
        today=today,
        statements=[("opinion", s) for s in statements],
        colleague=colleague,
        engineer=engineer,
        questions={},
    )
    return transcript(turns, topic)
