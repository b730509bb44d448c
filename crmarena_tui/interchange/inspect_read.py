"""Inspect eval logs read as trajectories (`trajectory.py`) for the import (`importer.py`): the
`.eval` zip and the `.json` log, recognised by their content (a zip holding `header.json` or
`_journal/start.json`; a JSON object with an eval spec and a status), each sample one session.

A sample this project exported (`inspect_sample.py`: its metadata holds `crmarena_tui`) is read
back exactly: its events from its messages' and its own metadata, its grades, labels, notes and
session columns. Any other sample is read from its messages (`foreign`): a system message is the
system prompt, a user message the user's, an assistant message the agent's (a message, or a
thought before its tool calls), a tool call of `execute_soql`/`execute_sosl`/`respond`/`submit`
(and similar names) a query, search or answer, a tool message its observation or error; its
model usage a usage event; its first score (`C`/`I`/`P`/`N` or a number) its imported grade
(protocol `imported`, grader `inspect:<scorer>`); the task found by `metadata.task_idx` (or
`idx`), else by the input's text.

Inspect writes `.eval` members compressed with zstd (the standard library reads it from Python
3.14 only): read with the `zstandard` package (a dependency), imported only when needed.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

from crmarena_tui.interchange.inspect_sample import KEY
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
from crmarena_tui.storage.models import ACTORS, EVENT_KINDS

_JSON_LOG = re.compile(rb'"status"\s*:\s*"(started|success|cancelled|error)"')
_EVAL_SPEC = re.compile(rb'"eval"\s*:\s*\{')
_ZSTD = 93
_NONE: dict[str, Any] = {}  # (metadata or a payload not given; never changed)
_VALUES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
_QUERY = re.compile(r"soql|^execute$|^query$|sql", re.IGNORECASE)
_SEARCH = re.compile(r"sosl|search", re.IGNORECASE)
_ANSWER = re.compile(r"^(respond|submit|answer|final_answer)$", re.IGNORECASE)


def recognises_inspect(path: Path, head: bytes) -> bool:
    """Whether the file is an Inspect eval log (`.eval` zip or JSON log), by its content."""
    if head.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(path) as archive:
                names = set(archive.namelist())
        except (OSError, zipfile.BadZipFile):
            return False
        return "header.json" in names or "_journal/start.json" in names
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return stripped.startswith(b"{") and bool(_EVAL_SPEC.search(head) and _JSON_LOG.search(head))


def read_inspect(path: Path) -> Iterator[Trajectory]:
    """The log's samples as trajectories, one at a time; `EntryError` names the sample and
    field that is wrong (or the file, when it cannot be read at all)."""
    if zipfile.is_zipfile(path):
        yield from _read_zip(path)
        return
    try:
        log = loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise EntryError(path, "log", "", f"cannot be read as JSON: {exc}") from None
    if not isinstance(log, dict) or not isinstance(log.get("eval"), dict):
        raise EntryError(path, "log", "eval", "is missing: not an Inspect eval log")
    samples = log.get("samples") or []
    if not isinstance(samples, list):
        raise EntryError(path, "log", "samples", "is not a list")
    for i, sample in enumerate(samples):
        raw = json.dumps(sample, sort_keys=True).encode()
        yield _Sample(path, f"samples[{i}]", log["eval"], log.get("plan"), raw).read(sample)


def _read_zip(path: Path) -> Iterator[Trajectory]:
    try:
        with zipfile.ZipFile(path) as archive:
            header = _member_json(path, archive, "header.json", required=False) or _member_json(
                path, archive, "_journal/start.json", required=True
            )
            assert header is not None
            spec = header.get("eval")
            if not isinstance(spec, dict):
                raise EntryError(path, "header.json", "eval", "is missing")
            names = [n for n in archive.namelist() if n.startswith("samples/")]
            for name in sorted(names, key=_sample_order):
                raw = _member(path, archive, name)
                entry = _Sample(path, name, spec, header.get("plan"), raw)
                try:
                    sample = loads(raw)
                except ValueError as exc:
                    entry.fail("", f"is not JSON: {exc}")
                yield entry.read(sample)
    except (OSError, zipfile.BadZipFile) as exc:
        raise EntryError(path, "log", "", f"cannot be read as a zip: {exc}") from None


def _sample_order(name: str) -> tuple[int, str]:
    digits = re.match(r"samples/(\d+)_epoch_(\d+)\.json$", name)
    return (int(digits.group(1)), name) if digits else (1 << 62, name)


def _member(path: Path, archive: zipfile.ZipFile, name: str) -> bytes:
    info = archive.getinfo(name)
    if info.compress_type != _ZSTD:
        return archive.read(info)
    return _unzstd(path, name, _raw_member(archive, info))


def _member_json(
    path: Path, archive: zipfile.ZipFile, name: str, *, required: bool
) -> dict[str, Any] | None:
    if name not in archive.namelist():
        if required:
            raise EntryError(path, name, "", "is missing: not an Inspect eval log")
        return None
    try:
        found = loads(_member(path, archive, name))
    except ValueError as exc:
        raise EntryError(path, name, "", f"is not JSON: {exc}") from None
    if not isinstance(found, dict):
        raise EntryError(path, name, "", "is not a JSON object")
    return found


def _raw_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """A member's compressed bytes, as stored after its local header."""
    handle = archive.fp
    assert handle is not None
    handle.seek(info.header_offset)
    local = handle.read(30)
    skip = int.from_bytes(local[26:28], "little") + int.from_bytes(local[28:30], "little")
    handle.seek(info.header_offset + 30 + skip)
    return handle.read(info.compress_size)


