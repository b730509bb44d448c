"""How people talk and write in the demo org: numbers and dates in words, hesitations, small talk,
and planted statements placed among other sentences.

Planted statements (`texts`) are never reworded here: `utter` puts one whole, unchanged sentence
before, between or after other sentences, so the phrases the tasks rely on stay findable by SOQL
LIKE and SOSL. The filler below never uses those phrases (no budgets, timelines, decision makers,
sentiments about subtopics, competitors, refunds, discounts or case closing).
"""

from __future__ import annotations

import random
from datetime import date

ONES = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
ORDINALS = [
    "_",
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
    "twentieth",
]
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]


def in_words(n: int) -> str:
    """0 to 999 in words ("forty-two", "three hundred and five")."""
    if n < 20:
        return ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return TENS[tens] + (f"-{ONES[ones]}" if ones else "")
    hundreds, rest = divmod(n, 100)
    return f"{ONES[hundreds]} hundred" + (f" and {in_words(rest)}" if rest else "")


def ordinal(n: int) -> str:
    """1 to 31 as an ordinal word ("twenty-third")."""
    if n <= 20:
        return ORDINALS[n]
    tens, ones = divmod(n, 10)
    return TENS[tens] + (f"-{ORDINALS[ones]}" if ones else "ieth")


def day_in_words(rng: random.Random, d: date) -> str:
    """A date as people say it: "Tuesday the fourteenth", "March the third", "the 3rd of March"."""
    forms = (
        f"{WEEKDAYS[d.weekday()]} the {ordinal(d.day)}",
        f"{MONTHS[d.month - 1]} the {ordinal(d.day)}",
        f"the {ordinal(d.day)} of {MONTHS[d.month - 1]}",
        f"{WEEKDAYS[d.weekday()]}, {MONTHS[d.month - 1]} {ordinal(d.day)}",
    )
    return rng.choice(forms)


HESITATIONS = ("Um", "Uh", "Hmm", "Well", "So", "Okay", "Right", "Let me see")
# Sentences anyone may say around the point; {n}, {day}, {when} are filled in words. None of them
# contains "The " (a planted "The <subtopic> is a real concern for us" must not absorb them).
SMALL_TALK = (
    "Sorry, I was just coming out of another meeting.",
    "Can you hear me all right? It was crackling a moment ago.",
    "It has been a busy week on our side, with {n} people out sick.",
    "We only got back from the trade fair on {day}.",
    "I have about {n} minutes before my next call.",
    "Our weather has been awful since {day}.",
    "Give me a second, I am pulling up my notes.",
    "Our office moved to a new building on {day}, so things are a bit chaotic.",
    "I think we last spoke {when}, if I remember right.",
    "My colleague might join us in a few minutes.",
    "Sorry about the background noise, we are on the shop floor.",
    "We have roughly {n} people using what we have today.",
    "I read your summary on {day}, thanks for sending it.",
    "Our quarter closes on {day}, so it is hectic here.",
    "I was out of the office until {day}, sorry for the slow replies.",
    "We had {n} visitors on site this morning, so excuse me if I sound tired.",
)
WHEN = (
    "a couple of weeks ago",
    "back in the spring",
    "just before the holidays",
    "about a month ago",
    "on {day}",
)
AGREEMENT = (
    "Right.",
    "Okay.",
    "Got it, thanks.",
    "Mm-hm.",
    "That makes sense.",
    "Understood.",
    "Sure, go on.",
    "I see.",
    "Fair enough.",
    "Yes, exactly.",
)
NUMBERS = (3, 4, 5, 6, 8, 12, 15, 20, 25, 30, 40, 45, 60, 120, 250)


def fill(rng: random.Random, template: str, today: date) -> str:
    """A filler template with its numbers and dates in words."""
    day = date.fromordinal(today.toordinal() - rng.randint(2, 40))
    when = rng.choice(WHEN).replace("{day}", day_in_words(rng, day))
    return template.format(n=in_words(rng.choice(NUMBERS)), day=day_in_words(rng, day), when=when)


def small_talk(rng: random.Random, today: date) -> str:
    return fill(rng, rng.choice(SMALL_TALK), today)


def hesitate(rng: random.Random, text: str, share: float = 0.25) -> str:
    """`text`, sometimes after a hesitation ("Um... ")."""
    return f"{rng.choice(HESITATIONS)}... {text}" if rng.random() < share else text


def utter(rng: random.Random, planted: str, today: date, chatty: float = 0.5) -> str:
    """One turn that says `planted` (unchanged) with, at random, a hesitation first and a
    sentence of small talk or agreement before or after it."""
    parts = [planted]
    if rng.random() < chatty:
        extra = small_talk(rng, today) if rng.random() < 0.6 else rng.choice(AGREEMENT)
        parts.insert(rng.randint(0, 1), extra)
    return hesitate(rng, " ".join(parts))
