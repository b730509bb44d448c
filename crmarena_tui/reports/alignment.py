"""Step alignment of two sessions, for the compare screen: which steps both took, where they part.

Steps are the queries and searches, the messages (the participant's responds and the user's
replies, in chats) and the submission. Queries match when their normalised texts are equal: case
folded, quotes unified (' " ` and typographic quotes), white space collapsed and dropped around
punctuation (`Id,Name` = `Id, Name`), trailing `;` removed. Messages match by turn (the second
respond of A beside the second respond of B; the user's replies likewise), the submissions with
each other; such a pair is `same` only when the normalised texts are equal too.
The alignment is a longest common subsequence (difflib, no junk heuristic); unmatched stretches are
paired side by side as differing steps, the longer side's surplus left unpaired.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher
from typing import Any, NamedTuple

STEP_KINDS = ("query", "search", "message", "submit")
_QUOTES = str.maketrans(
    {'"': "'", "`": "'", "\u2018": "'", "\u2019": "'", "\u201c": "'", "\u201d": "'"}
)
_SPACE = re.compile(r"\s+")
_AROUND = re.compile(r"\s*([,()=<>!])\s*")


class StepPair(NamedTuple):
    """One row of the alignment: a step of A, of B, or both; `same` when their texts match."""

    a: Any
    b: Any
    same: bool


def normalise_query(text: str) -> str:
    text = _SPACE.sub(" ", text.translate(_QUOTES).casefold()).strip().rstrip(";").strip()
    return _AROUND.sub(r"\1", text)


def _field(event: Any, name: str) -> Any:
    return event.get(name) if isinstance(event, dict) else getattr(event, name, None)


def step_text(event: Any) -> str:
    payload = _field(event, "payload") or {}
    for key in ("text", "observation", "error", "answer"):
        if isinstance(payload.get(key), str):
            return payload[key]
    return ""


def steps(events: Sequence[Any], kinds: Sequence[str] = STEP_KINDS) -> list[Any]:
    return [e for e in events if _field(e, "kind") in kinds]


def step_keys(events: Sequence[Any]) -> list[tuple[str, str | int]]:
    """What each step is matched on: a query's normalised text, a message's turn (counted apart
    for the user and the participant), the submission."""
    keys: list[tuple[str, str | int]] = []
    turns = {"user": 0, "participant": 0}
    for event in events:
        kind = _field(event, "kind")
        if kind in ("query", "search"):
            keys.append(("query", normalise_query(step_text(event))))
        elif kind == "message":
            side = "user" if _field(event, "actor") == "user" else "participant"
            turns[side] += 1
            keys.append((side, turns[side]))
        else:
            keys.append((str(kind), 0))
    return keys


def align(
    events_a: Sequence[Any], events_b: Sequence[Any], kinds: Sequence[str] = STEP_KINDS
) -> list[StepPair]:
    """The two sessions' steps (events of `kinds`) aligned in order."""
    a, b = steps(events_a, kinds), steps(events_b, kinds)
    keys_a, keys_b = step_keys(a), step_keys(b)
    pairs: list[StepPair] = []
    matcher = SequenceMatcher(a=keys_a, b=keys_b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            pairs.extend(
                StepPair(a[i], b[j], _same_text(a[i], b[j]))
                for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
            )
            continue
        left, right = a[i1:i2], b[j1:j2]
        for k in range(max(len(left), len(right))):
            pairs.append(
                StepPair(
                    left[k] if k < len(left) else None, right[k] if k < len(right) else None, False
                )
            )
    return pairs


def _same_text(a: Any, b: Any) -> bool:
    return normalise_query(step_text(a)) == normalise_query(step_text(b))


def first_divergence(pairs: Sequence[StepPair]) -> int | None:
    """Index of the first row where the sessions differ; None when every step matches."""
    return next((i for i, pair in enumerate(pairs) if not pair.same), None)


def different_tasks(sessions: Sequence[Any]) -> str | None:
    """Why these sessions cannot be compared (they are not all on one task), or None. Each
    session is read for `id`, `task_source`, `task_idx` and `task_type`."""
    tasks = {(_field(s, "task_source"), _field(s, "task_idx")) for s in sessions}
    if len(tasks) <= 1:
        return None
    each = ", ".join(
        f"#{_field(s, 'id')} is {_field(s, 'task_type')} #{_field(s, 'task_idx')}"
        + (f" ({_field(s, 'task_source')})" if len({t[0] for t in tasks}) > 1 else "")
        for s in sessions
    )
    return f"sessions of different tasks cannot be compared: {each}"
