"""Import of upstream CRMArena(-Pro) result files (`run_tasks.py` output) into the sessions database.

A result file is a JSON list of `{"task_id", "task_type", "gt_answer", "reward", "agent_info",
"traj"}` named `results_<model>_<strategy>_<task>[_interactive-<True|False>].json`. Choices made:

- Participant: kind `agent`, name `<model>/<strategy>`, model `<model>`, settings `{strategy,
  interactive, imported_from: "upstream"}` (one participant per run, not per file: upstream writes a
  file per task type). A model containing `/` made upstream write nested folders
  (`results_together_ai/meta-llama/Llama_react_all.json`): the folders are joined back.
- Task source: `hf:<org>` or `hf:<org>_interactive` (`hf:original` for CRMArena), because upstream's
  `task_id` is the `idx` of that Hugging Face split: imported runs then line up with human sessions on
  the same tasks. `<org>` comes from `org_type=`, else a folder named b2b/b2c/original on the path,
  else `b2b` (upstream's default). `task_source=` overrides it all.
- The task snapshot holds what the file holds: `query` is the first user turn (for multi-turn runs,
  the simulated user's opening), `metadata` is empty (it is merged into the system prompt).
- Times: upstream records none; `started_at`/`ended_at` are the file's modification time and
  `active_seconds` is empty.
- Idempotence: each session stores `import_key`, a digest of the item's canonical JSON plus the
  run identity and its occurrence number in the file. Re-importing a file, a copy of it, or a
  checkpoint file that has since grown imports only the items not yet present.
- A file is validated whole before anything is written, and written in one transaction: a
  malformed file is refused with its path and the position (`line 3 column 17`, or
  `item 17: field 'traj'`, the item counted from 0 as in `jq '.[17]'`).
- Status is `submitted` for every item; an API failure (`agent_info.source == "api"`) keeps its
  error as an error event and in the grade's metrics, with the file's reward (0).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crmarena_tui.orgs.base import is_sosl, unwrap_code_fence
from crmarena_tui.tasks.catalog import BY_NAME

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store

STRATEGIES = (
    "tool_call_superface",
    "tool_call_flex",
    "function_calling",
    "tool_calling",
    "tool_call",
    "react",
    "act",
)
ORG_TYPES = ("b2b", "b2c", "original")
OBSERVATION = "Salesforce instance output:"
STOP = "###STOP###"
_INTERACTIVE = re.compile(r"_interactive-(true|false)$", re.I)
_ERROR = re.compile(r"^([A-Z][A-Z0-9_]{2,}): ")
_THOUGHT = re.compile(r"<thought>(.*?)(?:</thought>|(?=<execute>|<respond>)|\Z)", re.S | re.I)
_ACTIONS = (
    ("execute", re.compile(r"<execute>(.*?)(?:</execute>|\Z)", re.S | re.I)),
    ("respond", re.compile(r"<respond>(.*?)(?:</respond>|\Z)", re.S | re.I)),
)


class UpstreamFormatError(ValueError):
    """A result file that cannot be imported; the message names the file and the position."""

    def __init__(self, path: Path | str, where: str, problem: str) -> None:
        self.path, self.where, self.problem = str(path), where, problem
        super().__init__(f"{path}: {where}: {problem}" if where else f"{path}: {problem}")


@dataclass(frozen=True, slots=True)
class RunName:
    """What a result file's name says about the run (`task` may be `all` or a comma list)."""

    model: str
    strategy: str
    task: str
    interactive: bool | None
    org_type: str | None


@dataclass(frozen=True, slots=True)
class Step:
    actor: str
    kind: str
    payload: dict[str, Any]


@dataclass(slots=True)
class UpstreamItem:
    position: int
    task_id: int
    task_type: str
    gold: list[str | None]
    reward: float
    metrics: dict[str, float | str | bool]
    agent_info: dict[str, Any]
    steps: list[Step]
    query: str
    answer: str
    parsed_answer: list[str] | None
    api_error: str | None
    digest: str = ""


@dataclass(slots=True)
class UpstreamFile:
    path: Path
    run: RunName
    interactive: bool
    items: list[UpstreamItem] = field(default_factory=list)


