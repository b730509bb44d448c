"""A session as an ATIF trajectory (the Agent Trajectory Interchange Format of Harbor and
Terminal-Bench; the `atif` package's models validate what is written here, and the product
writes plain JSON without importing them).

The mapping, one ATIF step per event but one:
- A query or search (`query`, `search`) is an agent step with one tool call (`soql_query`,
  `sosl_search`, the text as `arguments.query`); the observation or error the system answered
  it with, when it comes next, is that step's `observation` (`source_call_id` set).
- An agent's `thought` is the step's `reasoning_content`; every other event's text (`text`,
  `observation`, `error` or `answer`, whichever it has) is its `message`. Agents and human
  participants are `agent` steps, the simulated user `user`, the system `system`.
- `usage` events (and model turns with token counts) carry ATIF `metrics`; their totals and the
  grade are the trajectory's `final_metrics`.
- Exactness: each step's (and each merged result's) `extra.crmarena_tui` records the event's
  kind, actor when not implied, the rest of its payload and its duration; the root's
  `extra.crmarena_tui` holds the session's columns, task snapshot, every grade and every label
  and note (by event number). Notes are also the root `notes`, as text. Reading it back
  (`atif_read.py`) gives the same session, events, grades and annotations.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from crmarena_tui.interchange.trajectory import loads

if TYPE_CHECKING:
    from crmarena_tui.storage.interchange_rows import SessionBundle

SCHEMA_VERSION = "ATIF-v1.8"
EXT = "crmarena_tui"  # (the key of this project's fields in every `extra`)
FORMAT_VERSION = 1
TOOLS = {"query": "soql_query", "search": "sosl_search"}
TEXT_KEYS = ("text", "observation", "error", "answer")
SOURCES = {"agent": "agent", "human": "agent", "user": "user", "system": "system"}
SESSION_FIELDS = (
    "task_source",
    "task_idx",
    "task_type",
    "org_kind",
    "org_ref",
    "interactive",
    "aided",
    "blind",
    "status",
    "started_at",
    "ended_at",
    "active_seconds",
    "app_version",
    "settings_key",
    "user_simulator",
    "fork_seq",
    "kind",
    "protocol",
    "uuid",
    "trial",
)
GRADE_FIELDS = (
    "answer",
    "reward",
    "grader",
    "grader_version",
    "judge_model",
    "judge_raw",
    "extraction",
    "imported",
    "graded_at",
    "protocol",
)
NOTE_FIELDS = ("event_seq", "kind", "label", "note", "annotator", "created_at")

_loads = loads  # (orjson, else the standard decoder)


def atif_document(bundle: SessionBundle) -> dict[str, Any]:
    """The ATIF trajectory of one session (a JSON-ready dict)."""
    row, person = bundle.session, bundle.participant
    settings = _loads(row["settings"])
    task = _loads(row["task_json"])
    events = [
        (seq, ts, actor, kind, _loads(body), took)
        for seq, ts, actor, kind, body, took in bundle.events
    ]
    usage = [e[4] for e in events if e[3] == "usage"]
    answers = [e[4].get("answer", "") for e in events if e[3] == "submit"]
    steps = list(_steps(events))
    grades = [_grade(g) for g in bundle.grades]
    session = {name: row.get(name) for name in SESSION_FIELDS}
    session["settings"] = settings
    if bundle.parent_uuid is not None:
        session["parent_uuid"] = bundle.parent_uuid
    agent: dict[str, Any] = {
        "name": person.name,
        "version": str(settings.get("version") or row["app_version"]),
        "extra": {EXT: {"kind": person.kind, "settings": person.settings}},
    }
    if person.model:
        agent["model_name"] = person.model
    own: dict[str, Any] = {
        "format": FORMAT_VERSION,
        "session": session,
        "task": task,
        "grades": grades,
        "annotations": [{k: a[k] for k in NOTE_FIELDS} for a in bundle.annotations],
    }
    extra: dict[str, Any] = {"task_idx": row["task_idx"], "query": task.get("query", "")}
    if answers:
        extra["final_answer"] = answers[-1]
    if grades:
        extra["reward"] = grades[-1]["reward"]
    extra[EXT] = own
    doc: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "session_id": row["uuid"],
        "agent": agent,
        "steps": steps,
        "final_metrics": _final_metrics(usage, steps, grades),
        "extra": extra,
    }
    if bundle.annotations:
        doc["notes"] = "\n".join(_note_line(a) for a in bundle.annotations)
    return doc


def _steps(events: list[tuple[Any, ...]]) -> Iterator[dict[str, Any]]:
    """ATIF steps of (seq, ts, actor, kind, payload, duration_ms) events, numbered from 1 (the
    payloads are taken apart)."""
    step_id, i, n = 0, 0, len(events)
    while i < n:
        seq, ts, actor, kind, body, took = events[i]
        step_id += 1
        step: dict[str, Any] = {"step_id": step_id, "source": SOURCES[actor], "message": ""}
        if ts is not None:
            step["timestamp"] = ts
        own: dict[str, Any] = {"kind": kind}
        if actor == "human":
            own["actor"] = actor
        if took is not None:
            own["duration_ms"] = took
        text = body.get("text")
        if kind in TOOLS and actor != "system" and type(text) is str:
            call = f"call_{seq}"
            del body["text"]
            step["tool_calls"] = [
                {"tool_call_id": call, "function_name": TOOLS[kind], "arguments": {"query": text}}
            ]
            if (
                i + 1 < n
                and events[i + 1][3] in ("observation", "error")
                and events[i + 1][2] == ("system")
            ):
                i += 1
                step["observation"] = {"results": [_result(events[i], call)]}
        else:
            key = next((k for k in TEXT_KEYS if type(body.get(k)) is str), None)
            if key is not None:
                own["key"] = key
                slot = "reasoning_content" if kind == "thought" and actor == "agent" else "message"
                step[slot] = body.pop(key)
            metrics = _metrics(body) if step["source"] == "agent" else None
            if metrics:
                step["metrics"] = metrics
        if body:
            own["payload"] = body
        step["extra"] = {EXT: own}
        i += 1
        yield step


def _result(event: tuple[Any, ...], call: str) -> dict[str, Any]:
    """A system's answer to a tool call as the call's observation result."""
    _seq, ts, _actor, kind, body, took = event
    own: dict[str, Any] = {"kind": kind}
    result: dict[str, Any] = {"source_call_id": call}
    key = next((k for k in TEXT_KEYS if type(body.get(k)) is str), None)
    if key is not None:
        own["key"] = key
        result["content"] = body.pop(key)
    if ts is not None:
        own["timestamp"] = ts
    if took is not None:
        own["duration_ms"] = took
    if body:
        own["payload"] = body
    result["extra"] = {EXT: own}
    return result


def _metrics(body: dict[str, Any]) -> dict[str, Any] | None:
    """ATIF metrics of a usage event's (or a model turn's) token counts and cost."""
    found: dict[str, Any] = {}
    for ours, theirs in (("prompt_tokens", "prompt_tokens"), ("completion_tokens", None)):
        value = body.get(ours)
        if type(value) is int:
            found[theirs or ours] = value
    cost = body.get("cost")
    if isinstance(cost, int | float) and not isinstance(cost, bool):
        found["cost_usd"] = float(cost)
    return found or None


def _final_metrics(
    usage: list[dict[str, Any]], steps: list[dict[str, Any]], grades: list[dict[str, Any]]
) -> dict[str, Any]:
    """Token and cost totals of the usage events, the step count and the latest grade."""
    totals: dict[str, Any] = {"total_steps": len(steps)}
    prompt = completion = 0
    cost = 0.0
    used = bool(usage)
    for body in usage:
        tokens, made, spent = (
            body.get("prompt_tokens"),
            body.get("completion_tokens"),
            body.get("cost"),
        )
        prompt += tokens if type(tokens) is int else 0
        completion += made if type(made) is int else 0
        cost += float(spent) if isinstance(spent, int | float) else 0.0
    if used:
        totals.update(
            total_prompt_tokens=prompt, total_completion_tokens=completion, total_cost_usd=cost
        )
    if grades:
        last = grades[-1]
        totals["extra"] = {
            "reward": last["reward"],
            "grader": last["grader"],
            "protocol": last["protocol"],
        }
    return totals


def _grade(row: dict[str, Any]) -> dict[str, Any]:
    grade = {name: row[name] for name in GRADE_FIELDS}
    grade["imported"] = bool(row["imported"])
    grade["parsed_answer"] = _loads(row["parsed_answer"]) if row["parsed_answer"] else None
    grade["metrics"] = _loads(row["metrics"]) if row["metrics"] else {}
    return grade


def _note_line(row: dict[str, Any]) -> str:
    where = f"step event {row['event_seq']}" if row["event_seq"] is not None else "session"
    what = row["label"] if row["kind"] == "label" else "note"
    text = f": {row['note']}" if row["note"] else ""
    return f"[{row['annotator']}] {where} {what}{text}"
