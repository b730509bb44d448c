"""Step alignment of two sessions, for the compare screen: which queries both ran, where they part.

Steps are the query and search events (other kinds on request). Two steps match when their
normalised texts are equal: case folded, quotes unified (' " ` and typographic quotes), white
space collapsed and dropped around punctuation (`Id,Name` = `Id, Name`), trailing `;` removed.
The alignment is a longest common subsequence (difflib, no junk heuristic); unmatched stretches are
paired side by side as differing steps, the longer side's surplus left unpaired.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher
from typing import Any, NamedTuple

STEP_KINDS = ("query", "search")
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


def align(
    events_a: Sequence[Any], events_b: Sequence[Any], kinds: Sequence[str] = STEP_KINDS
) -> list[StepPair]:
    """The two sessions' steps (events of `kinds`) aligned in order."""
    a, b = steps(events_a, kinds), steps(events_b, kinds)
    keys_a = [normalise_query(step_text(e)) for e in a]
    keys_b = [normalise_query(step_text(e)) for e in b]
    pairs: list[StepPair] = []
    matcher = SequenceMatcher(a=keys_a, b=keys_b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            pairs.extend(
                StepPair(a[i], b[j], True)
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


def first_divergence(pairs: Sequence[StepPair]) -> int | None:
    """Index of the first row where the sessions differ; None when every step matches."""
    return next((i for i, pair in enumerate(pairs) if not pair.same), None)