@dataclass(slots=True)
class ImportSummary:
    files: int = 0
    imported: int = 0
    skipped: int = 0
    refused: list[UpstreamFormatError] = field(default_factory=list)

    def line(self) -> str:
        refused = f", {len(self.refused)} refused" if self.refused else ""
        return (
            f"{self.files} file(s) read{refused}: {self.imported} session(s) imported, "
            f"{self.skipped} skipped as already present"
        )


# -- file names --------------------------------------------------------------------------------


def _task_spec(text: str) -> bool:
    return bool(text) and all(part == "all" or part in BY_NAME for part in text.split(","))


def parse_run_name(path: Path | str) -> RunName:
    """Model, strategy, task, interactive flag and org type from a result file's path."""
    path = Path(path)
    parts = list(path.parts)
    stem = path.name[:-5] if path.name.lower().endswith(".json") else path.name
    if not stem.startswith("results_"):
        start = next(
            (i for i in range(len(parts) - 2, -1, -1) if parts[i].startswith("results_")), None
        )
        if start is not None:  # a model name with "/" became folders
            stem = "/".join([*parts[start:-1], stem])
    stem = stem.removeprefix("results_")
    interactive: bool | None = None
    if found := _INTERACTIVE.search(stem):
        interactive = found.group(1).lower() == "true"
        stem = stem[: found.start()]
    folders = [p.lower() for p in parts[:-1]]
    if interactive is None and any(
        p in ("multi-turn", "multi_turn", "interactive") for p in folders
    ):
        interactive = True
    org_type = next((p for p in reversed(folders) if p in ORG_TYPES), None)
    candidates = []
    for strategy in STRATEGIES:
        at = stem.rfind(f"_{strategy}_")
        if at > 0:
            candidates.append((_task_spec(stem[at + len(strategy) + 2 :]), at, strategy))
    if candidates:
        _valid, at, strategy = max(candidates)
        return RunName(stem[:at], strategy, stem[at + len(strategy) + 2 :], interactive, org_type)
    return RunName(stem or path.stem, "unknown", "", interactive, org_type)


# -- trajectories -------------------------------------------------------------------------------


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, list):  # content blocks
        return "\n".join(str(b.get("text", "")) if isinstance(b, dict) else str(b) for b in content)
    return str(content)


def _parse_reply(text: str) -> tuple[str, str | None, str]:
    """(thought, action, content) the way upstream read a reply: `<execute>` before `<respond>`."""
    thought = _THOUGHT.search(text)
    for action, pattern in _ACTIONS:
        found = pattern.search(text)
        if found and found.group(1).strip():
            return (thought.group(1).strip() if thought else ""), action, found.group(1).strip()
    return (thought.group(1).strip() if thought else ""), None, ""


def _looks_like_prompt(text: str) -> bool:
    return "\n\n" in text and ("<execute>" in text or "<respond>" in text or len(text) > 1500)


