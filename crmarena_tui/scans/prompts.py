"""What a scanner asks the model, and how its reply is read.

Two questions: failure-mode labels from a taxonomy (`labels_messages`), each with the step it
points at and a one-sentence reason; or a rubric's question, whose answer must satisfy the
rubric's JSON Schema (`rubric_messages`). The reply is one JSON object; anything else, a label
outside the taxonomy, a step the transcript does not show or an answer the schema refuses is a
`BadReply` (the scanner asks again, then records the reading as failed).

A prompt's version (`LABELS_VERSION`, `RUBRIC_VERSION`) is its name and a hash of its wording, so
a reworded prompt is a different scanner: a scan stores it with every reading.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

from crmarena_tui.scans.transcript import Transcript, scan_json
from crmarena_tui.storage.suggestions import Proposal

LABELS_SYSTEM = """\
You review one session of an agent working a CRM task (CRMArena-Pro): the task, then every \
step as `[seq] actor kind: text`. Large observations are cut; a marker says how much.
Name the failure modes that explain why the session failed, from this list only:
{taxonomy}
For each, give the step it points at (the seq in brackets; null for the whole session) and one \
sentence saying why. If nothing went wrong, give an empty list.
Reply with one JSON object and nothing else:
{{"labels": [{{"label": "<one of the list>", "step": <seq or null>, "reason": "<one sentence>"}}]}}"""

RUBRIC_SYSTEM = """\
You review one session of an agent working a CRM task (CRMArena-Pro): the task, then every \
step as `[seq] actor kind: text`. Large observations are cut; a marker says how much.
Answer this question about the session:
{question}
Your answer must satisfy this JSON Schema:
{schema}
Reply with one JSON object and nothing else:
{{"answer": <the answer>, "step": <the seq it points at, or null>, "reason": "<one sentence>"}}"""


def _version(name: str, wording: str) -> str:
    return f"{name}-1-{hashlib.sha256(wording.encode()).hexdigest()[:8]}"


LABELS_VERSION = _version("labels", LABELS_SYSTEM)
RUBRIC_VERSION = _version("rubric", RUBRIC_SYSTEM)
REPLY_TOKENS = {"labels": 150, "rubric": 120}  # the estimate's tokens out per session

Message = dict[str, Any]


class BadReply(ValueError):
    """A reply that is not the JSON object asked for; the text says what is wrong with it."""


@functools.lru_cache(maxsize=8)
def _labels_system(taxonomy: tuple[str, ...]) -> str:
    """The labels prompt for `taxonomy` (made once a scan: every session is asked the same)."""
    return LABELS_SYSTEM.format(taxonomy="\n".join(f"- {t}" for t in taxonomy))


def labels_messages(transcript: Transcript, taxonomy: Sequence[str]) -> list[Message]:
    return [
        {"role": "system", "content": _labels_system(tuple(taxonomy))},
        {"role": "user", "content": transcript.text},
    ]


def rubric_messages(transcript: Transcript, question: str, schema: dict[str, Any]) -> list[Message]:
    system = RUBRIC_SYSTEM.format(question=question, schema=json.dumps(schema))
    return [{"role": "system", "content": system}, {"role": "user", "content": transcript.text}]


_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


def reply_object(text: str) -> dict[str, Any]:
    """The JSON object a reply holds (a ```json fence around it is allowed)."""
    body = text.strip()
    if "```" in body:  # (no fence, nothing for the pattern to match: most replies)
        body = _FENCE.sub("", body)
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end < start:
        raise BadReply("the reply holds no JSON object")
    found: Any = None
    if start == 0 and end == len(body) - 1:  # (the whole reply: read at once when it parses)
        try:
            found, stop = scan_json(body, 0)  # (else `json.loads`, which says why)
        except (StopIteration, ValueError):
            found = None
        else:
            found = found if stop == len(body) else None
    if found is None:
        try:
            found = json.loads(body[start : end + 1])
        except json.JSONDecodeError as exc:
            raise BadReply(f"the reply's JSON does not parse: {exc}") from None
    if not isinstance(found, dict):
        raise BadReply("the reply is not a JSON object")
    return found


def _step(value: Any, transcript: Transcript) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadReply(f"step {value!r} is not a seq number or null")
    if value not in transcript.seqs:
        raise BadReply(f"step {value} is not a step the transcript shows")
    return value


def _reason(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise BadReply("every item needs a one-sentence reason")
    return " ".join(value.split())


@functools.lru_cache(maxsize=8)
def _allowed(taxonomy: tuple[str, ...]) -> dict[str, str]:
    """The taxonomy's labels by their casefolded name (a scan reads every reply against one)."""
    return {t.casefold(): t for t in taxonomy}


def read_labels(text: str, transcript: Transcript, taxonomy: Sequence[str]) -> list[Proposal]:
    """The labels a reply proposes (module docstring), in its order, each label once per step."""
    found = reply_object(text).get("labels")
    if not isinstance(found, list):
        raise BadReply('the reply has no "labels" list')
    allowed = _allowed(tuple(taxonomy))
    proposals: dict[tuple[str, int | None], Proposal] = {}
    for item in found:
        if not isinstance(item, dict):
            raise BadReply("each of the labels is an object with label, step and reason")
        label = allowed.get(str(item.get("label", "")).strip().casefold())
        if label is None:
            raise BadReply(f"label {item.get('label')!r} is not in the taxonomy")
        step = _step(item.get("step"), transcript)
        proposals.setdefault((label, step), Proposal(label, step, _reason(item.get("reason"))))
    return list(proposals.values())


def read_answer(text: str, transcript: Transcript, schema: dict[str, Any]) -> list[Proposal]:
    """A rubric reply's answer (checked against `schema` by jsonschema), step and reason."""
    import jsonschema

    found = reply_object(text)
    if "answer" not in found:
        raise BadReply('the reply has no "answer"')
    try:
        jsonschema.validate(found["answer"], schema)
    except jsonschema.ValidationError as exc:
        raise BadReply(f"the answer does not satisfy the rubric's schema: {exc.message}") from None
    step = _step(found.get("step"), transcript)
    return [Proposal("", step, _reason(found.get("reason")), found["answer"])]
