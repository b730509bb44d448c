"""One session as a sample of an Inspect eval log (`inspect_export.py` writes the log): the
fields `inspect_ai.log.EvalSample` reads, built as plain JSON-ready values (the product never
imports `inspect_ai`).

- `input` the task's query, `target` its gold answer (`None` as "None"), `epoch` the trial.
- `messages`: the events a chat shows, in log order. A system prompt is a system message; the
  simulated user's messages are user messages; the participant's thoughts, messages, queries and
  answer are assistant messages (a query an `execute_soql` or `execute_sosl` tool call, the answer
  a `respond` call, each with the thought before it as its text); an observation or a query's
  error is the tool message of its call; any other error (a format correction) a user message.
- `scores["crmarena"]`: the session's grade: its reward, answer, and as explanation what was
  compared in words (`graders/explain.py`) and the judge's own words when a judge graded it.
- `model_usage`: the usage events summed per model; `started_at`, `completed_at`, `total_time`
  (wall seconds), `working_time` (active seconds, pauses left out); `uuid` the session's uuid.
- `metadata`: the task's fields (`task_idx`, `task_source`, `task_type`, `org_type`,
  `interactive`, `reward_metric`, `persona`, `task_metadata`), the session's `labels` (labels
  and notes: Inspect has no annotations of its own, and its viewer shows sample metadata), and
  `crmarena_tui`: what an import needs to make the very session again (the events no message
  shows, every grade, the session's columns and settings, the participant). Each message's
  `metadata.crmarena_tui` holds the events it shows, exactly as stored but for the text the
  message shows as its content: that is left out of the payload, and the record's `content_key`
  names the payload key it goes back under (each text written once, not twice).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from crmarena_tui.graders.explain import compared
from crmarena_tui.interchange.trajectory import loads
from crmarena_tui.storage.configuration import session_configuration

if TYPE_CHECKING:
    from crmarena_tui.storage.export_events import ExportEvent
    from crmarena_tui.storage.models import Annotation, GradeRow, Participant, Session

SCORER = "crmarena"
KEY = "crmarena_tui"  # the metadata key of this project's own fields
TOOLS = {"query": "execute_soql", "search": "execute_sosl", "submit": "respond"}
ARGUMENTS = {"execute_soql": "query", "execute_sosl": "search", "respond": "content"}
SESSION_COLUMNS = (
    "org_kind",
    "org_ref",
    "interactive",
    "aided",
    "blind",
    "kind",
    "trial",
    "fork_seq",
    "user_simulator",
    "app_version",
    "settings_key",
    "active_seconds",
    "protocol",
)


def _text(payload: dict[str, Any], *keys: str) -> str:
    for key in keys:
        value = payload.get(key)
        if isinstance(value, str):
            return value
    return ""


def _record(event: ExportEvent, payload: dict[str, Any]) -> dict[str, Any]:
    """An event as stored: what an import writes back."""
    return {
        "seq": event[1],
        "ts": event[2],
        "actor": event[3],
        "kind": event[4],
        "payload": payload,
        "duration_ms": event[6],
    }


def _lean(event: ExportEvent, payload: dict[str, Any], key: str) -> tuple[dict[str, Any], str]:
    """The event's record without its payload's text `key` (taken out of `payload`, a dict of
    its own), which its message shows as content (the record's `content_key` says where it goes
    back), and that text; the record as it is and "" when that text is not text."""
    record = _record(event, payload)
    text = payload.get(key)
    if type(text) is not str:
        return record, ""
    del payload[key]
    record["content_key"] = key
    return record, text


class _Chat:
    """The messages of one session, built event by event (`add`)."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.apart: list[dict[str, Any]] = []  # events no message shows
        self.thought: tuple[dict[str, Any], str] | None = None  # (its record, its text)
        self.call: tuple[str, str] | None = None  # (id, function) of a call awaiting its result

    def _message(self, role: str, content: str, records: list[dict[str, Any]], **more: Any) -> None:
        self.messages.append({"role": role, "content": content, **more, "metadata": {KEY: records}})

    def _flush(self) -> None:
        if self.thought is not None:
            record, text = self.thought
            self.thought = None
            self._message("assistant", text, [record])

    def add(self, event: ExportEvent) -> None:
        actor, kind = event[3], event[4]
        payload = cast("dict[str, Any]", loads(event[5] or "{}"))
        participant = actor in ("agent", "human")
        if participant and kind == "thought":
            self._flush()
            self.thought = _lean(event, payload, "text")
            return
        if participant and kind in TOOLS:
            records, content = [_record(event, payload)], ""
            if self.thought is not None:
                records.insert(0, self.thought[0])
                content, self.thought = self.thought[1], None
            function = TOOLS[kind]
            call_id = f"call-{event[1]}"
            text = _text(payload, "answer" if kind == "submit" else "text")
            call = {
                "id": call_id,
                "function": function,
                "arguments": {ARGUMENTS[function]: text},
                "type": "function",
            }
            self._message("assistant", content, records, tool_calls=[call])
            self.call = (call_id, function) if kind != "submit" else None
            return
        if self.thought is not None:
            self._flush()
        awaited = self.call
        if kind == "observation" and awaited is not None:
            self.call = None
            record, text = _lean(event, payload, "observation")
            self._message("tool", text, [record], tool_call_id=awaited[0], function=awaited[1])
        elif kind == "error" and awaited is not None:
            self.call = None
            record, error = _lean(event, payload, "error")
            self._message(
                "tool",
                error,
                [record],
                tool_call_id=awaited[0],
                function=awaited[1],
                error={"type": "unknown", "message": error},
            )
        elif kind == "error":
            record, text = _lean(event, payload, "error")
            self._message("user", text, [record])
        elif kind == "message" and (actor == "user" or participant):
            role = "user" if actor == "user" else "assistant"
            record, text = _lean(event, payload, "text")
            self._message(role, text, [record])
        elif kind == "system" and payload.get("event") == "system_prompt":
            record, text = _lean(event, payload, "text")
            self._message("system", text, [record])
        else:
            self.apart.append(_record(event, payload))

    def done(self) -> None:
        self._flush()


