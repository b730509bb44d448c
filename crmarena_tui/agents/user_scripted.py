"""A deterministic simulated user: reveals the task's query a sentence per turn and stops on an
answer. It keeps no state: its position is read from the conversation history, so a resumed
session continues where it stopped.

It speaks as the customer: the query's format instructions to an agent ("Return only the Id of
the product ...", "If no violation is found, return None.") are never said (the answer is graded
as the task's type asks whatever the customer says), and a question about a line of the context
the task shares with the agent ("Lead Id to be considered is: 00Q...") gets that line.

Rules, in order, for each agent message:
1. While some of the query is still unrevealed, reply with the next sentence: a premature answer
   gets the missing detail, and so does a question asking for more ("Could you tell me more?") or
   about something the rest of the query mentions. A question about a line of the shared context
   gets that line. A specific question about something neither mentions ("What is your account
   number?") gets "I'm not sure, I only know what I told you." instead, once; asked again, the
   user goes on with the next sentence.
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
NOT_SURE = "I'm not sure, I only know what I told you."
_NOT_PIECES = frozenset({NOTHING_MORE, NOT_SURE, STOP})

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


# A sentence that tells an agent how to format its answer, not what the customer needs.
_FORMAT_INSTRUCTION = re.compile(
    r"^(?:please\s+)?(?:"
    r"(?:return|respond|reply|answer|output)\s+(?:only|just|with|in|as|one|the\s+\w+\s+only)\b"
    r"|only\s+(?:return|respond|reply|answer)\b"
    r"|if\s+(?:no|none|nothing|there\s+(?:is|are)\s+no)\b[^?]*\breturn\b)",
    re.IGNORECASE,
)
# ... and one run on at the end of a sentence with no full stop before it ("... five days back
# Return only the Id of the product ...").
_FORMAT_TAIL = re.compile(r"\s+(?:Return|Respond|Reply|Answer|Output)\s+(?:only|just)\b.*$", re.S)
CONTEXT_LINE = "It's in the details I was given: {line}"
_CONTEXT_START = CONTEXT_LINE.split("{", 1)[0]


def is_format_instruction(sentence: str) -> bool:
    """True for "Return only the Id of ...", "If no violation is found, return None." and the
    like: what an agent is told about the answer's form, which a customer does not say."""
    return bool(_FORMAT_INSTRUCTION.match(sentence.strip()))


_ASKS_FOR_MORE = re.compile(
    r"\b(?:tell\s+me\s+more|more\s+(?:details?|information|info|context)|clarify|elaborate|"
    r"explain|anything\s+else|what\s+else|go\s+on|continue|what\s+do\s+you\s+need|"
    r"(?:what|how)\s+(?:can|may)\s+i\s+(?:help|assist|do)|"
    r"(?:could|can|would)\s+you\s+(?:please\s+)?(?:tell|give|share|provide|send|describe))\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z][a-z0-9'-]{3,}")
_STOPWORDS = frozenset(
    [
        "what",
        "which",
        "when",
        "where",
        "whom",
        "whose",
        "does",
        "have",
        "that",
        "this",
        "with",
        "your",
        "from",
        "about",
        "could",
        "would",
        "should",
        "please",
        "there",
        "their",
        "they",
        "them",
        "then",
        "than",
        "been",
        "into",
        "some",
        "like",
        "want",
        "need",
        "know",
        "tell",
        "give",
        "provide",
        "share",
        "more",
        "also",
        "just",
        "sure",
        "okay",
        "thanks",
        "thank",
        "help",
        "mean",
        "meant",
        "exactly",
        "specific",
        "specifically",
        "looking",
        "kind",
        "information",
        "details",
        "detail",
        "question",
        "request",
        "exactly",
        "right",
        "correct",
        "confirm",
        "these",
        "those",
        "here",
        "other",
        "regarding",
        "wondering",
        "able",
    ]
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


def _words(question: str) -> set[str]:
    return {w.strip("'-") for w in _WORD.findall(question.lower())} - _STOPWORDS


def answerable(question: str, untold: list[str]) -> bool:
    """True when the next sentence answers `question`: it asks for more in general, names
    nothing in particular, or names something the untold sentences mention."""
    if _ASKS_FOR_MORE.search(question):
        return True
    words = _words(question)
    if not words:
        return True
    rest = " ".join(untold).lower()
    return any(w in rest for w in words)


def context_line(question: str, context: str) -> str | None:
    """The short line of the task's shared context (`metadata.required`) holding an Id that
    `question` asks about ("What is the lead Id?" -> "Lead Id to be considered is: 00Q..."),
    else None."""
    words = _words(question) | ({"id"} if re.search(r"\bids?\b", question, re.I) else set())
    if not words or not _SALESFORCE_ID.search(context):
        return None
    for raw in context.splitlines():
        line = raw.strip().lstrip("-* ").strip()
        if len(line) > 160 or not _SALESFORCE_ID.search(line):
            continue
        said = {w.strip("'-") for w in _WORD.findall(line.lower())} | {"id"}
        if words & said - {"id"} or ("id" in words and words <= said):
            return line
    return None


class ScriptedUser:
    """Reveals the query a sentence at a time; says `###STOP###` once the agent answers."""

    name = "scripted"

    def __init__(self, *, greeting: str = GREETING, patience: int = 2) -> None:
        self.greeting = greeting
        self.patience = patience

    def pieces(self, task: Task) -> list[str]:
        """What the customer says of its request, in order: the query's sentences without the
        format instructions (all of them if nothing else is left)."""
        sentences = split_sentences(task.query)
        said = [_FORMAT_TAIL.sub("", s) or s for s in sentences if not is_format_instruction(s)]
        return said or sentences or [task.query.strip() or "I need some help."]

    def opening(self, task: Task) -> str:
        first = self.pieces(task)[0]
        return f"{self.greeting} {first}" if self.greeting else first

    def reply(self, task: Task, history: list[dict[str, str]]) -> str:
        pieces = self.pieces(task)
        said = [m.get("content", "") for m in history if m.get("role") == "user"]
        if not said:
            return self.opening(task)
        revealed = sum(
            1 for text in said if text not in _NOT_PIECES and not text.startswith(_CONTEXT_START)
        )
        last_agent = next(
            (m.get("content", "") for m in reversed(history) if m.get("role") == "agent"), ""
        )
        asks = is_clarifying_question(last_agent) and not has_answer_content(last_agent)
        shared = context_line(last_agent, task.metadata.required) if asks else None
        if revealed < len(pieces):
            if asks and said[-1] != NOT_SURE and not answerable(last_agent, pieces[revealed:]):
                return CONTEXT_LINE.format(line=shared) if shared else NOT_SURE
            return pieces[revealed]
        if is_answer(last_agent):
            return STOP
        if shared and said[-1] != CONTEXT_LINE.format(line=shared):
            return CONTEXT_LINE.format(line=shared)
        if said.count(NOTHING_MORE) >= self.patience:
            return STOP
        return NOTHING_MORE
