"""A deterministic simulated user: reveals the task's query a sentence per turn and stops on an
answer. It keeps no state: its position is read from the conversation history, so a resumed
session continues where it stopped.

Rules, in order, for each agent message:
1. While some of the query is still unrevealed, reply with the next sentence (whatever the agent
   said: a question gets its answer, a premature answer gets the missing detail).
2. Once everything is revealed, a message carrying an answer (a Salesforce Id, or anything that is
   not a clarifying question) ends the dialogue with exactly `###STOP###`.
3. A further clarifying question gets a fixed "that is all I know" reply, at most `patience`
   times; then the user stops.
"""

from __future__ import annotations

import re

from crmarena_tui.agents.base import STOP
from crmarena_tui.tasks.model import Task

GREETING = "Hi!"
NOTHING_MORE = "That's all the information I have. Please go ahead with what I've told you."

# Abbreviations whose full stop does not end a sentence.
_ABBREVIATIONS = (
    "e.g.",
    "eg.",
    "i.e.",
    "ie.",
    "etc.",
    "vs.",
    "approx.",
    "no.",
    "mr.",
    "mrs.",
    "ms.",
    "dr.",
    "inc.",
    "ltd.",
    "co.",
    "corp.",
    "st.",
    "jr.",
    "sr.",
)
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+")
_SALESFORCE_ID = re.compile(
    r"\b(?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Z])[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?\b"
)
_PLEASANTRY = re.compile(
    r"(anything else|something else|further (help|assistance|questions?)|"
    r"(can|may|could) i (help|assist)|help (you )?with anything|let me know if)",
    re.IGNORECASE,
)


def split_sentences(text: str) -> list[str]:
    """The sentences of `text`, in order, without splitting after abbreviations like "eg.".

    Line breaks inside a sentence are kept (a "## Given Case" block stays one readable piece)."""
    text = "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip())
    if not text:
        return []
    pieces: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        candidate = text[start : match.start()].rstrip()
        last_word = candidate.rsplit(" ", 1)[-1].lstrip("(\"'").lower()
        if last_word in _ABBREVIATIONS or not text[match.end() : match.end() + 1].strip():
            continue
        pieces.append(text[start : match.end()].strip())
        start = match.end()
    tail = text[start:].strip()
    if tail:
        pieces.append(tail)
    return pieces


def has_answer_content(text: str) -> bool:
    """True when the message carries an answer-like token (a Salesforce Id)."""
    return bool(_SALESFORCE_ID.search(text))


def is_clarifying_question(text: str) -> bool:
    """True when the message asks the user something, ignoring closing pleasantries such as
    "Is there anything else I can help with?"."""
    asks = [s for s in split_sentences(text) if "?" in s and not _PLEASANTRY.search(s)]
    return bool(asks)


def is_answer(text: str) -> bool:
    return has_answer_content(text) or not is_clarifying_question(text)


class ScriptedUser:
    """Reveals the query a sentence at a time; says `###STOP###` once the agent answers."""

    name = "scripted"

    def __init__(self, *, greeting: str = GREETING, patience: int = 2) -> None:
        self.greeting = greeting
        self.patience = patience

    def pieces(self, task: Task) -> list[str]:
        return split_sentences(task.query) or [task.query.strip() or "I need some help."]

    def opening(self, task: Task) -> str:
        first = self.pieces(task)[0]
        return f"{self.greeting} {first}" if self.greeting else first

    def reply(self, task: Task, history: list[dict[str, str]]) -> str:
        pieces = self.pieces(task)
        user_turns = sum(1 for m in history if m.get("role") == "user")
        if user_turns == 0:
            return self.opening(task)
        if user_turns < len(pieces):
            return pieces[user_turns]
        last_agent = next(
            (m.get("content", "") for m in reversed(history) if m.get("role") == "agent"), ""
        )
        if is_answer(last_agent):
            return STOP
        if user_turns - len(pieces) >= self.patience:
            return STOP
        return NOTHING_MORE
