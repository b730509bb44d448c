"""The transcript a scanner reads: a session's task and steps as plain text, compacted in a fixed,
documented way (docs/research.md, "Scanners") and never silently truncated.

Each event is one block, `[seq] actor kind: text`, in log order (the seq is what a suggestion
points at). What is left out or cut always says so, with its size:
1. Token accounting (`usage`), `pause`/`resume` events and the system prompt (`system_prompt`,
   the same for every session of a configuration) are left out; a marker names the prompt's size.
2. An observation (a query's result) or error longer than `observation_limit` characters keeps
   its first and last characters around `[… N of M characters cut …]`.
3. If the whole is still longer than `limit`, every observation is cut the same way to
   `tight_limit`, then thoughts and messages to `observation_limit`.
4. If it is still longer, the steps in the middle are replaced by one marker naming their seqs,
   their number and their size: `[steps 12-80 left out: 69 events, 120,345 characters]`; the
   first and last steps (the task's start, the answer and its grade) stay.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

OBSERVATION_LIMIT = 2_000
TIGHT_LIMIT = 300
TRANSCRIPT_LIMIT = 48_000
LEFT_OUT = frozenset({"usage", "pause", "resume"})
CUTTABLE = frozenset({"observation", "error"})
PROSE = frozenset({"thought", "message", "note", "model_turn"})

RawEvent = tuple[int, str, str, str]
"""(seq, actor, kind, payload JSON text), as the events table stores them (a left-out event's
payload may be empty); a system prompt's may be `{"event": "system_prompt", "chars": N}` (its
size, from a reader that left its text out)."""


@dataclass(frozen=True)
class Transcript:
    """A session's compacted text; `seqs` the events it shows (a suggestion points at one),
    `cut` characters cut from blocks, `left_out` events replaced by a marker (step 4)."""

    session_id: int
    text: str
    seqs: frozenset[int]
    original_chars: int
    cut: int = 0
    left_out: int = 0


@dataclass(slots=True)
class _Block:
    seq: int
    kind: str
    head: str
    body: str

    def render(self) -> str:
        return f"{self.head}: {self.body}" if self.body else self.head


def cut_middle(text: str, limit: int) -> tuple[str, int]:
    """`text` no longer than about `limit`: its start and end around a marker naming how many of
    its characters were cut; (text, 0) when it fits."""
    if len(text) <= limit:
        return text, 0
    keep_head = max(limit * 3 // 4, 1)
    keep_tail = max(limit - keep_head, 0)
    cut = len(text) - keep_head - keep_tail
    tail = text[len(text) - keep_tail :] if keep_tail else ""
    return f"{text[:keep_head]}[… {cut:,} of {len(text):,} characters cut …]{tail}", cut


def event_text(kind: str, payload: dict[str, Any]) -> str:
    """What an event says, from its payload's fields. An observation (most of a session's
    events: `compact` calls this for each) is the first case, with nothing else to look at."""
    if kind == "observation":
        text = payload.get("observation")
        if text is None:
            text = payload.get("text")
        return text if type(text) is str else _str(text)
    if kind == "submit":
        return f"answer {_str(payload.get('answer'))}"
    if kind == "grade":
        return f"reward {payload.get('reward')} (parsed {json.dumps(payload.get('parsed_answer'))})"
    if kind == "system":
        event = payload.get("event")
        text = _str(payload.get("text") or payload.get("message") or "")
        return f"{event}: {text}" if event and text else _str(event or text)
    for key in ("text", "error", "answer", "observation"):  # (a query, a thought: the first)
        value = payload.get(key)
        if value is not None and value != "":
            return value if type(value) is str else _str(value)
    return ""


def _str(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def compact(
    session_id: int,
    header: str,
    events: list[RawEvent],
    *,
    limit: int = TRANSCRIPT_LIMIT,
    observation_limit: int = OBSERVATION_LIMIT,
    tight_limit: int = TIGHT_LIMIT,
) -> Transcript:
    """The transcript of a session: `header` (its task) then its events, compacted (module
    docstring) to about `limit` characters."""
    lines = [header]  # then each event's line, made once: `[seq] actor kind: text`
    seqs: list[int] = []
    original = len(header)
    cut = bare = 0  # bare: lines with no text after their head
    scan_once, decode, text_of, prompt_size = scan_json, _decode, event_text, _prompt_size
    for seq, actor, kind, payload_text in events:
        original += len(payload_text)
        if kind in LEFT_OUT:
            continue
        prompt = prompt_size(payload_text) if kind == "system" else None
        if prompt is not None:
            original += prompt[1]
            line = f"[{seq}] system prompt ({prompt[0]:,} characters) left out"
            bare += 1
        else:
            try:  # (the stored text as `json.dumps` wrote it: `_decode` for anything else)
                payload, end = scan_once(payload_text, 0)
                if end != len(payload_text) or type(payload) is not dict:
                    payload = decode(payload_text)
            except (StopIteration, ValueError):
                payload = decode(payload_text)
            body = text_of(kind, payload)
            if kind in CUTTABLE:
                if len(body) > observation_limit:
                    body, n = cut_middle(body, observation_limit)
                    cut += n
                if kind == "observation" and payload.get("total_size") is not None:
                    body = f"{body} (total_size {payload['total_size']})"
            if body:
                line = f"[{seq}] {actor} {kind}: {body}"
            else:
                line = f"[{seq}] {actor} {kind}"
                bare += 1
        lines.append(line)
        seqs.append(seq)
    text = "\n".join(lines)
    if len(text) + 2 * bare > limit:  # (its size: each block's head, text, ": " and "\n")
        return _compacted(session_id, events, lines, original, cut, limit, observation_limit,
                          tight_limit)  # fmt: skip
    return Transcript(session_id, text, frozenset(seqs), original, cut)


def _compacted(
    session_id: int,
    events: list[RawEvent],
    lines: list[str],
    original: int,
    cut: int,
    limit: int,
    observation_limit: int,
    tight_limit: int,
) -> Transcript:
    """`compact`'s steps 3 and 4, for a transcript still over `limit` (module docstring):
    `lines` its header, then the line of each event it shows (of `events`, in order)."""
    header = lines[0]
    blocks = []
    shown = [e for e in events if e[2] not in LEFT_OUT]
    for (seq, actor, kind, _), line in zip(shown, lines[1:], strict=True):
        head = f"[{seq}] {actor} {kind}: "  # (a system prompt's marker is a head alone)
        if line.startswith(head):
            blocks.append(_Block(seq, kind, head[:-2], line[len(head) :]))
        else:
            blocks.append(_Block(seq, kind, line, ""))
    size = limit + 1
    for kinds, room in ((CUTTABLE, tight_limit), (PROSE, observation_limit)):
        if size <= limit:
            break
        for block in blocks:
            if block.kind in kinds:
                block.body, n = cut_middle(block.body, room)
                cut += n
        size = _size(header, blocks)
    left_out = 0
    if size > limit:
        blocks, left_out = _leave_out_middle(header, blocks, limit)
    text = "\n".join([header, *[b.render() for b in blocks]])
    seqs = frozenset([b.seq for b in blocks if b.kind != "marker"])
    return Transcript(session_id, text, seqs, original, cut, left_out)


PROMPTS_KEPT = 64  # system prompts whose size is kept (one per configuration and task context)
_prompts: dict[str, tuple[int, int]] = {}


def _prompt_size(text: str) -> tuple[int, int] | None:
    """A `system` event's payload `text`, when it is a system prompt's: the prompt's characters
    and what it adds to the transcript's original size beyond `text` (a size given as `chars`,
    its text not read); None for another system event. Kept by payload: the sessions of one
    configuration and task context share their prompt, decoded once instead of for every
    session (a prompt seen before costs its hash, about a third of decoding it)."""
    known = _prompts.get(text)
    if known is not None:
        return known
    payload = _decode(text)
    if payload.get("event") != "system_prompt":
        return None
    chars = payload.get("chars")
    found = (len(_str(payload.get("text") or "")), 0) if chars is None else (chars, chars)
    if len(_prompts) >= PROMPTS_KEPT:
        _prompts.clear()
    _prompts[text] = found
    return found


_raw_decode = json.JSONDecoder().raw_decode
# `raw_decode` without its Python wrapper: the C scanner it calls (StopIteration: no JSON there)
scan_json: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def _decode(text: str) -> dict[str, Any]:
    """A payload's JSON object: the stored text as `json.dumps` wrote it, decoded without
    `json.loads`'s whitespace scans (a scan decodes every event it reads); {} when empty."""
    if not text:
        return {}
    try:
        found, end = _raw_decode(text)
    except ValueError:
        found, end = json.loads(text), len(text)  # (leading whitespace: json.loads copes)
    if end != len(text):
        found = json.loads(text)  # (trailing text: json.loads says what is wrong)
    return found if isinstance(found, dict) else {}


def _size(header: str, blocks: list[_Block]) -> int:
    return len(header) + sum(len(b.head) + len(b.body) + 3 for b in blocks)


def _leave_out_middle(header: str, blocks: list[_Block], limit: int) -> tuple[list[_Block], int]:
    """Keep steps from both ends (alternately) while they fit in `limit`; one marker for the rest."""
    room = limit - len(header) - 120  # (the marker's own line)
    front: list[_Block] = []
    back: list[_Block] = []
    lo, hi = 0, len(blocks) - 1
    used = 0
    take_front = True
    while lo <= hi:
        block = blocks[lo] if take_front else blocks[hi]
        need = len(block.head) + len(block.body) + 3
        if used + need > room and (front or back):
            break
        used += need
        if take_front:
            front.append(block)
            lo += 1
        else:
            back.append(block)
            hi -= 1
        take_front = not take_front
    middle = blocks[lo : hi + 1]
    if not middle:
        return blocks, 0
    chars = sum(len(b.body) for b in middle)
    marker = _Block(
        middle[0].seq,
        "marker",
        f"[steps {middle[0].seq}-{middle[-1].seq} left out: {len(middle)} events, "
        f"{chars:,} characters]",
        "",
    )
    return [*front, marker, *reversed(back)], len(middle)
