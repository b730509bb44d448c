"""The estimate a scan prints before it starts: tokens in and out and their cost, from the stored
sizes of the sessions' events (SQL sums, no transcript built): each session's characters (the
payloads of the events its transcript shows, its task's query (and expected answer, when the
transcript shows it), up to the transcript's limit, plus the prompt's) over 4 characters a token, and `prompts.REPLY_TOKENS` out; priced from litellm's price map (llm/prices.py; None when
the model's price is unknown)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from crmarena_tui.llm import prices
from crmarena_tui.scans import prompts
from crmarena_tui.scans.transcript import TRANSCRIPT_LIMIT, Transcript

if TYPE_CHECKING:
    from crmarena_tui.scans.scanner import Question
    from crmarena_tui.storage.store import Store

CHARS_PER_TOKEN = 4
CHUNK = 500  # session ids per query


@dataclass(frozen=True)
class Estimate:
    sessions: int
    tokens_in: int
    tokens_out: int
    cost: float | None
    model: str

    def line(self) -> str:
        price = (
            f"about ${self.cost:.2f}"
            if self.cost is not None
            else f"cost unknown ({self.model} is not in litellm's price map)"
        )
        return (
            f"{self.sessions} session(s), ~{self.tokens_in:,} tokens in, ~{self.tokens_out:,}"
            f" out, {price} (characters / {CHARS_PER_TOKEN})"
        )


def estimate(store: Store, sessions: Sequence[int], question: Question, model: str) -> Estimate:
    prompt = sum(len(m["content"]) for m in question.messages(_EMPTY)) + 200
    chars = 0
    ids = list(sessions)
    answer = "LENGTH(COALESCE(s.task_json -> '$.answer', ''))" if question.show_answer else "0"
    for start in range(0, len(ids), CHUNK):
        part = ids[start : start + CHUNK]
        marks = ",".join("?" * len(part))
        for (size,) in store.read(
            "SELECT LENGTH(COALESCE(s.task_json ->> '$.query', ''))"
            f" + {answer} + 200 + COALESCE((SELECT SUM(LENGTH(e.payload)) FROM events e"
            " WHERE e.session_id = s.id AND e.kind != 'usage' AND e.kind != 'pause'"
            " AND e.kind != 'resume' AND (e.kind != 'system'"
            " OR e.payload ->> '$.event' IS NOT 'system_prompt')), 0)"
            f" FROM sessions s WHERE s.id IN ({marks})",
            tuple(part),
        ):
            chars += min(int(size or 0), TRANSCRIPT_LIMIT) + prompt
    tokens_in = chars // CHARS_PER_TOKEN
    tokens_out = len(ids) * prompts.REPLY_TOKENS[question.kind]
    return Estimate(
        len(ids), tokens_in, tokens_out, prices.cost(model, tokens_in, tokens_out), model
    )


_EMPTY = Transcript(0, "", frozenset(), 0)  # (no text: the prompt's own size)
