"""The rows one upstream item writes (its session, events and grade), made before the writer needs
them: by the processes that read the files (`upstream_read.py`), so the process that writes only
adds the ids it allocates (the session's, its participant's) and binds. Every value is encoded
here as the database stores it (`scrubbed_json`: secrets dropped as every write does).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from crmarena_tui.graders.base import GRADER_VERSION
from crmarena_tui.storage.convert import dumps, iso, scrubbed_json
from crmarena_tui.storage.search_text import index_values
from crmarena_tui.storage.upstream_file import UpstreamFile, UpstreamItem, as_dict
from crmarena_tui.storage.upstream_traj import prompt_json
from crmarena_tui.tasks.catalog import BY_NAME


@dataclass(slots=True)
class ItemRows:
    """An item's rows, encoded: the session's columns but its id, participant and settings key;
    its events as (actor, kind, payload JSON), numbered when written; the grade's columns but its
    session; each event's (body, facets) for the search index (storage/search_text.py)."""

    session: dict[str, Any]
    events: list[tuple[str, str, str]]
    grade: dict[str, Any]
    index: list[tuple[str, str] | None]


def file_source(
    parsed: UpstreamFile, org_type: str | None, task_source: str | None
) -> tuple[str, str]:
    """(task source, org type) a file's sessions are filed under: the overrides given, else what
    the path and the rows say (see upstream.py's notes)."""
    org = org_type or parsed.run.org_type or "b2b"
    if task_source:
        return task_source, org
    if org == "original":
        return "hf:original", org
    return (f"hf:{org}_interactive" if parsed.interactive else f"hf:{org}"), org


def file_stamp(parsed: UpstreamFile) -> str:
    """The sessions' start and end: the file's modification time (upstream records no time)."""
    return iso(parsed.path.stat().st_mtime)


def item_rows(
    parsed: UpstreamFile, item: UpstreamItem, where: tuple[str, str], stamp: str
) -> ItemRows:
    """One item's session, events (no times: upstream records none) and grade."""
    source, org = where
    known = BY_NAME.get(item.task_type)
    metric = known.metric if known else ("fuzzy_match" if 0 < item.reward < 1 else "exact_match")
    required, optional = item.metadata
    task = {
        "idx": item.task_id,
        "task": item.task_type,
        "query": item.query,
        "answer": item.gold,
        "metadata": {"required": required, "optional": optional},
        "reward_metric": metric,
        "persona": "",
        "source": source,
        "org_type": org,
        "interactive": parsed.interactive,
    }
    settings: dict[str, Any] = {
        "imported_from": "upstream",
        "file": parsed.path.name,
        "position": item.position,
        "import_key": item.digest,
        "model": parsed.run.model,
        "strategy": parsed.run.strategy,
        "privacy_aware": parsed.privacy_aware,
    }
    if item.end_reason is not None:
        settings["end_reason"] = item.end_reason
    if item.infrastructure:
        settings["infrastructure_error"] = item.infrastructure
    session = {
        "task_source": source,
        "task_idx": item.task_id,
        "task_type": item.task_type,
        "task_json": dumps(task),
        "org_kind": "salesforce",
        "org_ref": f"salesforce:{org}",
        "interactive": int(parsed.interactive),
        "aided": int(item.prompt["aided"]),
        "blind": 0,
        "started_at": stamp,
        "ended_at": stamp,
        "settings": scrubbed_json(settings),
        "protocol": "upstream",
        "user_simulator": "upstream" if parsed.interactive else None,
        "uuid": uuid.uuid4().hex,
    }
    events = [(s.actor, s.kind, encode_payload(s.payload)) for s in item.steps]
    index = [index_values(s.kind, s.actor, s.payload) for s in item.steps]
    metrics: dict[str, Any] = dict(item.metrics)
    if item.run_error is not None:
        metrics["api_error"] = item.run_error
        api_error = {"source": "api", "error": item.run_error}
        events.append(("system", "error", scrubbed_json(api_error)))
        index.append(index_values("error", "system", api_error))
    if item.infrastructure:
        metrics["infrastructure_error"] = item.infrastructure
    elif item.run_error is not None:
        metrics["run_error"] = item.run_error
    if item.end_reason is not None:
        metrics["end_reason"] = str(item.end_reason.get("message", ""))
        metrics["end_source"] = str(item.end_reason.get("source", ""))
    usage = usage_payload(item.agent_info, parsed.run.model)
    if usage:
        events.append(("agent", "usage", scrubbed_json(usage)))
        index.append(index_values("usage", "agent", usage))
    parsed_answer, metrics_json = dumps(item.parsed_answer), scrubbed_json(metrics)
    events.append(
        ("system", "grade", grade_payload(metric, item.reward, parsed_answer, metrics_json))
    )
    index.append(index_values("grade", "system", {}))  # (its keys hold no indexed text)
    return ItemRows(
        session,
        events,
        {
            "answer": item.answer,
            "parsed_answer": parsed_answer,
            "reward": float(item.reward),
            "metrics": metrics_json,
            "grader": metric,
            "grader_version": GRADER_VERSION,
            "extraction": "imported",
            "imported": 1,
            "graded_at": stamp,
            "protocol": "upstream",
        },
        index,
    )


