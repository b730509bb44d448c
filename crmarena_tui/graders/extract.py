"""Deterministic answer extraction: the offline stand-in for upstream's LLM extractor.

`extract_items(text, kind, task_name)` returns the entities of the task's kind that the text puts
forward as its answer, `["None"]` when it says there is none, and `[]` when it gives no answer at
all ("I don't know", "gave up", "x"): a non-answer is never read as "None". It never raises.

Rules, in order (the wording rules live in `answer_context`):
1. A text whose last word is a stated "None" reads as `["None"]`.
2. If the text has an answer cue ("Final answer", "the answer is", "Answer:", "Top issue:"), the
   part after the last cue is read first; the whole text is read only when that part yields
   nothing.
3. A part that opens with a "none" statement ("None", "No agent ...", "There is no ...") whose
   first sentence names no entity reads as `["None"]`.
4. For Ids, states and months, runners-up and context (`mask_context`) are set aside; when
   several entities remain and a pick ("the highest is X", "assign it to X") names one, it wins.
5. Ids: plausible Salesforce Ids; when the task expects an object (005 agents, ka0 articles, 01t
   products, 00T tasks, a0 issues) only Ids with that prefix count.
6. A part with no entity reads as `["None"]` when it says so ("no violation", "the current stage
   is appropriate", "all BANT criteria are met", or for BANT factors "the lead cannot be
   qualified" with a reason that names no factor) and is not a non-answer; otherwise as `[]`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from crmarena_tui.graders.answer_context import (
    ANSWER_CUE,
    PICK_BEFORE,
    PICK_CUE,
    ends_with_none,
    mask_context,
    says_none,
)
from crmarena_tui.graders.entities import find_failed_bant, find_months, find_stage, find_states
from crmarena_tui.graders.ids import EXPECTED_PREFIXES, find_ids

NONE = "None"
KINDS = ("id", "ids", "state", "month", "bant", "stage")
MASKED_KINDS = ("id", "ids", "state", "month")
PICKED_KINDS = ("id", "state", "month")

_LEADING_NONE = re.compile(
    r"^[\s\"'`*_>#\-\[\(]*(?:none\b|n/?a\b|nothing\b|not\s+applicable\b|"
    r"there\s+(?:is|are|was|were)\s+no\b|no\s+(?!doubt\b|problem\b|idea\b|clue\b)[a-z])",
    re.IGNORECASE,
)
# A stage answer that names a change is not "the current stage is fine".
_STAGE_CHANGE = re.compile(
    r"should\s+(?:be|have\s+been)|(?:move|change|update|set|revert|advance|progress)\w*\s+"
    r"(?:it\s+)?(?:back\s+)?(?:to|into)\b|belongs?\s+(?:in|to)\b|instead|rather\s+than|"
    r"correct\s+stage\s+(?:is|would\s+be)",
    re.IGNORECASE,
)
# What joins the items of a list: "X and Y", "X, Y or Z", "X as well as Y", "X / Y".
_LIST_JOIN = re.compile(
    r"\s*(?:,\s*(?:and|or)\b|,|/|&|\band\b|\bor\b|\bas\s+well\s+as\b)\s*", re.IGNORECASE
)
# A lead said not to qualify ("cannot be qualified", "does not qualify"): with no BANT factor
# named, upstream's judge finds none to extract and answers "None".
_NOT_QUALIFIED = re.compile(
    r"\b(?:cannot|can\s*not|can't|could\s*not|couldn't|won't|will\s+not)\s+(?:\w+\s+)?"
    r"(?:be\s+)?qualif(?:y|ied)\b|(?:\bnot|n't)\s+(?:\w+\s+){0,2}?qualif(?:y|ied)\b|"
    r"\b(?:un|dis)qualified\b",
    re.IGNORECASE,
)
_FIRST_SENTENCE = re.compile(r"(?<=[.!?;])\s|\n")
_SENTENCE_END = re.compile(r"[;!?\n]|\.(?=\s|$)")


def _id_finder(task_name: str | None) -> Callable[[str], list[str]]:
    prefixes = EXPECTED_PREFIXES.get(task_name or "", ())

    def find(text: str) -> list[str]:
        ids = find_ids(text)
        if not prefixes:
            return ids
        preferred = [i for i in ids if i.startswith(prefixes)]
        if preferred:
            return preferred
        return [] if says_none(text) else ids  # other objects' Ids beside "no violation"

    return find


def entity_finder(kind: str, task_name: str | None) -> Callable[[str], list[str]]:
    """The function that finds the entities of `kind` (Ids expected by `task_name`) in a text."""
    if kind == "state":
        return find_states
    if kind == "month":
        return find_months
    if kind == "bant":
        return find_failed_bant
    if kind == "stage":
        return find_stage
    return _id_finder(task_name)


def _listed(part: str, named: list[str], find: Callable[[str], list[str]]) -> list[str]:
    """The first entity `part` names and those listed with it ("X and Y", "X, Y or Z", "texas and
    georgia"): a pick that names several names them all, as upstream's judge takes every one. A
    listed item is a piece between list joins that starts with one entity ("Y: both know it");
    the list ends at a piece that does not ("followed closely by Y") or at a first piece naming
    more than one ("X: both Y ...")."""
    pieces = [p for p in _LIST_JOIN.split(part) if p.strip()]
    start = next((k for k, piece in enumerate(pieces) if find(piece)), None)
    if start is None or find(pieces[start]) != named[:1]:
        return named[:1]
    listed = named[:1]
    for piece in pieces[start + 1 :]:
        head = find(" ".join(piece.split()[:3]))
        if len(head) != 1 or head[0] in listed:
            break
        listed.append(head[0])
    return listed


def _pick(items: list[str], masked: str, find: Callable[[str], list[str]]) -> list[str]:
    """The entity the last pick names ("the highest is X", "X is the fastest"; all of a list it
    names: "so it is X or Y"), else `items`."""
    picks: list[tuple[int, list[str]]] = []
    for cue in PICK_CUE.finditer(masked):
        end = _SENTENCE_END.search(masked, cue.end())
        part = masked[cue.end() : end.start() if end else len(masked)]
        named = find(part)
        if named:
            picks.append((cue.start(), _listed(part, named, find)))
    for cue in PICK_BEFORE.finditer(masked):
        starts = [m.end() for m in _SENTENCE_END.finditer(masked, 0, cue.start())]
        named = find(masked[starts[-1] if starts else 0 : cue.start()])
        if named:
            picks.append((cue.start(), named[-1:]))
    return max(picks)[1] if picks else items


def _read(text: str, kind: str, find: Callable[[str], list[str]]) -> list[str]:
    if kind == "stage" and says_none(text) and not _STAGE_CHANGE.search(text):
        return [NONE]
    if _LEADING_NONE.match(text) and says_none(text):
        first = _FIRST_SENTENCE.split(text.strip(), maxsplit=1)[0]
        if not find(first):
            return [NONE]
    masked = mask_context(text) if kind in MASKED_KINDS else text
    items = find(masked)
    if not items and masked != text:
        if says_none(text):
            return [NONE]
        items = find(text)
    if len(items) > 1 and kind in PICKED_KINDS:
        items = _pick(items, masked, find)
    if items:
        return items
    if says_none(text) or (kind == "bant" and _NOT_QUALIFIED.search(text)):
        return [NONE]
    return []


def extract_items(text: str, kind: str, task_name: str | None = None) -> list[str]:
    """The answer items of `kind` in `text`: `["None"]` when it says there are none, `[]` when it
    gives no answer. Never raises."""
    text = text if isinstance(text, str) else str(text or "")
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    if ends_with_none(text):
        return [NONE]
    find = entity_finder(kind, task_name)
    cues = list(ANSWER_CUE.finditer(text))
    if cues:
        items = _read(text[cues[-1].end() :], kind, find)
        if items:
            return items
    return _read(text, kind, find)
