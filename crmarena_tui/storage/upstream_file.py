"""One upstream result file, read and validated whole before anything is written.

A result file is a JSON list of `{"task_id", "task_type", "gt_answer", "reward", "agent_info",
"traj"}` (CRMARENA_PRO.md sections 5 and 8). Read here:

- The reward is a number, or for fuzzy_match the dict `{"em", "f1", "bleu", "rouge": {"rouge-1",
  "rouge-2", "rouge-l"}}`: every figure is kept, under the names the project's graders use
  (`exact_match`, `f1`, `bleu`, `rouge1`, `rouge2`, `rougeL`); F1 is the reward.
- `agent_info.end_reason` (`{source, message, content}`) is kept as the run ended it.
- A run that raised is `agent_info = {"source": "api", "content": "Error: ..."}` with reward 0.
  Upstream's runner recorded evaluation crashes the same way, so the error is classified: an
  infrastructure error (rate limit, timeout, connection, server or authentication error, the
  org's API disabled or its login refused) says nothing about the agent, and is marked so that
  reports leave it out of success rates; any other error (an evaluation crash, a context window
  overflow) stays an ordinary failed attempt, as in the paper. A run whose queries met the org's
  outage errors (`API_CURRENTLY_DISABLED`, `INVALID_LOGIN`, ...) is marked the same way.
- Malformed input is refused with the file and the position (`line 3 column 17`, or
  `item 17: field 'traj'`, the item counted from 0 as in `jq '.[17]'`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from crmarena_tui.errors import UserError
from crmarena_tui.storage import strict_json
from crmarena_tui.storage.convert import dumps
from crmarena_tui.storage.end_reason import SUBMIT_ACTION
from crmarena_tui.storage.upstream_names import RunName, parse_run_name
from crmarena_tui.storage.upstream_traj import (
    Step,
    prompt_json,
    prompt_metadata,
    prompt_says,
    responds_then_user,
    trajectory_steps,
)

if TYPE_CHECKING:
    from crmarena_tui.storage.upstream_rows import ItemRows

MetricValue = float | str | bool
_INFRASTRUCTURE = re.compile(
    r"RateLimit|rate[ _]limit|APIConnection|Connection(?:Error|Refused|Reset|Aborted)|"
    r"connection (?:refused|reset|aborted|error)|Timeout|timed out|ServiceUnavailable|"
    r"Service Unavailable|InternalServerError|Internal Server Error|\bAPIError\b|BadGateway|"
    r"Bad Gateway|Overloaded|overloaded|AuthenticationError|PermissionDenied|insufficient_quota|"
    r"quota exceeded|\b(?:502|503|504|529)\b|SalesforceExpiredSession|SalesforceAuthentication|"
    r"SalesforceGeneralError|API_CURRENTLY_DISABLED|INVALID_LOGIN|REQUEST_LIMIT_EXCEEDED|"
    r"INVALID_OPERATION_WITH_EXPIRED_PASSWORD|SERVER_UNAVAILABLE",
)
ORG_OUTAGE_CODES = frozenset(
    {
        "API_CURRENTLY_DISABLED",
        "INVALID_LOGIN",
        "INVALID_OPERATION_WITH_EXPIRED_PASSWORD",
        "REQUEST_LIMIT_EXCEEDED",
        "SERVER_UNAVAILABLE",
        "INVALID_SESSION_ID",
    }
)
_FUZZY_NAMES = {
    "em": "exact_match",
    "rouge-1": "rouge1",
    "rouge-2": "rouge2",
    "rouge-l": "rougeL",
}
_ROLES = ("system", "user", "assistant", "tool")
_ROLE_SET = frozenset(_ROLES)
_MESSAGE_TYPES = frozenset({dict})
_CONTENT_TYPES = frozenset({str, list, type(None)})


class UpstreamFormatError(UserError, ValueError):
    """A result file that cannot be imported; the message names the file and the position."""

    def __init__(self, path: Path | str, where: str, problem: str) -> None:
        self.path, self.where, self.problem = str(path), where, problem
        super().__init__(f"{path}: {where}: {problem}" if where else f"{path}: {problem}")

    def __reduce__(self) -> tuple[type[UpstreamFormatError], tuple[str, str, str]]:
        return type(self), (self.path, self.where, self.problem)  # (from a reading process)


@dataclass(slots=True)
class UpstreamItem:
    """One attempt of the file. `run_error` is an error the run ended on; `infrastructure` says
    whether it (or an org outage met by the queries) was the infrastructure's, not the agent's."""

    position: int
    task_id: int
    task_type: str
    gold: list[str | None]
    reward: float
    metrics: dict[str, MetricValue]
    agent_info: dict[str, Any]
    steps: list[Step]
    query: str
    answer: str
    parsed_answer: list[str] | None
    run_error: str | None
    infrastructure: str | None
    prompt: dict[str, bool]
    metadata: tuple[str, str] = ("", "")  # (required, optional) as the system prompt carries them
    digest: str = ""
    rows: ItemRows | None = None  # all it writes, made by a reading process (upstream_rows.py)
    known: str | None = None  # an item imported before: only its canonical JSON (see `_items`)

    @property
    def end_reason(self) -> dict[str, Any] | None:
        end = self.agent_info.get("end_reason")
        return end if isinstance(end, dict) else None


@dataclass(slots=True)
class UpstreamFile:
    """A parsed result file: what its path says (`run`), its mode, and its items."""

    path: Path
    run: RunName
    interactive: bool
    items: list[UpstreamItem] = field(default_factory=list)
    _privacy: bool | None = field(default=None, init=False, repr=False)

    @property
    def privacy_aware(self) -> bool:
        """The path's word, else what the prompts say (privacy rules reach external tasks only);
        read once, since every item of the file asks."""
        if self.run.privacy_aware is not None:
            return self.run.privacy_aware
        if self._privacy is None:
            self._privacy = any(item.prompt["privacy_aware"] for item in self.items)
        return self._privacy


Fail = Callable[[str, str], NoReturn]


def as_dict(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _reward(value: Any, fail: Fail) -> tuple[float, dict[str, MetricValue]]:
    if _number(value) or isinstance(value, bool):
        return float(value), {}
    if isinstance(value, dict):  # fuzzy metrics reported as a dict, ROUGE nested
        flat = dict(value)
        nested = flat.pop("rouge", None)
        if isinstance(nested, dict):
            flat.update(nested)
        metrics: dict[str, MetricValue] = {}
        for key, figure in flat.items():
            name = _FUZZY_NAMES.get(str(key), str(key))
            if isinstance(figure, bool):
                metrics[name] = figure
            elif _number(figure):
                metrics[name] = float(figure)
        for key in ("reward", "f1", "F1"):
            if _number(metrics.get(key)):
                return float(metrics[key]), metrics
    fail("reward", "expected a number")


def _gold(value: Any, fail: Fail) -> list[str | None]:
    if value is None:
        return [None]
    if isinstance(value, str | int | float):
        return [str(value)]
    if isinstance(value, list) and all(
        v is None or isinstance(v, str | int | float) for v in value
    ):
        return [None if v is None else str(v) for v in value]
    fail("gt_answer", "expected a list of strings, a string or null")


def classify_error(info: dict[str, Any], steps: list[Step]) -> tuple[str | None, str | None]:
    """(the error the run ended on, the infrastructure failure if any) of one item."""
    run_error = str(info.get("content", "")) if info.get("source") == "api" else None
    if run_error is not None and _INFRASTRUCTURE.search(run_error):
        return run_error, run_error
    outage = next(
        (
            s.payload["error"]
            for s in steps
            if s.kind == "error" and s.payload.get("code") in ORG_OUTAGE_CODES
        ),
        None,
    )
    return run_error, (f"org outage: {outage}" if outage else None)


def _check_traj(traj: Any, fail: Fail) -> list[dict[str, Any]]:
    """`traj` if it is a list of messages each with a known role and text content. A list of
    plain dicts with known roles and content of the JSON types allowed (every valid file's) passes
    in C-level passes; anything else is walked message by message, to say which one is wrong."""
    if type(traj) is list and _MESSAGE_TYPES.issuperset(map(type, traj)):
        roles = map(dict.get, traj, repeat("role"))
        contents = map(type, map(dict.get, traj, repeat("content")))
        with suppress(TypeError):  # (an unhashable role: the walk below refuses it)
            if _ROLE_SET.issuperset(roles) and _CONTENT_TYPES.issuperset(contents):
                return traj
    if not isinstance(traj, list):
        fail("traj", "expected a list of messages")
    for k, message in enumerate(traj):
        if not isinstance(message, dict) or message.get("role") not in _ROLES:
            fail(
                "traj",
                f"message {k}: expected {{'role': system|user|assistant|tool, 'content': ...}}",
            )
        if not isinstance(message.get("content"), str | list | type(None)):
            fail("traj", f"message {k}: 'content' is not text")
    return traj


def _item(path: Path, position: int, raw: Any, interactive: bool) -> UpstreamItem:
    def fail(name: str, problem: str) -> NoReturn:
        raise UpstreamFormatError(path, f"item {position}: field {name!r}", problem)

    if not isinstance(raw, dict):
        raise UpstreamFormatError(path, f"item {position}", "expected an object")
    for name in ("task_id", "task_type", "reward", "traj"):
        if name not in raw:
            fail(name, "missing")
    task_id = raw["task_id"]
    if isinstance(task_id, str) and task_id.strip().isdigit():
        task_id = int(task_id)
    if not isinstance(task_id, int) or isinstance(task_id, bool):
        fail("task_id", "expected an integer")
    if not isinstance(raw["task_type"], str) or not raw["task_type"]:
        fail("task_type", "expected a task type name")
    reward, metrics = _reward(raw["reward"], fail)
    info = raw.get("agent_info") or {}
    if not isinstance(info, dict):
        fail("agent_info", "expected an object")
    traj = _check_traj(raw["traj"], fail)
    steps, query, answer = trajectory_steps(traj, interactive, unconfirmed(info))
    parsed = as_dict(info.get("end_reason")).get("parsed_answer")
    if parsed is not None and not isinstance(parsed, list):
        parsed = [parsed]
    run_error, infrastructure = classify_error(info, steps)
    system = next((s.payload["text"] for s in steps if s.kind == "system"), "")
    return UpstreamItem(
        position=position,
        task_id=task_id,
        task_type=raw["task_type"],
        gold=_gold(raw.get("gt_answer"), fail),
        reward=reward,
        metrics=metrics,
        agent_info=info,
        steps=steps,
        query=query,
        answer=answer,
        parsed_answer=None if parsed is None else [str(p) for p in parsed],
        run_error=run_error,
        infrastructure=infrastructure,
        prompt=prompt_says(traj),
        metadata=prompt_metadata(system),
    )


def unconfirmed(info: dict[str, Any]) -> tuple[str, str] | None:
    """(reason, source) when upstream ended the episode without a confirmed answer: any end reason
    but "Submit action" ("Invalid action", "Respond action", "Max turns reached", "Max user turns
    reached", "SOQL/SOSL query error", "tool_call error: ...", "Invalid tool: ..."), none of which
    upstream graded; None for a submitted answer or a run without an end reason (an API error)."""
    end = as_dict(info.get("end_reason"))
    message = end.get("message")
    if not isinstance(message, str) or not message or message == SUBMIT_ACTION:
        return None
    return message, str(end.get("source") or "agent")


def json_problem(exc: json.JSONDecodeError) -> str:
    """What is wrong with the JSON, in words: a file that ends inside a value (a run still
    being written, or a copy cut short) is called truncated."""
    reason = exc.msg.removesuffix(" at").removesuffix(" starting").lower()
    if not exc.doc[exc.pos :].strip() or reason == "unterminated string":
        return (
            f"the file is truncated: its JSON stops unfinished ({reason}); "
            "was it copied whole, or is the run still writing it?"
        )
    return f"invalid JSON: {reason}"


def _rows_interactive(data: list[Any]) -> bool:
    """The rows' word on the mode: an interactive prompt, a user turn counted in `num_turns`, or a
    user speaking after a respond."""
    for row in data:
        if not isinstance(row, dict) or not isinstance(row.get("traj"), list):
            continue
        info = as_dict(row.get("agent_info"))
        turns = info.get("num_turns")
        end = as_dict(info.get("end_reason"))
        if (
            prompt_says(row["traj"])["interactive"]
            or (isinstance(turns, list) and turns and _number(turns[0]) and turns[0] >= 1)
            or end.get("source") == "user"
            or responds_then_user(row["traj"])
        ):
            return True
    return False


def read_upstream_file(path: Path | str) -> UpstreamFile:
    """Parse and validate one result file; `UpstreamFormatError` says where it is malformed."""
    parsed, items = open_upstream_file(path)
    parsed.items = list(items)
    return parsed


def open_upstream_file(
    path: Path | str, known: frozenset[str] = frozenset()
) -> tuple[UpstreamFile, Iterator[UpstreamItem]]:
    """A result file's JSON read and what holds for the whole file decided (its run, mode and
    privacy rules): the file without its items, then the items one at a time, each validated
    and keyed as it comes. A malformed file raises `UpstreamFormatError` here, a malformed item
    when the iteration reaches it. An item whose import key is in `known` (imported before, so
    valid) is not read further: it comes as `known_item` makes it."""
    path = Path(path)
    try:
        data = strict_json.loads(path.read_bytes().decode("utf-8"))
    except strict_json.JsonValueError as exc:
        raise UpstreamFormatError(path, exc.where, exc.problem) from None
    except UnicodeDecodeError as exc:
        raise UpstreamFormatError(path, f"byte {exc.start}", "not UTF-8 text") from exc
    except json.JSONDecodeError as exc:
        raise UpstreamFormatError(
            path, f"line {exc.lineno} column {exc.colno}", json_problem(exc)
        ) from exc
    except OSError as exc:
        raise UpstreamFormatError(path, "", f"cannot read ({exc.strerror or exc})") from exc
    if not isinstance(data, list):
        raise UpstreamFormatError(
            path, "top level", f"expected a JSON list of results, found {type(data).__name__}"
        )
    run = parse_run_name(path)
    interactive = run.interactive if run.interactive is not None else _rows_interactive(data)
    parsed = UpstreamFile(path, run, interactive)
    if run.privacy_aware is None:  # the prompts' word, for every item before the first is read
        parsed._privacy = any(
            prompt_says(row["traj"])["privacy_aware"]
            for row in data
            if isinstance(row, dict) and isinstance(row.get("traj"), list)
        )
    return parsed, _items(parsed, data, known)


def _items(parsed: UpstreamFile, data: list[Any], known: frozenset[str]) -> Iterator[UpstreamItem]:
    run, seen = parsed.run, dict[str, int]()
    for position, raw in enumerate(data):
        canonical = canonical_json(raw)
        base = hashlib.sha256(
            f"{run.model}\n{run.strategy}\n{parsed.interactive}\n{canonical}".encode()
        ).hexdigest()[:24]
        seen[base] = seen.get(base, 0) + 1
        digest = f"{base}#{seen[base]}"
        if digest in known:
            item = known_item(position, raw, canonical)
        else:
            item = _item(parsed.path, position, raw, parsed.interactive)
        item.digest = digest
        yield item


def canonical_json(raw: Any) -> str:
    """An item's import key text: `dumps(raw)` (sorted keys, compact, not ASCII-escaped), made
    without escaping its system prompt again: the item is encoded with a marker for the prompt,
    then the prompt's JSON (`prompt_json`, escaped once per distinct prompt) put in its place.
    The marker is replaced only when the text holds it once (always, unless an item carries the
    marker's own text): then that one is the prompt's; else the item is encoded as it is."""
    traj = raw.get("traj") if type(raw) is dict else None
    if not (type(traj) is list and traj and type(first := traj[0]) is dict):
        return dumps(raw)
    prompt = first.get("content")
    if first.get("role") != "system" or type(prompt) is not str or len(prompt) < _PROMPT_SIZE:
        return dumps(raw)
    text = dumps({**raw, "traj": [{**first, "content": _MARK}, *traj[1:]]})
    if text.count(_MARK_JSON) != 1:
        return dumps(raw)
    return text.replace(_MARK_JSON, prompt_json(prompt))


_PROMPT_SIZE = 256  # (a shorter prompt is escaped as fast as it is found)
_MARK = "\x00crmarena-tui: the system prompt\x00"
_MARK_JSON = dumps(_MARK)


def known_item(position: int, raw: dict[str, Any], canonical: str) -> UpstreamItem:
    """An item imported before (its import key is in the database: the same run, the same JSON,
    so it was valid), with what deciding its participant needs and its canonical JSON, from which
    `full_item` reads it whole if it turns out not to be present for this import after all (the
    same run imported under another task source)."""
    return UpstreamItem(
        position=position,
        task_id=raw["task_id"] if type(raw.get("task_id")) is int else -1,
        task_type=str(raw.get("task_type", "")),
        gold=[],
        reward=0.0,
        metrics={},
        agent_info={},
        steps=[],
        query="",
        answer="",
        parsed_answer=None,
        run_error=None,
        infrastructure=None,
        prompt=prompt_says(raw["traj"]),
        known=canonical,
    )


def full_item(parsed: UpstreamFile, item: UpstreamItem) -> UpstreamItem:
    """A `known_item` read whole."""
    assert item.known is not None
    full = _item(parsed.path, item.position, json.loads(item.known), parsed.interactive)
    full.digest = item.digest
    return full