def _unzstd(path: Path, name: str, data: bytes) -> bytes:
    try:
        import zstandard
    except ImportError:  # pragma: no cover - a dependency; a broken install
        raise EntryError(
            path,
            name,
            "",
            "is compressed with zstd, which this Python cannot read: install the zstandard "
            "package, or convert the log with `inspect log convert --to json`",
        ) from None
    reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data), read_across_frames=True)
    return bytes(reader.read())


class _Sample:
    """One sample of a log being read; `fail` names the file, the sample and the field."""

    def __init__(self, path: Path, entry: str, spec: dict[str, Any], plan: Any, raw: bytes) -> None:
        self.path, self.entry, self.spec, self.plan, self.raw = path, entry, spec, plan, raw

    def fail(self, field: str, problem: str) -> NoReturn:
        raise EntryError(self.path, self.entry, field, problem)

    def obj(self, value: Any, field: str) -> dict[str, Any]:
        return value if isinstance(value, dict) else self.fail(field, "is not an object")

    def items(self, value: Any, field: str) -> list[Any]:
        return value if isinstance(value, list) else self.fail(field, "is not a list")

    def read(self, sample: Any) -> Trajectory:
        sample = self.obj(sample, "")
        metadata = self.obj(sample.get("metadata") or {}, "metadata")
        if isinstance(metadata.get(KEY), dict):
            return self.own(sample, metadata)
        return self.foreign(sample, metadata)

    # -- a log this project wrote -------------------------------------------------------------

    def own(self, sample: dict[str, Any], metadata: dict[str, Any]) -> Trajectory:
        own = metadata[KEY]
        where = f"metadata.{KEY}"
        messages = self.items(sample.get("messages", []), "messages")
        steps = self.own_steps(messages, self.items(own.get("events", []), f"{where}.events"))
        person = self.obj(own.get("participant"), f"{where}.participant")
        for name in ("session_uuid", "status", "started_at", "columns", "gold"):
            if name not in own:
                self.fail(f"{where}.{name}", "is missing")
        columns = self.obj(own["columns"], f"{where}.columns")
        idx = metadata.get("task_idx")
        if type(idx) is not int:
            self.fail("metadata.task_idx", f"{idx!r} is not a task idx")
        task = {
            "idx": idx,
            "task": metadata.get("task_type"),
            "query": sample.get("input"),
            "answer": own["gold"],
            "metadata": metadata.get("task_metadata", {}),
            "reward_metric": metadata.get("reward_metric"),
            "persona": metadata.get("persona", ""),
            "source": metadata.get("task_source"),
            "org_type": metadata.get("org_type"),
            "interactive": metadata.get("interactive"),
        }
        grades = self.items(own.get("grades", []), f"{where}.grades")
        labels = self.items(metadata.get("labels", []), "metadata.labels")
        return Trajectory(
            entry=self.entry,
            participant=Configuration(
                name=str(person.get("name") or ""),
                model=str(person.get("model") or ""),
                kind=str(person.get("kind") or "agent"),
                settings=self.obj(person.get("settings", {}), f"{where}.participant.settings"),
            ),
            steps=steps,
            task_idx=idx,
            query=task["query"] if isinstance(task["query"], str) else None,
            task_source=task["source"] if isinstance(task["source"], str) else None,
            task=task,
            grades=[self.own_grade(g, f"{where}.grades[{i}]") for i, g in enumerate(grades)],
            remarks=[self.own_remark(x, f"metadata.labels[{i}]") for i, x in enumerate(labels)],
            status=own["status"],
            started_at=own["started_at"],
            ended_at=own.get("ended_at"),
            settings=self.obj(own.get("settings", {}), f"{where}.settings"),
            uuid=str(own["session_uuid"]) or None,
            key=str(own["session_uuid"]),
            columns={k: v for k, v in columns.items() if k in CARRIED},
        )

    def own_steps(self, messages: list[Any], apart: list[Any]) -> list[Step]:
        """The events recorded on the messages (`metadata.crmarena_tui`, the text a message shows
        as its content put back under the record's `content_key`: `inspect_sample._lean`), then
        those recorded apart, in step order (checks inline, a field's name made for its error)."""
        by_seq: dict[int, Step] = {}
        for i, message in enumerate(messages):
            if type(message) is not dict:
                message = self.obj(message, f"messages[{i}]")
            meta = message.get("metadata") or _NONE
            if type(meta) is not dict:
                meta = self.obj(meta, f"messages[{i}].metadata")
            shown = meta.get(KEY, ())
            if type(shown) is not list and shown != ():
                shown = self.items(shown, f"messages[{i}].metadata.{KEY}")
            for j, record in enumerate(shown):
                self.own_step(by_seq, record, i, j, message)
        for j, record in enumerate(apart):
            self.own_step(by_seq, record, None, j, None)
        if len(by_seq) != max(by_seq, default=0):  # (seqs are distinct, from 1)
            missing = next(i for i in range(1, len(by_seq) + 2) if i not in by_seq)
            self.fail(f"metadata.{KEY}", f"step {missing} is missing")
        return [by_seq[i] for i in range(1, len(by_seq) + 1)]

    def own_step(
        self, by_seq: dict[int, Step], record: Any, i: int | None, j: int, message: Any
    ) -> None:
        """One event record: of message `i` (its j-th), or the j-th recorded apart (`i` None)."""
        if type(record) is not dict:
            self.obj(record, _record_field(i, j))
        payload = record.get("payload", _NONE)
        if message is not None and "content_key" in record:
            key, content = record["content_key"], message.get("content")
            if not isinstance(key, str):
                self.fail(f"messages[{i}].metadata.{KEY}.content_key", f"{key!r} is not a key")
            if not isinstance(content, str):
                self.fail(f"messages[{i}].content", "is not text, and its event's text is there")
            if type(payload) is dict:
                payload = {**payload, key: content}
        seq = record.get("seq")
        if type(seq) is not int or seq < 1:
            self.fail(f"{_record_field(i, j)}.seq", f"{seq!r} is not a step number")
        if seq in by_seq:
            self.fail(f"{_record_field(i, j)}.seq", f"step {seq} is given twice")
        actor, kind = record.get("actor"), record.get("kind")
        if actor not in ACTORS or kind not in EVENT_KINDS:
            name, value = ("actor", actor) if actor not in ACTORS else ("kind", kind)
            self.fail(f"{_record_field(i, j)}.{name}", f"{value!r} is not an event {name}")
        if type(payload) is not dict:
            payload = self.obj(payload, f"{_record_field(i, j)}.payload")
        by_seq[seq] = Step(actor, kind, payload, record.get("ts"), record.get("duration_ms"))

    def own_grade(self, raw: Any, field: str) -> TrajectoryGrade:
        grade = self.obj(raw, field)
        reward = grade.get("reward")
        if type(reward) not in (int, float):
            self.fail(f"{field}.reward", f"{reward!r} is not a number")
        known = set(TrajectoryGrade.__dataclass_fields__)
        return TrajectoryGrade(**{k: v for k, v in grade.items() if k in known})

    def own_remark(self, raw: Any, field: str) -> Remark:
        label = self.obj(raw, field)
        return Remark(
            annotator=str(label.get("annotator") or ""),
            label=str(label.get("label") or ""),
            note=str(label.get("note") or ""),
            kind=str(label.get("kind") or "label"),
            step=label.get("step"),
            created_at=label.get("created_at"),
        )

    # -- a log of another harness -------------------------------------------------------------

    def foreign(self, sample: dict[str, Any], metadata: dict[str, Any]) -> Trajectory:
        steps = self.foreign_steps(self.items(sample.get("messages", []), "messages"))
        answer = next((s.payload["answer"] for s in steps if s.kind == "submit"), None)
        for model, usage in self.obj(sample.get("model_usage") or {}, "model_usage").items():
            steps.append(
                Step("agent", "usage", _usage(self.obj(usage, f"model_usage.{model}"), model))
            )
        scores = self.obj(sample.get("scores") or {}, "scores")
        grades = [g for g in (self.score(k, v) for k, v in scores.items()) if g is not None][:1]
        if answer is None:
            found = sample.get("output")
            output: dict[str, Any] = found if isinstance(found, dict) else {}
            given = grades[0].answer if grades and grades[0].answer else output.get("completion")
            answer = given if isinstance(given, str) and given else None
        if grades and not grades[0].answer:
            grades[0].answer = answer or ""
        idx = next((metadata[k] for k in ("task_idx", "idx") if k in metadata), None)
        if isinstance(idx, str) and idx.strip().isdigit():
            idx = int(idx)
        if idx is not None and type(idx) is not int:
            self.fail("metadata.task_idx", f"{idx!r} is not a task idx")
        query = sample.get("input")
        if not isinstance(query, str):
            query = next((s.payload["text"] for s in steps if s.actor == "user"), None)
        source = metadata.get("task_source")
        model = str(self.spec.get("model") or "")
        solver = self.spec.get("solver") or _plan_solver(self.plan)
        name = f"{model}/{solver}" if solver and model else model or str(solver or "")
        return Trajectory(
            entry=self.entry,
            participant=Configuration(
                name=name or "inspect",
                model=model,
                settings={"inspect_task": str(self.spec.get("task") or ""), "strategy": solver},
            ),
            steps=steps,
            task_idx=idx,
            query=query,
            task_source=source if isinstance(source, str) else None,
            final_answer=answer,
            grades=grades,
            started_at=sample.get("started_at"),
            ended_at=sample.get("completed_at"),
            key=hashlib.sha256(str(self.spec.get("eval_id", "")).encode() + self.raw).hexdigest(),
        )

    def foreign_steps(self, messages: list[Any]) -> list[Step]:
        steps: list[Step] = []
        for i, raw in enumerate(messages):
            field = f"messages[{i}]"
            message = self.obj(raw, field)
            role = message.get("role")
            text = self.text(message.get("content"), f"{field}.content")
            if role == "system":
                steps.append(Step("system", "system", {"event": "system_prompt", "text": text}))
            elif role == "user":
                steps.append(Step("user", "message", {"text": text}))
            elif role == "assistant":
                calls = self.items(message.get("tool_calls") or [], f"{field}.tool_calls")
                if text:
                    steps.append(Step("agent", "thought" if calls else "message", {"text": text}))
                steps += [self.call(c, f"{field}.tool_calls[{j}]") for j, c in enumerate(calls)]
            elif role == "tool":
                error = message.get("error")
                if isinstance(error, dict):
                    said = error.get("message") if isinstance(error.get("message"), str) else text
                    steps.append(Step("system", "error", {"error": said or text}))
                else:
                    steps.append(Step("system", "observation", {"observation": text}))
            else:
                self.fail(f"{field}.role", f"{role!r} is not system, user, assistant or tool")
        return steps

    def call(self, raw: Any, field: str) -> Step:
        call = self.obj(raw, field)
        function = call.get("function")
        if not isinstance(function, str) or not function:
            self.fail(f"{field}.function", "is missing")
        arguments = self.obj(call.get("arguments") or {}, f"{field}.arguments")
        texts = [v for v in arguments.values() if isinstance(v, str)]
        text = texts[0] if len(texts) == 1 else json.dumps(arguments, sort_keys=True)
        if _ANSWER.match(function):
            return Step("agent", "submit", {"answer": text})
        kind = "search" if _SEARCH.search(function) else "query"
        if not (_QUERY.search(function) or kind == "search"):
            payload = {"event": "tool_call", "tool": function, "arguments": arguments}
            return Step("agent", "system", payload)
        return Step("agent", kind, {"text": text, "tool": function})

    def score(self, name: str, raw: Any) -> TrajectoryGrade | None:
        score = self.obj(raw, f"scores.{name}")
        value = score.get("value")
        if isinstance(value, int | float):  # (a bool too)
            reward = float(value)
        elif isinstance(value, str) and value in _VALUES:
            reward = _VALUES[value]
        else:
            return None  # (a score this import cannot read as a reward: the next one)
        metrics: dict[str, Any] = {"inspect_value": value}
        if isinstance(score.get("explanation"), str):
            metrics["explanation"] = score["explanation"]
        answer = score.get("answer")
        return TrajectoryGrade(
            reward=reward,
            answer=answer if isinstance(answer, str) else "",
            grader=f"inspect:{name}",
            metrics=metrics,
        )

    def text(self, content: Any, field: str) -> str:
        """A message's text: a string, or Inspect's content parts (their text joined)."""
        if content is None or isinstance(content, str):
            return content or ""
        parts = self.items(content, field)
        return "\n".join(
            str(p.get("text") or p.get("reasoning") or "") for p in parts if isinstance(p, dict)
        )


def _record_field(i: int | None, j: int) -> str:  # (an event record: on message i, or apart)
    return f"metadata.{KEY}.events[{j}]" if i is None else f"messages[{i}].metadata.{KEY}[{j}]"


def _plan_solver(plan: Any) -> str | None:
    steps = plan.get("steps") if isinstance(plan, dict) else None
    named = [s.get("solver") for s in steps or [] if isinstance(s, dict)]
    return "+".join(n for n in named if isinstance(n, str) and n) or None


def _usage(usage: dict[str, Any], model: str) -> dict[str, Any]:
    """A usage event's payload of an Inspect `ModelUsage`."""
    prompt, completion = usage.get("input_tokens") or 0, usage.get("output_tokens") or 0
    found: dict[str, Any] = {
        "model": model,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": usage.get("total_tokens") or prompt + completion,
    }
    if isinstance(usage.get("total_cost"), int | float):
        found["cost"] = usage["total_cost"]
    return found