def trajectory_steps(traj: list[dict[str, Any]], interactive: bool) -> tuple[list[Step], str, str]:
    """The events of an upstream `traj`, the query (first user turn) and the final answer."""
    steps: list[Step] = []
    messages = [(str(m.get("role")), _text(m.get("content")), m) for m in traj]
    if messages and messages[0][0] == "user" and _looks_like_prompt(messages[0][1]):
        prompt, _, query = messages[0][1].rpartition("\n\n")  # o1-style: prompt + query merged
        messages[0:1] = [("system", prompt, {}), ("user", query, {})]
    responds = [
        i
        for i, (role, text, _m) in enumerate(messages)
        if role == "assistant" and _parse_reply(text)[1] == "respond"
    ]
    final = responds[-1] if responds else None
    query, answer, last_action, turn = "", "", "none", 0
    for i, (role, text, raw) in enumerate(messages):
        if role == "system":
            steps.append(Step("system", "system", {"event": "system_prompt", "text": text}))
        elif role == "tool":
            steps.append(Step("system", "observation", {"observation": text}))
        elif role == "user":
            if text.startswith(OBSERVATION):
                body = text[len(OBSERVATION) :].strip()
                code = _ERROR.match(body)
                steps.append(
                    Step("system", "error", {"error": body, "code": code.group(1)})
                    if code
                    else Step("system", "observation", {"observation": body})
                )
            elif last_action == "invalid":
                steps.append(Step("system", "error", {"source": "format", "error": text}))
            else:
                payload: dict[str, Any] = {"text": text}
                if not query:
                    query, payload["opening"] = text, True
                if text.strip() == STOP:
                    payload["stop"] = True
                steps.append(Step("user", "message", payload))
            last_action = "user"
        elif role == "assistant":
            turn += 1
            thought, action, content = _parse_reply(text)
            steps.append(Step("agent", "thought", {"text": thought, "reply": text, "turn": turn}))
            for call in raw.get("tool_calls") or []:
                steps.append(_tool_step(call))
                action = action or "tool"
            if action == "execute":
                soql = unwrap_code_fence(content)
                steps.append(Step("agent", "search" if is_sosl(soql) else "query", {"text": soql}))
            elif action == "respond":
                if i == final:
                    answer = content
                if interactive or i != final:
                    steps.append(Step("agent", "message", {"text": content}))
            last_action = action or "invalid"
    if final is not None:
        stop = next((k for k, s in enumerate(steps) if s.payload.get("stop")), None)
        submit = Step("agent", "submit", {"answer": answer})
        steps.insert(stop + 1, submit) if stop is not None else steps.append(submit)
    return steps, query, answer


def _tool_step(call: Any) -> Step:
    function = call.get("function", {}) if isinstance(call, dict) else {}
    name, arguments = str(function.get("name", "")), function.get("arguments", "")
    try:
        args = (
            json.loads(arguments) if isinstance(arguments, str) and arguments else arguments or {}
        )
    except json.JSONDecodeError:
        args = {"raw": arguments}
    text = next((str(v) for v in (args.values() if isinstance(args, dict) else []) if v), "")
    kind = "submit" if name == "respond" else "search" if is_sosl(text) else "query"
    key = "answer" if kind == "submit" else "text"
    return Step("agent", kind, {key: text, "tool": name, "arguments": args})


# -- validation ---------------------------------------------------------------------------------


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _reward(value: Any, fail: Any) -> tuple[float, dict[str, float | str | bool]]:
    if _number(value) or isinstance(value, bool):
        return float(value), {}
    if isinstance(value, dict):  # fuzzy metrics reported as a dict
        numbers = {str(k): float(v) for k, v in value.items() if _number(v)}
        for key in ("reward", "f1", "F1"):
            if key in numbers:
                return numbers[key], numbers
    fail("reward", "expected a number")
    raise AssertionError  # unreachable: fail raises


def _gold(value: Any, fail: Any) -> list[str | None]:
    if value is None:
        return [None]
    if isinstance(value, str | int | float):
        return [str(value)]
    if isinstance(value, list) and all(
        v is None or isinstance(v, str | int | float) for v in value
    ):
        return [None if v is None else str(v) for v in value]
    fail("gt_answer", "expected a list of strings, a string or null")
    raise AssertionError


def _item(path: Path, position: int, raw: Any, interactive: bool) -> UpstreamItem:
    def fail(name: str, problem: str) -> None:
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
    traj = raw["traj"]
    if not isinstance(traj, list):
        fail("traj", "expected a list of messages")
    for k, message in enumerate(traj):
        if not isinstance(message, dict) or message.get("role") not in (
            "system",
            "user",
            "assistant",
            "tool",
        ):
            fail(
                "traj",
                f"message {k}: expected {{'role': system|user|assistant|tool, 'content': ...}}",
            )
        if not isinstance(message.get("content"), str | list | type(None)):
            fail("traj", f"message {k}: 'content' is not text")
    steps, query, answer = trajectory_steps(traj, interactive)
    end = info.get("end_reason") if isinstance(info.get("end_reason"), dict) else {}
    parsed = end.get("parsed_answer")
    if parsed is not None and not isinstance(parsed, list):
        parsed = [parsed]
    api_error = str(info.get("content", "")) if info.get("source") == "api" else None
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
        api_error=api_error,
    )


