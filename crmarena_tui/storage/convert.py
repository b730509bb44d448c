"""Conversions between database rows and domain models, and the rules for what may be stored.

Timestamps are stored as ISO-8601 UTC text (`2024-05-03T09:15:00.000000Z`), JSON columns as
compact JSON with sorted keys. Secrets never reach the database: `scrub_secrets` drops every key
named like a credential before settings or payloads are written.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from crmarena_tui.storage.finite import finite_text
from crmarena_tui.storage.models import Annotation, Event, GradeRow, Participant, Session

_SECRET_WORDS = frozenset(
    {
        "password",
        "passwd",
        "passphrase",
        "secret",
        "token",
        "apikey",
        "credential",
        "credentials",
        "authorization",
        "cookie",
    }
)
_SECRET_PAIRS = frozenset(
    {("api", "key"), ("private", "key"), ("access", "key"), ("session", "key")}
)
_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def _words(key: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(key)]


@lru_cache(maxsize=4096)
def is_secret_key(key: str) -> bool:
    """True for keys like `api_key`, `apiKey`, `OPENAI_API_KEY`, `password`, `security_token`.

    Counting keys such as `prompt_tokens` or `max_tokens` are not secrets.
    """
    words = _words(key)
    if any(w in _SECRET_WORDS for w in words):
        return True
    return any(pair in _SECRET_PAIRS for pair in zip(words, words[1:], strict=False))


def scrub_secrets(value: Any) -> Any:
    """A copy of `value` with every secret-named key of every nested dict dropped.

    Pydantic `SecretStr`/`SecretBytes` values are dropped wherever they appear. Flat dicts and
    lists of plain values (most event payloads) take a fast path: one memoised test of the keys
    and one pass over the value types, no recursive call per value, so bulk writes scrub
    thousands of payloads cheaply; plain values inside nested ones are copied without a call.
    """
    kind = type(value)
    if kind is dict and _flat_and_clean(value):
        return dict(value)
    if kind is list and _PLAIN.issuperset(map(type, value)):
        return list(value)
    if isinstance(value, dict):
        return {
            str(k): v if type(v) in _PLAIN else scrub_secrets(v)
            for k, v in value.items()
            if (type(v) in _PLAIN or not _is_secret_value(v)) and not is_secret_key(str(k))
        }
    if isinstance(value, list | tuple):
        return [
            v if type(v) in _PLAIN else scrub_secrets(v)
            for v in value
            if type(v) in _PLAIN or not _is_secret_value(v)
        ]
    return value


_PLAIN = frozenset({str, int, float, bool, type(None)})


def scrubbed_json(value: Any) -> str:
    """`dumps(scrub_secrets(value))`, for bulk writes: a value with nothing to drop (most event
    payloads, usage and grade records) is encoded as it is, without the copy `scrub_secrets`
    makes; anything else is scrubbed first. Keys are tested a dict's tuple at a time, memoised:
    payloads of one kind share their keys, so a bulk write tests each shape once."""
    if not _clean(value):
        value = scrub_secrets(value)
    return finite_text(value, "".join(_encode(value, 0)), _joined)


def _clean(value: Any) -> bool:
    """True when `scrub_secrets` would drop nothing: plain values, lists and tuples of them, and
    dicts of them with text keys none of which is a secret (walked without copying)."""
    kind = type(value)
    if kind in _PLAIN:
        return True
    if kind is dict:
        return _clean_keys(tuple(value)) and all(
            type(v) in _PLAIN or _clean(v) for v in value.values()
        )
    if kind is list or kind is tuple:
        return _PLAIN.issuperset(map(type, value)) or all(_clean(v) for v in value)
    return False  # (anything else takes scrub_secrets' path)


def _flat_and_clean(value: dict[Any, Any]) -> bool:
    """Plain values only, and text keys none of which is a secret (C-level passes)."""
    return _PLAIN.issuperset(map(type, value.values())) and _clean_keys(tuple(value))


@lru_cache(maxsize=1024)
def _clean_keys(keys: tuple[Any, ...]) -> bool:
    """Text keys only, none of them a secret."""
    return all(type(k) is str and not is_secret_key(k) for k in keys)


def _is_secret_value(value: Any) -> bool:
    return type(value).__name__ in ("SecretStr", "SecretBytes")


_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
# The encoder's C loop, made once rather than on every call (`JSONEncoder.encode` builds it each
# time): the same text, without the circular-reference check (the values stored are trees).
_encode: Callable[[Any, int], list[str]] = (
    json.encoder.c_make_encoder(  # type: ignore[attr-defined]
        None, str, json.encoder.encode_basestring, None, ":", ",", True, False, True
    )
    if json.encoder.c_make_encoder is not None  # type: ignore[attr-defined]
    else lambda value, _level: [_ENCODER.encode(value)]
)


def reads_back(value: Any) -> bool:
    """Whether `loads(dumps(value))` equals `value` (so a writer may keep the value it encoded
    rather than decode its own text): text keys; text, whole numbers, booleans, None and finite
    numbers; lists and dicts of them. Flat ones are tested by C-level passes."""
    kind = type(value)
    if kind is dict:
        if not _TEXT_KEYS.issuperset(map(type, value)):
            return False
        items = value.values()
    elif kind is list:
        items = value
    elif kind is float:
        return math.isfinite(value)
    else:
        return kind in _PLAIN
    return _EXACT.issuperset(map(type, items)) or all(map(reads_back, items))


_TEXT_KEYS = frozenset({str})
_EXACT = frozenset({str, int, bool, type(None)})  # (a float may be NaN: written as null)


def dumps(value: Any) -> str:
    """Compact JSON with sorted keys (one encoder for every call: bulk writes encode many); a
    non-finite number is written as null (`finite.py`: NaN and Infinity are not JSON)."""
    return finite_text(value, "".join(_encode(value, 0)), _joined)


def _joined(value: Any) -> str:
    return "".join(_encode(value, 0))


def loads(text: str | None, default: Any = None) -> Any:
    if text is None or text == "":
        return default
    return json.loads(text)


def settings_key(settings: dict[str, Any] | None) -> str:
    """A short stable key for a settings dict (after scrubbing): equal settings, equal key."""
    canonical = dumps(scrub_secrets(settings or {}))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def iso(ts: float | datetime | None = None) -> str:
    """ISO-8601 UTC text for an epoch time or an aware datetime (now when None)."""
    if ts is None:
        moment = datetime.now(UTC)
    elif isinstance(ts, datetime):
        moment = ts.astimezone(UTC) if ts.tzinfo else ts.replace(tzinfo=UTC)
    else:
        moment = datetime.fromtimestamp(ts, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def participant_from_row(row: dict[str, Any]) -> Participant:
    return Participant(
        id=row["id"],
        kind=row["kind"],
        name=row["name"],
        model=row["model"] or None,
        settings=loads(row["settings"], {}),
    )


def session_from_row(row: dict[str, Any]) -> Session:
    return Session(
        id=row["id"],
        participant_id=row["participant_id"],
        task_source=row["task_source"],
        task_idx=row["task_idx"],
        task_type=row["task_type"],
        task_json=loads(row["task_json"], {}),
        org_kind=row["org_kind"],
        org_ref=row["org_ref"],
        interactive=bool(row["interactive"]),
        aided=bool(row["aided"]),
        blind=None if row["blind"] is None else bool(row["blind"]),
        status=row["status"],
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        active_seconds=row["active_seconds"],
        app_version=row["app_version"],
        settings_key=row["settings_key"],
        settings=loads(row["settings"], {}),
        user_simulator=row["user_simulator"],
        parent_session_id=row["parent_session_id"],
        fork_seq=row["fork_seq"],
        kind=row.get("kind") or "attempt",
        protocol=row.get("protocol") or "workbench",
        uuid=row.get("uuid") or "",
        study_id=row.get("study_id"),
        trial=row.get("trial") or 1,
    )


def event_from_row(row: dict[str, Any]) -> Event:
    """An event from its row; a payload already decoded (a dict: the writer's own) is kept."""
    payload = row["payload"]
    return Event(
        session_id=row["session_id"],
        seq=row["seq"],
        ts=row["ts"],
        actor=row["actor"],
        kind=row["kind"],
        payload=payload if isinstance(payload, dict) else loads(payload, {}),
        duration_ms=row["duration_ms"],
    )


def grade_from_row(row: dict[str, Any]) -> GradeRow:
    return GradeRow(
        id=row["id"],
        session_id=row["session_id"],
        answer=row["answer"],
        parsed_answer=loads(row["parsed_answer"]),
        reward=row["reward"],
        metrics=loads(row["metrics"], {}),
        grader=row["grader"],
        grader_version=row["grader_version"],
        judge_model=row["judge_model"],
        judge_raw=row["judge_raw"],
        extraction=row["extraction"],
        imported=bool(row["imported"]),
        graded_at=row["graded_at"],
        protocol=row.get("protocol"),
    )


def grade_to_row(session_id: int, grade: Any, graded_at: str) -> dict[str, Any]:
    """Columns for a `crmarena_tui.graders.Grade` (read by attribute, so any Grade-shaped object)."""
    return {
        "session_id": session_id,
        "answer": str(grade.answer),
        "parsed_answer": dumps(getattr(grade, "parsed_answer", None)),
        "reward": float(grade.reward),
        "metrics": dumps(scrub_secrets(dict(getattr(grade, "metrics", None) or {}))),
        "grader": str(grade.grader),
        "grader_version": str(getattr(grade, "grader_version", "") or ""),
        "judge_model": getattr(grade, "judge_model", None),
        "judge_raw": getattr(grade, "judge_raw", None),
        "extraction": getattr(grade, "extraction", None),
        "imported": 1 if getattr(grade, "imported", False) else 0,
        "graded_at": graded_at,
        "protocol": getattr(grade, "protocol", None),
    }


def annotation_from_row(row: dict[str, Any]) -> Annotation:
    return Annotation(
        id=row["id"],
        session_id=row["session_id"],
        event_seq=row["event_seq"],
        label=row["label"],
        note=row["note"] or "",
        annotator=row["annotator"],
        created_at=row["created_at"],
        kind=row.get("kind") or "label",
    )
