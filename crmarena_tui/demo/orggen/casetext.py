"""Case descriptions as customers write them: how they use the product, what goes wrong (the
issue's own words, `theme.IssueSpec.bodies`), what they tried, what it costs them and what they
ask for, with numbers and dates in words. Used for the org's cases and for the new cases of
case_routing tasks, so both read alike.
"""

from __future__ import annotations

import random
from datetime import date

from crmarena_tui.demo.orggen import talk
from crmarena_tui.demo.theme import IssueSpec

CONTEXT = {
    "b2b": (
        "We rolled out {product} to about {n} users on {day}.",
        "Our team has relied on {product} every day since we bought it.",
        "I look after {product} for our operations department.",
        "We have been running {product} across {n} sites without any trouble until now.",
        "This concerns the {product} setup we extended on {day}.",
        "I'm writing on behalf of our IT team about {product}.",
        "{product} is a core part of how our analysts work.",
    ),
    "b2c": (
        "I bought {product} on {day} and have used it almost every day since.",
        "My family and I have had {product} at home for a few months now.",
        "I'm writing about the {product} I ordered as a present on {day}.",
        "I have owned {product} for a while and I have been really happy with it so far.",
        "We use {product} every morning in our household.",
        "I picked up {product} after reading a lot of good reviews.",
    ),
}
DETAIL = (
    "I have already tried restarting everything {n} times.",
    "It first happened on {day} and has not gone away since.",
    "I went through the troubleshooting steps in the guide, without luck.",
    "Nothing changed on our side as far as I know.",
    "I checked the obvious things first, so it is not a loose cable or a typo.",
)
IMPACT = {
    "b2b": (
        "This is holding up about {n} people who depend on it for their daily work.",
        "It is causing real delays for our operations team, and management is asking for updates.",
        "We have had to fall back on manual workarounds, which costs us hours every day.",
        "Our month-end reporting is at risk if this is not sorted out soon.",
    ),
    "b2c": (
        "It is really frustrating, because I rely on it every day.",
        "My whole household uses it, so this is quite disruptive.",
        "I expected a lot more for the price I paid.",
        "It has spoiled what was supposed to be a nice upgrade at home.",
    ),
}
ASK = (
    "Could you please look into this as a priority and tell me what to do next?",
    "I would appreciate it if someone could investigate and get back to me soon.",
    "Please advise on the next steps, and let me know if you need screenshots.",
    "Can you help me get this working again as quickly as possible?",
)


def describe(rng: random.Random, org_type: str, spec: IssueSpec, product: str, today: date) -> str:
    """A case description about `product` having the issue `spec` (4 or 5 sentences)."""
    parts = [
        rng.choice(CONTEXT[org_type]),
        rng.choice(spec.bodies),
        *([rng.choice(DETAIL)] if rng.random() < 0.6 else []),
        rng.choice(IMPACT[org_type]),
        rng.choice(ASK),
    ]
    return " ".join(talk.fill(rng, part.replace("{product}", product), today) for part in parts)
