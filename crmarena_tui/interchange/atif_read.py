"""ATIF trajectory files read as `Trajectory`s (`trajectory.py`), recognised by their content (a
JSON object whose `schema_version` is `ATIF-v...`), whatever their name.

A file this project wrote (`atif_write.py`: `extra.crmarena_tui` at its root) is read back
exactly: the same session, events, grades, labels and notes. Any other ATIF file is read by the
format's own fields:
- task: `extra.task_idx` (or `idx`, `task_id`), else `extra.query`, else the first user
  step's message, matched in the task source (`TaskMatcher`);
- the configuration: the agent's `name` and `model_name` (its `version` in the settings);
- steps: system messages and results are `system` events, user messages `message`s of the
  user; an agent step gives, in order, its reasoning (`thought`), its message, its tool calls
  (`search` for an SOSL or search tool, else `query`; the `query` argument, else the arguments
  as JSON, as the text), their results (`observation`s) and its metrics (`usage`);
- the final answer: `extra.final_answer` (or `answer`), else the last step's message when it is
  an agent's without tool calls (a `submit` then, not a message);
- a grade: `extra.reward` or `final_metrics.extra.reward`, kept as an imported grade (protocol
  `imported`, grader `atif`: not upstream's grading nor this project's); none, and the command
  grades the final answer;
- the root `notes`: a note on the session, signed `atif`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, cast

from crmarena_tui.interchange.atif_write import EXT, SESSION_FIELDS
from crmarena_tui.interchange.trajectory import (
    CARRIED,
    Configuration,
    Remark,
    Step,
    Trajectory,
    TrajectoryGrade,
    loads,
)
from crmarena_tui.interchange.writer import EntryError
from crmarena_tui.storage.models import ACTORS as ALL_ACTORS
from crmarena_tui.storage.models import EVENT_KINDS

ENTRY = "trajectory"  # (an ATIF file holds one)
_NONE: dict[str, Any] = {}  # (a payload not given; copied, never changed)
ACTORS = {"agent": "agent", "user": "user", "system": "system"}
_SCHEMA = re.compile(rb'"schema_version"\s*:\s*"ATIF-v')


def recognises_atif(path: Path, head: bytes) -> bool:
    """Whether the file is an ATIF trajectory: a JSON object with an `ATIF-v...` schema."""
    if not head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
        return False
    if _SCHEMA.search(head):
        return True
    try:
        return _SCHEMA.search(path.read_bytes()) is not None
    except OSError:
        return False


def read_atif(path: Path) -> list[Trajectory]:
    """The file's trajectory; `EntryError` names the field that is wrong."""
    try:
        doc = loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise EntryError(path, ENTRY, "", f"cannot be read as JSON: {exc}") from None
    read = _Reader(path)
    if not isinstance(doc, dict):
        read.fail("", "is not a JSON object")
    version = doc.get("schema_version")
    if not (isinstance(version, str) and version.startswith("ATIF-v")):
        read.fail("schema_version", f"{version!r} is not an ATIF version")
    extra = doc.get("extra") or {}
    own = extra.get(EXT) if isinstance(extra, dict) else None
    if isinstance(own, dict):
        return [read.own(doc, own)]
    return [read.foreign(doc)]