def _usage(apart: list[dict[str, Any]], model: str) -> dict[str, dict[str, Any]]:
    """The usage events summed per model (Inspect's `ModelUsage` fields)."""
    found: dict[str, dict[str, Any]] = {}
    for record in apart:
        if record["kind"] != "usage":
            continue
        usage = record["payload"]
        name = usage.get("model") if isinstance(usage.get("model"), str) else model
        into = found.setdefault(
            str(name or model), {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
        )
        prompt, completion = _int(usage.get("prompt_tokens")), _int(usage.get("completion_tokens"))
        into["input_tokens"] += prompt
        into["output_tokens"] += completion
        into["total_tokens"] += _int(usage.get("total_tokens")) or prompt + completion
        cost = usage.get("cost")
        if isinstance(cost, int | float) and not isinstance(cost, bool):
            into["total_cost"] = into.get("total_cost", 0.0) + float(cost)
    return found


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def grade_record(grade: GradeRow) -> dict[str, Any]:
    """A grade as stored (the `grades` table's columns but its ids)."""
    from crmarena_tui.storage.convert import iso as stored_time

    return {
        "reward": grade.reward,
        "answer": grade.answer,
        "parsed_answer": grade.parsed_answer,
        "metrics": grade.metrics,
        "grader": grade.grader,
        "grader_version": grade.grader_version,
        "judge_model": grade.judge_model,
        "judge_raw": grade.judge_raw,
        "extraction": grade.extraction,
        "imported": grade.imported,
        "graded_at": stored_time(grade.graded_at),  # (as stored: a grade keeps its text)
        "protocol": grade.protocol,
    }


def explanation(grade: GradeRow, task: dict[str, Any]) -> str:
    """What was compared, in words, and the judge's own words when a judge graded."""
    gold = task.get("answer") if isinstance(task.get("answer"), list) else []
    try:
        said = compared(cast("Any", grade), str(task.get("reward_metric", "")), gold or [])
    except (TypeError, ValueError, AttributeError):  # an imported grade's odd metrics
        said = f"reward {grade.reward:g} ({grade.grader})"
    if grade.judge_raw:
        return f"{said}\n\nThe judge ({grade.judge_model or 'LLM'}) said: {grade.judge_raw}"
    return said


def label_records(notes: Sequence[Annotation]) -> list[dict[str, Any]]:
    from crmarena_tui.storage.export_events import iso

    return [
        {
            "kind": a.kind,
            "level": a.level,
            "label": a.label,
            "note": a.note,
            "annotator": a.annotator,
            "step": a.event_seq,
            "created_at": iso(a.created_at),
        }
        for a in notes
    ]


def build_sample(
    sample_id: int | str,
    session: Session,
    person: Participant,
    events: Sequence[ExportEvent],
    grades: Sequence[GradeRow],
    notes: Sequence[Annotation],
    parent_uuid: str | None,
    configuration: str | None = None,
) -> dict[str, Any]:
    """The sample of one session (module docstring), as JSON-ready values; `configuration` the
    session's (`session_configuration`), when the caller has it already."""
    from crmarena_tui.storage.export_events import iso

    task = session.task_json
    chat = _Chat()
    for event in events:
        chat.add(event)
    chat.done()
    messages = chat.messages
    if not session.interactive and not any(m["role"] == "user" for m in messages):
        at = next((i for i, m in enumerate(messages) if m["role"] != "system"), len(messages))
        query = {"role": "user", "content": task.get("query", ""), "source": "input"}
        messages.insert(at, {**query, "metadata": {KEY: []}})  # the input: no event of its own
    grade = grades[-1] if grades else None
    started, ended = iso(session.started_at), iso(session.ended_at)
    model = person.model or person.name
    found = task.get("answer")
    gold: list[Any] = found if isinstance(found, list) else []
    answer = grade.answer if grade is not None else None
    columns = {name: getattr(session, name) for name in SESSION_COLUMNS}
    columns["parent_uuid"] = parent_uuid
    metadata = {
        "task_idx": session.task_idx,
        "task_source": session.task_source,
        "task_type": session.task_type,
        "org_type": task.get("org_type"),
        "interactive": session.interactive,
        "reward_metric": task.get("reward_metric"),
        "persona": task.get("persona", ""),
        "task_metadata": task.get("metadata", {}),
        "configuration": configuration or session_configuration(person, session),
        "labels": label_records(notes),
        KEY: {
            "session_uuid": session.uuid,
            "participant": {
                "kind": person.kind,
                "name": person.name,
                "model": person.model,
                "settings": person.settings,
            },
            "gold": gold,
            "status": session.status,
            "started_at": started,
            "ended_at": ended,
            "settings": session.settings,
            "columns": columns,
            "grades": [grade_record(g) for g in grades],
            "events": chat.apart,
        },
    }
    sample: dict[str, Any] = {
        "id": sample_id,
        "epoch": session.trial,
        "input": task.get("query", ""),
        "target": ["None" if a is None else str(a) for a in gold],
        "messages": messages,
        "output": {
            "model": model,
            "choices": [
                {
                    "message": {"role": "assistant", "content": answer, "source": "generate"},
                    "stop_reason": "stop",
                }
            ]
            if answer
            else [],
            "completion": answer or "",
        },
        "metadata": metadata,
        "store": {},
        "events": [],
        "model_usage": _usage(chat.apart, model),
        "started_at": started,
        "completed_at": ended,
        "total_time": session.wall_seconds,
        "working_time": session.active_seconds,
        "uuid": session.uuid or None,
        "attachments": {},
    }
    if grade is not None:
        sample["scores"] = {
            SCORER: {
                "value": grade.reward,
                "answer": grade.answer,
                "explanation": explanation(grade, task),
                "metadata": {"grader": grade.grader, "protocol": grade.protocol},
                "history": [],
            }
        }
    return sample


SUMMARY_FIELDS = (
    "id",
    "epoch",
    "input",
    "target",
    "scores",
    "model_usage",
    "started_at",
    "completed_at",
    "total_time",
    "working_time",
    "uuid",
)


def summary(sample: dict[str, Any]) -> dict[str, Any]:
    """The sample's entry in the log's `summaries.json` (what `inspect view` lists), its metadata
    without this project's own fields."""
    found = {name: sample[name] for name in SUMMARY_FIELDS if name in sample}
    found["metadata"] = {k: v for k, v in sample["metadata"].items() if k != KEY}
    found["completed"] = True
    found["message_count"] = len(sample["messages"])
    return found
