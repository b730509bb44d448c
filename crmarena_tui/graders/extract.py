"""Deterministic answer extraction: the offline stand-in for upstream's LLM extractor.

`extract_items(text, kind, task_name)` returns the entities of the task's kind that the text gives
as its answer (`["None"]` when it gives none, or says there is none). It never raises.

Rules, in order:
1. If the text has an answer cue ("final answer", "the answer is", "Answer:"), the part after the
   last cue is read first; the whole text is read only when that part yields nothing.
2. A part that opens with a "none" statement ("None", "No agent ...", "There is no ...") whose
   first sentence names no entity reads as `["None"]`.
3. Ids: plausible Salesforce Ids; when the task expects an object (005 agents, ka0 articles, 01t
   products, 00T tasks, a0 issues) only Ids with that prefix count, and when there are none the
   text's "no violation / none" wording wins over Ids of other objects.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from crmarena_tui.graders.entities import find_failed_bant, find_months, find_stage, find_states
from crmarena_tui.graders.ids import EXPECTED_PREFIXES, find_ids

NONE = "None"
KINDS = ("id", "ids", "state", "month", "bant", "stage")

_CUE_RE = re.compile(
    r"final\s+answer|the\s+answer\s+(?:is|would\s+be)|\banswer\s*(?:\*\*)?\s*[:=\-]",
    re.IGNORECASE,
)
_LEADING_NONE = re.compile(
    r"^[\s\"'`*_>#\-\[\(]*(?:none\b|n/?a\b|nothing\b|not\s+applicable\b|"
    r"there\s+(?:is|are|was|were)\s+no\b|no\s+(?!doubt\b|problem\b)[a-z])",
    re.IGNORECASE,
)
_NONE_SIGNAL = re.compile(
    r"\bnone\b|\bnothing\b|\bn/a\b|"
    r"\bno\s+(?:\w+\s+){0,2}?(?:violations?|articles?|polic(?:y|ies)|agents?|issues?|match\w*|"
    r"records?|results?|answers?|breach\w*)\b|"
    r"\b(?:not|n't|never)\s+(?:\w+\s+){0,2}?(?:violat\w*|breach\w*)",
    re.IGNORECASE,
)
_FIRST_SENTENCE = re.compile(r"(?<=[.!?;])\s|\n")


def _id_finder(task_name: str | None) -> Callable[[str], list[str]]:
    prefixes = EXPECTED_PREFIXES.get(task_name or "", ())

    def find(text: str) -> list[str]:
        ids = find_ids(text)
        if not prefixes:
            return ids
        preferred = [i for i in ids if i.startswith(prefixes)]
        if preferred:
            return preferred
        if ids and _NONE_SIGNAL.search(text):
            return [NONE]
        return ids

    return find


def _finder(kind: str, task_name: str | None) -> Callable[[str], list[str]]:
    if kind == "state":
        return find_states
    if kind == "month":
        return find_months
    if kind == "bant":
        return find_failed_bant
    if kind == "stage":
        return find_stage
    return _id_finder(task_name)


def _read(text: str, find: Callable[[str], list[str]]) -> list[str]:
    if _LEADING_NONE.match(text):
        first = _FIRST_SENTENCE.split(text.strip(), maxsplit=1)[0]
        if not [item for item in find(first) if item != NONE]:
            return [NONE]
    return find(text)


def extract_items(text: str, kind: str, task_name: str | None = None) -> list[str]:
    """The answer items of `kind` in `text`; `["None"]` when there are none. Never raises."""
    text = text if isinstance(text, str) else str(text or "")
    find = _finder(kind, task_name)
    cues = list(_CUE_RE.finditer(text))
    if cues:
        items = _read(text[cues[-1].end() :], find)
        if items:
            return items
    return _read(text, find) or [NONE]