class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, field: str, problem: str) -> NoReturn:
        raise EntryError(self.path, ENTRY, field, problem)

    def obj(self, value: Any, field: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(field, "is not an object")
        return value

    def items(self, value: Any, field: str) -> list[Any]:
        if not isinstance(value, list):
            self.fail(field, "is not a list")
        return value

    def known(self, value: Any, allowed: frozenset[str], field: str) -> str:
        if value not in allowed:
            self.fail(field, f"{value!r} is not one of {', '.join(sorted(allowed))}")
        return str(value)

    def text(self, value: Any, field: str) -> str:
        """A message or content: a string, or ATIF content parts (their text joined)."""
        if value is None:
            return ""
        if isinstance(value, str):
            return value
        if isinstance(value, list):
            return "\n".join(
                str(part.get("text") or "") for part in value if isinstance(part, dict)
            )
        self.fail(field, "is neither text nor a list of content parts")

    # -- a file this project wrote ------------------------------------------------------------

    def own(self, doc: dict[str, Any], own: dict[str, Any]) -> Trajectory:
        where = f"extra.{EXT}"
        session = self.obj(own.get("session"), f"{where}.session")
        missing = [name for name in SESSION_FIELDS if name not in session]
        if missing:
            self.fail(f"{where}.session.{missing[0]}", "is missing")
        agent = self.obj(doc.get("agent"), "agent")
        person = self.obj((agent.get("extra") or {}).get(EXT, {}), f"agent.extra.{EXT}")
        task = self.obj(own.get("task"), f"{where}.task")
        columns = {k: v for k, v in session.items() if k in CARRIED}
        return Trajectory(
            entry=ENTRY,
            participant=Configuration(
                name=str(agent.get("name") or ""),
                model=str(agent.get("model_name") or ""),
                kind=str(person.get("kind") or "agent"),
                settings=self.obj(person.get("settings", {}), f"agent.extra.{EXT}.settings"),
            ),
            steps=self.own_steps(self.items(doc.get("steps"), "steps")),
            task_idx=session["task_idx"],
            query=task.get("query"),
            task_source=session["task_source"],
            task=task,
            grades=[
                self.own_grade(g, f"{where}.grades[{i}]")
                for i, g in enumerate(self.items(own.get("grades", []), f"{where}.grades"))
            ],
            remarks=[
                self.own_remark(a, f"{where}.annotations[{i}]")
                for i, a in enumerate(
                    self.items(own.get("annotations", []), f"{where}.annotations")
                )
            ],
            status=session["status"],
            started_at=session["started_at"],
            ended_at=session["ended_at"],
            settings=self.obj(session.get("settings", {}), f"{where}.session.settings"),
            uuid=session["uuid"] or None,
            key=str(session["uuid"]),
            columns=columns,
        )

    def own_steps(self, steps: list[Any]) -> list[Step]:
        """The events of this project's steps (the checks inline, a field's name made only for
        its error: thousands of steps a second)."""
        events: list[Step] = []
        append = events.append
        for i, step in enumerate(steps):
            if type(step) is not dict:
                step = self.obj(step, f"steps[{i}]")
            extra = step.get("extra")
            own = extra.get(EXT) if type(extra) is dict else None
            if type(own) is not dict:
                own = self.obj(own, f"steps[{i}].extra.{EXT}")
            payload = own.get("payload", _NONE)
            if type(payload) is not dict:
                payload = self.obj(payload, f"steps[{i}].extra.{EXT}.payload")
            payload = dict(payload)
            actor = own.get("actor") or ACTORS.get(str(step.get("source")), "")
            calls = step.get("tool_calls")
            if calls:
                payload["text"] = self.own_call(calls, f"steps[{i}]")
            elif own.get("key"):
                slot = (
                    "reasoning_content" if step.get("reasoning_content") is not None else "message"
                )
                text = step.get(slot)
                payload[own["key"]] = (
                    text if type(text) is str else self.text(text, f"steps[{i}].{slot}")
                )
            kind = own.get("kind")
            if actor not in ALL_ACTORS or kind not in EVENT_KINDS:
                self.known(actor, ALL_ACTORS, f"steps[{i}].extra.{EXT}.actor")
                self.known(kind, EVENT_KINDS, f"steps[{i}].extra.{EXT}.kind")
            append(
                Step(actor, cast(str, kind), payload, step.get("timestamp"), own.get("duration_ms"))
            )
            observation = step.get("observation")
            if observation is not None:
                self.own_results(observation, f"steps[{i}]", append)
        return events

    def own_call(self, calls: Any, name: str) -> Any:
        """The `query` argument of a step's first tool call (the event's text)."""
        call = self.obj(self.items(calls, f"{name}.tool_calls")[0], f"{name}.tool_calls[0]")
        arguments = call.get("arguments")
        if type(arguments) is not dict:
            arguments = self.obj(arguments, f"{name}.tool_calls[0].arguments")
        return arguments.get("query")

    def own_results(self, observation: Any, name: str, append: Callable[[Step], None]) -> None:
        """The events of a step's observation results (each its own event of this project)."""
        results = self.obj(observation, f"{name}.observation").get("results")
        if type(results) is not list:
            results = self.items(results, f"{name}.observation.results")
        for j, result in enumerate(results):
            if type(result) is not dict:
                result = self.obj(result, f"{name}.observation.results[{j}]")
            extra = result.get("extra")
            mine = extra.get(EXT) if type(extra) is dict else None
            if type(mine) is not dict:
                mine = self.obj(mine, f"{name}.observation.results[{j}].extra.{EXT}")
            body = mine.get("payload", _NONE)
            if type(body) is not dict:
                body = self.obj(body, f"{name}.observation.results[{j}].extra.{EXT}.payload")
            body = dict(body)
            if mine.get("key"):
                content = result.get("content")
                body[mine["key"]] = (
                    content
                    if type(content) is str
                    else self.text(content, f"{name}.observation.results[{j}].content")
                )
            kind = mine.get("kind")
            if kind not in EVENT_KINDS:
                self.known(kind, EVENT_KINDS, f"{name}.observation.results[{j}].extra.{EXT}.kind")
            append(
                Step(
                    "system", cast(str, kind), body, mine.get("timestamp"), mine.get("duration_ms")
                )
            )

    def own_grade(self, raw: Any, name: str) -> TrajectoryGrade:
        grade = self.obj(raw, name)
        reward = grade.get("reward")
        if not isinstance(reward, int | float) or isinstance(reward, bool):
            self.fail(f"{name}.reward", f"{reward!r} is not a number")
        return TrajectoryGrade(
            reward=float(reward),
            answer=str(grade.get("answer", "")),
            grader=str(grade.get("grader", "")),
            parsed_answer=grade.get("parsed_answer"),
            metrics=self.obj(grade.get("metrics", {}), f"{name}.metrics"),
            grader_version=str(grade.get("grader_version", "")),
            judge_model=grade.get("judge_model"),
            judge_raw=grade.get("judge_raw"),
            extraction=grade.get("extraction"),
            imported=bool(grade.get("imported")),
            graded_at=grade.get("graded_at"),
            protocol=grade.get("protocol"),
        )

    def own_remark(self, raw: Any, name: str) -> Remark:
        note = self.obj(raw, name)
        return Remark(
            annotator=str(note.get("annotator") or ""),
            label=str(note.get("label") or ""),
            note=str(note.get("note") or ""),
            kind=str(note.get("kind") or "label"),
            step=note.get("event_seq"),
            created_at=note.get("created_at"),
        )

    # -- any other ATIF file ------------------------------------------------------------------

    def foreign(self, doc: dict[str, Any]) -> Trajectory:
        agent = self.obj(doc.get("agent"), "agent")
        name = agent.get("name")
        if not isinstance(name, str) or not name:
            self.fail("agent.name", "is missing")
        extra = self.obj(doc.get("extra") or {}, "extra")
        steps = self.items(doc.get("steps"), "steps")
        events, first_user = self.foreign_steps(steps)
        answer = extra.get("final_answer", extra.get("answer"))
        if answer is not None and not isinstance(answer, str):
            self.fail("extra.final_answer", "is not text")
        # (the last step's message: its metrics, a `usage` event, come after it)
        at = next((i for i in range(len(events) - 1, -1, -1) if events[i].kind != "usage"), -1)
        if answer is None and at >= 0 and events[at].kind == "message":
            last = steps[-1] if isinstance(steps[-1], dict) else {}
            mine = events[at].actor == "agent" and not last.get("tool_calls")
            if mine and events[at].payload.get("text"):
                answer = events.pop(at).payload["text"]
        idx = next((extra[k] for k in ("task_idx", "idx", "task_id") if k in extra), None)
        if isinstance(idx, str) and idx.strip().isdigit():
            idx = int(idx)
        if idx is not None and type(idx) is not int:
            self.fail("extra.task_idx", f"{idx!r} is not a task idx")
        query = extra.get("query", first_user)
        metrics = doc.get("final_metrics") or {}
        reward = extra.get("reward", (metrics.get("extra") or {}).get("reward"))
        if reward is not None and type(reward) not in (int, float):
            self.fail("extra.reward", f"{reward!r} is not a number")
        grades = []
        if reward is not None:
            grades.append(TrajectoryGrade(reward=float(reward), answer=answer or "", grader="atif"))
        notes = doc.get("notes")
        source = extra.get("task_source")
        return Trajectory(
            entry=ENTRY,
            participant=Configuration(
                name=name,
                model=str(agent.get("model_name") or ""),
                settings={"agent_version": str(agent.get("version", ""))},
            ),
            steps=events,
            task_idx=idx,
            query=query if isinstance(query, str) else None,
            task_source=source if isinstance(source, str) else None,
            final_answer=answer,
            grades=grades,
            remarks=[Remark("atif", kind="note", note=notes)]
            if isinstance(notes, str) and notes.strip()
            else [],
            key=hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest(),
        )

    def foreign_steps(self, steps: list[Any]) -> tuple[list[Step], str | None]:
        """The events of another harness's steps, and the first user message."""
        events: list[Step] = []
        first_user: str | None = None
        for i, raw in enumerate(steps):
            name = f"steps[{i}]"
            step = self.obj(raw, name)
            source = step.get("source")
            if source not in ACTORS:
                self.fail(f"{name}.source", f"{source!r} is not system, user or agent")
            ts = step.get("timestamp")
            message = self.text(step.get("message"), f"{name}.message")
            if source == "user":
                first_user = message if first_user is None else first_user
                events.append(Step("user", "message", {"text": message}, ts))
                continue
            if source == "system":
                if message:
                    events.append(Step("system", "system", {"text": message}, ts))
            else:
                thought = step.get("reasoning_content")
                if isinstance(thought, str) and thought:
                    events.append(Step("agent", "thought", {"text": thought}, ts))
                if message:
                    events.append(Step("agent", "message", {"text": message}, ts))
                for j, call in enumerate(
                    self.items(step.get("tool_calls") or [], f"{name}.tool_calls")
                ):
                    events.append(self.foreign_call(call, f"{name}.tool_calls[{j}]", ts))
            observation = step.get("observation")
            if observation is not None:
                results = self.obj(observation, f"{name}.observation").get("results")
                for j, result in enumerate(self.items(results, f"{name}.observation.results")):
                    rname = f"{name}.observation.results[{j}]"
                    content = self.text(self.obj(result, rname).get("content"), f"{rname}.content")
                    events.append(Step("system", "observation", {"observation": content}, ts))
            usage = step.get("metrics")
            if source == "agent" and isinstance(usage, dict) and usage:
                events.append(Step("agent", "usage", _usage(usage, step.get("model_name")), ts))
        return events, first_user

    def foreign_call(self, raw: Any, name: str, ts: Any) -> Step:
        call = self.obj(raw, name)
        tool = call.get("function_name")
        if not isinstance(tool, str):
            self.fail(f"{name}.function_name", "is missing")
        arguments = self.obj(call.get("arguments", {}), f"{name}.arguments")
        query = arguments.get("query")
        text = query if isinstance(query, str) else json.dumps(arguments, sort_keys=True)
        kind = "search" if re.search(r"sosl|search", tool, re.IGNORECASE) else "query"
        payload: dict[str, Any] = {"text": text, "tool": tool}
        if set(arguments) - {"query"}:
            payload["arguments"] = arguments
        return Step("agent", kind, payload, ts)


def _usage(metrics: dict[str, Any], model: Any) -> dict[str, Any]:
    """A usage event's payload of ATIF step metrics."""
    prompt = metrics.get("prompt_tokens") or 0
    completion = metrics.get("completion_tokens") or 0
    usage: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "cost": metrics.get("cost_usd") or 0.0,
        "calls": 1,
        "source": "atif",
    }
    if isinstance(model, str):
        usage["model"] = model
    return usage
