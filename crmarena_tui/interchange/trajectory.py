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
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import orjson

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
    by orjson (sorted keys) when nothing is to be scrubbed and orjson writes the same text: it
    writes a number below 1e-4 otherwise (`0.00001`, `1e-7`, not `1e-05`, `1e-07`), so a text
    holding `e-` or `0.0000` anywhere (even in a string) takes the standard encoder, as does
    whatever orjson refuses (an integer past 64 bits, a lone surrogate)."""
    if _clean(value):
        try:
            text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        except TypeError:
            pass
        else:
            if b"e-" not in text and b"0.0000" not in text:
                return text.decode()
    return scrubbed_json(value)


_PLAIN = frozenset({str, int, float, bool, type(None)})


def _clean(value: Any) -> bool:
    """Whether `scrub_secrets` would leave `value` as it is: JSON values, with text keys none
    of which is named like a secret (each tuple of keys tested once)."""
    kind = type(value)
    if kind is dict:
        return _clean_keys(tuple(value)) and (
            _PLAIN.issuperset(map(type, value.values())) or all(map(_clean, value.values()))
        )
    if kind is list:
        return _PLAIN.issuperset(map(type, value)) or all(map(_clean, value))
    return kind in _PLAIN


@lru_cache(maxsize=4096)
def _clean_keys(keys: tuple[Any, ...]) -> bool:
    return all(type(k) is str and not is_secret_key(k) for k in keys)


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