def grade_payload(metric: str, reward: float, parsed_answer: str, metrics: str) -> str:
    """The grade event's payload, `scrubbed_json` of the grade record (`reward`, `parsed_answer`,
    `grader`, `grader_version`, `extraction`, `imported`, `protocol`, `metrics`), made from the
    parts the grade row encodes already (`parsed_answer` by `dumps`, `metrics` by
    `scrubbed_json`): the metrics are encoded and scrubbed once, not twice. The record's own keys
    name no secret, and scrubbing the metrics inside it drops what scrubbing them alone does."""
    return (
        f'{{"extraction":"imported","grader":{dumps(metric)},'
        f'"grader_version":{_GRADER_VERSION},"imported":true,"metrics":{metrics},'
        f'"parsed_answer":{parsed_answer},"protocol":"upstream","reward":{dumps(reward)}}}'
    )


_GRADER_VERSION = dumps(GRADER_VERSION)


def usage_payload(info: dict[str, Any], model: str) -> dict[str, Any]:
    """`agent_info` accounting as one usage event: totals under the live agents' keys, plus the
    per-call lists, turn counts, observation sizes and end reason as upstream recorded them."""
    usage = as_dict(info.get("usage"))
    if not usage and "total_cost" not in info and "num_turns" not in info:
        return {}

    def total(name: str) -> float:
        values = usage.get(name) or []
        if not isinstance(values, list):
            return 0
        return sum(v for v in values if type(v) is int or type(v) is float)

    cost = info.get("total_cost")
    payload: dict[str, Any] = {
        "model": model,
        "prompt_tokens": int(total("prompt_tokens")),
        "completion_tokens": int(total("completion_tokens")),
        "total_tokens": int(total("total_tokens")),
        "cost": float(cost) if isinstance(cost, int | float) else float(total("cost")),
        "calls": len(usage.get("total_tokens") or usage.get("cost") or []),
        "per_call": usage,
    }
    for name in ("num_turns", "observation_sizes", "end_reason"):
        if name in info:
            payload[name] = info[name]
    return payload


def encode_payload(payload: dict[str, Any]) -> str:
    """`scrubbed_json(payload)`, the same text, made directly for the shapes most steps have: one
    text under a key (an observation, a query, an answer) and a reply's thought (most of the
    trajectory's steps; the generic encoder spends most of its time on the call itself), and the
    system prompt (`system_prompt_json`)."""
    if len(payload) == 1:
        ((key, value),) = payload.items()
        if type(value) is str and key in _ONE_TEXT:
            return f'{{"{key}":{_text(value)}}}'
    elif len(payload) == 3 and _THOUGHT.issuperset(payload):
        reply, text, turn = payload["reply"], payload["text"], payload["turn"]
        if type(reply) is str and type(text) is str and type(turn) is int:
            return f'{{"reply":{_text(reply)},"text":{_text(text)},"turn":{turn}}}'
    elif (
        len(payload) == 2
        and payload.get("event") == "system_prompt"
        and type(prompt := payload.get("text")) is str
    ):
        return system_prompt_json(prompt)
    return scrubbed_json(payload)


def system_prompt_json(text: str) -> str:
    """The system prompt step's payload, `{"event": "system_prompt", "text": text}` encoded, the
    prompt escaped once per distinct prompt (`upstream_traj.prompt_json`)."""
    return f'{{"event":"system_prompt","text":{prompt_json(text)}}}'


_ONE_TEXT = frozenset({"observation", "text", "answer"})  # (none of them names a secret)
_THOUGHT = frozenset({"reply", "text", "turn"})
_text: Callable[[str], str] = json.encoder.encode_basestring  # (`dumps`' text, not ASCII-escaped)
