"""A trajectory read from another harness's file, in no format's terms: what one session of the
sessions database is made of. Format readers (`atif_read.py`, the Inspect reader) build these;
`TrajectoryWriter` (`writer.py`) writes them. The contract, for a reader:

- `entry` names the trajectory in its file for error messages ("trajectory", "samples[3]").
- Identity: `uuid` when the file carries this project's own session uuid (an export read back:
  the same session), else `key`, a digest of the entry's content (the writer derives a stable
  uuid from the format and it). Either makes a re-import change nothing.
- Task: `task_idx`, else `query` (text compared with whitespace collapsed) in `task_source`
  (the command's `--task-source` overrides it; neither: `hf:b2b`, as upstream imports). `task`,
  a full task row (`Task.row()`), is stored as the session's snapshot when the file has one;
  otherwise the matched task's row is.
- `participant`: the configuration (kind, name, model, settings) the session belongs to.
- `steps`: the events in order (actor and kind from `storage.models.ACTORS`/`EVENT_KINDS`,
  a payload dict, ISO-8601 `ts` or None, `duration_ms`). `final_answer` adds a `submit` step
  when no step is one.
- `grades`: kept as given (oldest first; the last is the session's grade), a `grade` event added
  when no step is one. Another harness's own grade has protocol `imported` (`IMPORTED`: neither
  upstream's nor this project's grading made it) and a `grader` naming its origin (`atif`,
  `inspect:<scorer>`); a grade this project exported keeps its own. With none and a final answer, the command grades the session under its
  `--protocol` (`ImportSummary.ungraded`).
- `remarks`: labels and notes, on the session or on a step (`step`, counted from 1).
- `columns`: further session columns carried exactly from a file this project wrote
  (`CARRIED`); absent ones get an import's defaults.
Raise `EntryError` (`writer.py`) naming file, entry and field for anything malformed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import orjson

from crmarena_tui.storage.convert import dumps as convert_dumps
from crmarena_tui.storage.convert import is_secret_key, scrubbed_json

IMPORTED = "imported"  # the protocol of a grade another harness made (not upstream, not ours)
CARRIED = frozenset(
    {
        "org_kind",
        "org_ref",
        "interactive",
        "aided",
        "blind",
        "kind",
        "trial",
        "fork_seq",
        "parent_uuid",
        "user_simulator",
        "app_version",
        "settings_key",
        "active_seconds",
        "protocol",
    }
)


def loads(text: str | bytes) -> Any:
    """JSON decoded by `orjson` (several times the standard decoder's speed), or by the standard
    decoder when orjson refuses it: a `NaN` or `Infinity` (Python writes them), or a file that is
    not JSON (the standard decoder's message names the place)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def dumps(value: Any) -> bytes:
    """Compact UTF-8 JSON by `orjson`, or by the standard encoder for what orjson refuses (an
    integer past 64 bits, a key that is not text)."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def stored_json(value: Any) -> str:
    """`storage.convert.scrubbed_json(value)`, the text an event's payload is stored as, encoded
    by orjson (sorted keys) when nothing is to be scrubbed and orjson writes the same text: not
    for a number below 1e-4 (`0.00001`, `1e-7`, not `1e-05`, `1e-07`), which takes the standard
    encoder, as does whatever orjson refuses (an integer past 64 bits, a lone surrogate)."""
    text = _fast(value, _clean_keys)
    return scrubbed_json(value) if text is None else text


def json_text(value: Any) -> str:
    """`storage.convert.dumps(value)` (nothing scrubbed: a task's row), by orjson as above."""
    text = _fast(value, _text_keys)
    return convert_dumps(value) if text is None else text


def _fast(value: Any, keys: Callable[[tuple[Any, ...]], bool]) -> str | None:
    """orjson's text of a JSON value whose dicts' keys pass `keys`, when it is the standard
    encoder's; else None."""
    if not _plain(value, keys):
        return None
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:
        return None


_EXACT = frozenset({str, int, bool, type(None)})  # (written alike by orjson and json)
_PLAIN = _EXACT | {float}


def _plain(value: Any, keys: Callable[[tuple[Any, ...]], bool]) -> bool:
    """Whether `value` is JSON values only (dicts, lists, text, numbers, booleans, None), each
    dict's tuple of keys passing `keys` (memoised: payloads of a kind share theirs), and no
    number that orjson writes otherwise than json (C-level passes for a flat value)."""
    kind = type(value)
    if kind is dict:
        if not keys(tuple(value)):
            return False
        values: Any = value.values()
    elif kind is list:
        values = value
    else:
        return kind in _EXACT or (kind is float and not 0 < abs(value) < 1e-4)
    types = set(map(type, values))
    if _EXACT.issuperset(types):
        return True
    if _PLAIN.issuperset(types):
        return not any(0 < abs(v) < 1e-4 for v in values if type(v) is float)
    return all(_plain(v, keys) for v in values)


@lru_cache(maxsize=4096)
def _clean_keys(keys: tuple[Any, ...]) -> bool:
    """Text keys, none of which `scrub_secrets` drops."""
    return all(type(k) is str and not is_secret_key(k) for k in keys)


@lru_cache(maxsize=4096)
def _text_keys(keys: tuple[Any, ...]) -> bool:
    return all(type(k) is str for k in keys)


@dataclass(slots=True)
class Step:
    """One event: who (`actor`), what (`kind`), its payload, when (`ts`, ISO-8601 or None)."""

    actor: str
    kind: str
    payload: dict[str, Any]
    ts: str | None = None
    duration_ms: float | None = None


@dataclass(slots=True)
class TrajectoryGrade:
    """A grade as the file recorded it (the `grades` table's columns)."""

    reward: float
    answer: str = ""
    grader: str = "imported"
    parsed_answer: Any = None
    metrics: dict[str, Any] = field(default_factory=dict)
    grader_version: str = ""
    judge_model: str | None = None
    judge_raw: str | None = None
    extraction: str | None = "imported"
    imported: bool = True
    graded_at: str | None = None
    protocol: str | None = IMPORTED

    def row(self, session_id: int, stamp: str) -> dict[str, Any]:
        """The `grades` row (`stamp`: when it was graded, when the file does not say)."""
        return {
            "session_id": session_id,
            "answer": self.answer,
            "parsed_answer": self.parsed_answer,
            "reward": float(self.reward),
            "metrics": self.metrics,
            "grader": self.grader,
            "grader_version": self.grader_version,
            "judge_model": self.judge_model,
            "judge_raw": self.judge_raw,
            "extraction": self.extraction,
            "imported": int(self.imported),
            "graded_at": self.graded_at or stamp,
            "protocol": self.protocol,
        }

    def payload(self) -> dict[str, Any]:
        """The payload of its grade event, as upstream imports write theirs."""
        return {
            "extraction": self.extraction,
            "grader": self.grader,
            "grader_version": self.grader_version,
            "imported": self.imported,
            "metrics": self.metrics,
            "parsed_answer": self.parsed_answer,
            "protocol": self.protocol,
            "reward": self.reward,
        }


@dataclass(slots=True)
class Remark:
    """A label (`kind` label) or a free note (`kind` note) by `annotator`, on step `step`
    (from 1) or on the whole session (None)."""

    annotator: str
    label: str = ""
    note: str = ""
    kind: str = "label"
    step: int | None = None
    created_at: str | None = None


@dataclass(slots=True)
class Configuration:
    """The participant a session belongs to: one per run configuration."""

    name: str
    model: str = ""
    kind: str = "agent"
    settings: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Trajectory:
    """One session to be, as a format reader made it (see the module's contract)."""

    entry: str
    participant: Configuration
    steps: list[Step] = field(default_factory=list)
    task_idx: int | None = None
    query: str | None = None
    task_source: str | None = None
    task: dict[str, Any] | None = None
    final_answer: str | None = None
    grades: list[TrajectoryGrade] = field(default_factory=list)
    remarks: list[Remark] = field(default_factory=list)
    status: str | None = None  # None: submitted with an answer or a grade, else abandoned
    started_at: str | None = None
    ended_at: str | None = None
    settings: dict[str, Any] | None = None  # None: the participant's, marked as imported
    uuid: str | None = None
    key: str = ""
    columns: dict[str, Any] = field(default_factory=dict)