def _responds_then_user(traj: list[Any]) -> bool:
    roles = [(m.get("role"), _text(m.get("content"))) for m in traj if isinstance(m, dict)]
    return any(
        role == "assistant"
        and _parse_reply(text)[1] == "respond"
        and nxt == "user"
        and not ntext.startswith(OBSERVATION)
        for (role, text), (nxt, ntext) in zip(roles, roles[1:], strict=False)
    )


def read_upstream_file(path: Path | str) -> UpstreamFile:
    """Parse and validate one result file; `UpstreamFormatError` says where it is malformed."""
    path = Path(path)
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise UpstreamFormatError(path, f"byte {exc.start}", "not UTF-8 text") from exc
    except json.JSONDecodeError as exc:
        raise UpstreamFormatError(
            path, f"line {exc.lineno} column {exc.colno}", f"invalid JSON ({exc.msg})"
        ) from exc
    except OSError as exc:
        raise UpstreamFormatError(path, "", f"cannot read ({exc.strerror or exc})") from exc
    if not isinstance(data, list):
        raise UpstreamFormatError(
            path, "top level", f"expected a JSON list of results, found {type(data).__name__}"
        )
    run = parse_run_name(path)
    interactive = run.interactive
    if interactive is None:
        interactive = any(
            isinstance(r, dict)
            and isinstance(r.get("traj"), list)
            and _responds_then_user(r["traj"])
            for r in data
        )
    result = UpstreamFile(path, run, interactive)
    seen: dict[str, int] = {}
    for position, raw in enumerate(data):
        item = _item(path, position, raw, interactive)
        canonical = json.dumps(raw, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        base = hashlib.sha256(
            f"{run.model}\n{run.strategy}\n{interactive}\n{canonical}".encode()
        ).hexdigest()[:24]
        seen[base] = seen.get(base, 0) + 1
        item.digest = f"{base}#{seen[base]}"
        result.items.append(item)
    return result


def find_result_files(paths: Iterable[Path | str]) -> list[Path]:
    """The files named, plus every `*.json` under the folders named (recursively), sorted."""
    found: list[Path] = []
    for entry in map(Path, paths):
        found.extend(
            sorted(p for p in entry.rglob("*.json") if p.is_file()) if entry.is_dir() else [entry]
        )
    return list(dict.fromkeys(found))


# -- writing ------------------------------------------------------------------------------------


class UpstreamImporter:
    """Writes parsed result files into a `Store`, one transaction per file, skipping items already
    imported. `org_type` and `task_source` override what the path says (see the module notes)."""

    def __init__(
        self, store: Store, *, org_type: str | None = None, task_source: str | None = None
    ) -> None:
        if org_type is not None and org_type not in ORG_TYPES:
            raise ValueError(f"org type must be one of {', '.join(ORG_TYPES)}, not {org_type!r}")
        self.store = store
        self.org_type = org_type
        self.task_source = task_source

    def import_paths(self, paths: Iterable[Path | str]) -> ImportSummary:
        """Import every result file named or found under the folders named."""
        summary = ImportSummary()
        for path in find_result_files(paths):
            summary.files += 1
            try:
                parsed = read_upstream_file(path)
            except UpstreamFormatError as exc:
                summary.refused.append(exc)
                continue
            imported, skipped = self.import_file(parsed)
            summary.imported += imported
            summary.skipped += skipped
        return summary

    def source_for(self, parsed: UpstreamFile) -> tuple[str, str]:
        """(task source, org type) of a parsed file."""
        org = self.org_type or parsed.run.org_type or "b2b"
        if self.task_source:
            return self.task_source, org
        if org == "original":
            return "hf:original", org
        return (f"hf:{org}_interactive" if parsed.interactive else f"hf:{org}"), org

    def import_file(self, parsed: UpstreamFile) -> tuple[int, int]:
        """Write one parsed file; returns (imported, skipped)."""
        from crmarena_tui.storage.convert import settings_key

        run = parsed.run
        source, org = self.source_for(parsed)
        run_settings = {
            "strategy": run.strategy,
            "interactive": parsed.interactive,
            "imported_from": "upstream",
        }
        mtime = parsed.path.stat().st_mtime
        imported = skipped = 0
        with self.store.transaction():  # all or nothing per file
            participant = self.store.participant(
                "agent", f"{run.model}/{run.strategy}", model=run.model, settings=run_settings
            )
            key = settings_key({**run_settings, "model": run.model, "org_type": org})
            for item in parsed.items:
                existing = self.store.sessions(
                    participant_id=participant.id, task_source=source, task_idx=item.task_id
                )
                if any(s.settings.get("import_key") == item.digest for s in existing):
                    skipped += 1
                    continue
                self._write_item(participant.id, item, parsed, source, org, key, mtime)
                imported += 1
        return imported, skipped

    def _write_item(
        self,
        participant_id: int,
        item: UpstreamItem,
        parsed: UpstreamFile,
        source: str,
        org: str,
        key: str,
        mtime: float,
    ) -> None:
        from crmarena_tui.graders.base import Grade
        from crmarena_tui.tasks.model import Task

        known = BY_NAME.get(item.task_type)
        metric = (
            known.metric if known else ("fuzzy_match" if 0 < item.reward < 1 else "exact_match")
        )
        task = Task(
            idx=item.task_id,
            task=item.task_type,
            query=item.query,
            answer=item.gold,
            reward_metric=metric,
            source=source,
            org_type=org,  # type: ignore[arg-type]
            interactive=parsed.interactive,
        )
        settings = {
            "imported_from": "upstream",
            "file": parsed.path.name,
            "position": item.position,
            "import_key": item.digest,
            "model": parsed.run.model,
            "strategy": parsed.run.strategy,
        }
        session = self.store.create_session(
            participant_id,
            task,
            org_kind="salesforce",
            org_ref=f"salesforce:{org}",
            blind=False,
            settings=settings,
            settings_key=key,
            status="submitted",
            started_at=mtime,
            ended_at=mtime,
            user_simulator="upstream" if parsed.interactive else None,
        )
        for step in item.steps:
            self.store.append_event(session.id, step.actor, step.kind, step.payload, ts=mtime)
        metrics = dict(item.metrics)
        if item.api_error is not None:
            metrics["api_error"] = item.api_error
            self.store.append_event(
                session.id, "system", "error", {"source": "api", "error": item.api_error}, ts=mtime
            )
        usage = _usage(item.agent_info, parsed.run.model)
        if usage:
            self.store.append_event(session.id, "agent", "usage", usage, ts=mtime)
        grade = Grade(
            answer=item.answer,
            parsed_answer=item.parsed_answer,
            reward=item.reward,
            metrics=metrics,
            grader=metric,
            extraction="imported",
            imported=True,
        )  # type: ignore[arg-type]
        self.store.append_event(
            session.id,
            "system",
            "grade",
            {
                "reward": grade.reward,
                "parsed_answer": grade.parsed_answer,
                "grader": grade.grader,
                "grader_version": grade.grader_version,
                "extraction": "imported",
                "imported": True,
                "metrics": grade.metrics,
            },
            ts=mtime,
        )
        self.store.add_grade(session.id, grade, graded_at=mtime)


def _usage(info: dict[str, Any], model: str) -> dict[str, Any]:
    """`agent_info` accounting as one usage event: totals under the live agents' keys, plus the
    per-call lists, turn counts, observation sizes and end reason as upstream recorded them."""
    usage = info.get("usage") if isinstance(info.get("usage"), dict) else {}
    if not usage and "total_cost" not in info and "num_turns" not in info:
        return {}

    def total(name: str) -> float:
        values = usage.get(name) or []
        return sum(v for v in values if _number(v)) if isinstance(values, list) else 0

    cost = info.get("total_cost")
    payload: dict[str, Any] = {
        "model": model,
        "prompt_tokens": int(total("prompt_tokens")),
        "completion_tokens": int(total("completion_tokens")),
        "total_tokens": int(total("total_tokens")),
        "cost": float(cost) if _number(cost) else float(total("cost")),
        "calls": len(usage.get("total_tokens") or usage.get("cost") or []),
        "per_call": usage,
    }
    for name in ("num_turns", "observation_sizes", "end_reason"):
        if name in info:
            payload[name] = info[name]
    return payload
