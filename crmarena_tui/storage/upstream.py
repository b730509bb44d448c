"""Import of upstream CRMArena(-Pro) result files (`run_tasks.py` output) into the sessions database.

Reading a file is `upstream_file` (validation, rewards, errors), its path `upstream_names` (every
layout upstream wrote), its trajectories `upstream_traj`. Choices made when writing:

- Participant: kind `agent`, model `<model>`, one per run configuration, not per file (upstream
  writes a file per task type): the name is `<model>/<strategy>`, followed by `/aided` and
  `/privacy-aware` when the run was, so that runs under different prompts are never merged into
  one figure; settings `{strategy, interactive, aided, privacy_aware, provider, imported_from}`.
- Aided: the run's system prompt holds the task's optional metadata (`# Domain Details`); the
  session's `aided` flag says so. Privacy-aware: the run folder's `_privacy_aware` suffix, else
  the prompts (the privacy rules tell the agent it must decline).
- Task source: `hf:<org>` or `hf:<org>_interactive` (`hf:original` for CRMArena), because upstream's
  `task_id` is the `idx` of that Hugging Face split: imported runs then line up with human sessions on
  the same tasks. `<org>` comes from `org_type=`, else the path (`b2c`, `b2c_interactive`), else
  `b2b` (upstream's default); the mode from the path, else the rows. `task_source=` overrides it all.
- The task snapshot holds what the file holds: `query` is the first user turn (for multi-turn runs,
  the simulated user's opening), `metadata` is empty (it is merged into the system prompt).
- Grades keep the file's reward and every metric, the protocol `upstream`, the run's
  `end_reason`, and `infrastructure_error` for a run that ended on one (reports leave those out
  of success rates); any other error the run ended on is kept as `run_error`.
- Times: upstream records none; `started_at`/`ended_at` are the file's modification time and
  `active_seconds` is empty.
- Idempotence: each session stores `import_key`, a digest of the item's canonical JSON plus the
  run identity and its occurrence number in the file. Re-importing a file, a copy of it, or a
  checkpoint file that has since grown imports only the items not yet present.
- A file is validated whole before anything is written, and written in one transaction.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from crmarena_tui.storage.upstream_file import (
    UpstreamFile,
    UpstreamFormatError,
    UpstreamItem,
    as_dict,
    read_upstream_file,
)
from crmarena_tui.storage.upstream_names import ORG_TYPES, find_result_files, parse_run_name
from crmarena_tui.tasks.catalog import BY_NAME

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store

__all__ = [
    "ImportSummary",
    "UpstreamFormatError",
    "UpstreamImporter",
    "find_result_files",
    "parse_run_name",
    "read_upstream_file",
]


@dataclass(slots=True)
class ImportSummary:
    files: int = 0
    imported: int = 0
    skipped: int = 0
    infrastructure: int = 0
    refused: list[UpstreamFormatError] = field(default_factory=list)

    def line(self) -> str:
        refused = f", {len(self.refused)} refused" if self.refused else ""
        infra = (
            f"; {self.infrastructure} ended on an infrastructure error (left out of success rates)"
            if self.infrastructure
            else ""
        )
        return (
            f"{self.files} file(s) read{refused}: {self.imported} session(s) imported, "
            f"{self.skipped} skipped as already present{infra}"
        )


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
        self._participants: dict[tuple, int] = {}

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
            summary.infrastructure += sum(1 for item in parsed.items if item.infrastructure)
        return summary

    def source_for(self, parsed: UpstreamFile) -> tuple[str, str]:
        """(task source, org type) of a parsed file."""
        org = self.org_type or parsed.run.org_type or "b2b"
        if self.task_source:
            return self.task_source, org
        if org == "original":
            return "hf:original", org
        return (f"hf:{org}_interactive" if parsed.interactive else f"hf:{org}"), org

    def participant_for(self, parsed: UpstreamFile, item: UpstreamItem) -> tuple[int, dict]:
        """(participant id, run settings) of one item's run configuration."""
        run = parsed.run
        aided, privacy = item.prompt["aided"], parsed.privacy_aware
        settings: dict[str, Any] = {
            "strategy": run.strategy,
            "interactive": parsed.interactive,
            "aided": aided,
            "privacy_aware": privacy,
            "imported_from": "upstream",
        }
        if run.provider:
            settings["provider"] = run.provider
        name = "/".join(
            [run.model, run.strategy]
            + (["aided"] if aided else [])
            + (["privacy-aware"] if privacy else [])
        )
        key = (name, tuple(sorted(settings.items())))
        if key not in self._participants:
            participant = self.store.participant("agent", name, model=run.model, settings=settings)
            self._participants[key] = participant.id
        return self._participants[key], settings

    def import_file(self, parsed: UpstreamFile) -> tuple[int, int]:
        """Write one parsed file; returns (imported, skipped)."""
        source, org = self.source_for(parsed)
        mtime = parsed.path.stat().st_mtime
        imported = skipped = 0
        try:
            with self.store.transaction():  # all or nothing per file
                imported, skipped = self._import_items(parsed, source, org, mtime)
        except BaseException:
            self._participants.clear()  # participants made in the rolled-back file are gone
            raise
        return imported, skipped

    def _import_items(
        self, parsed: UpstreamFile, source: str, org: str, mtime: float
    ) -> tuple[int, int]:
        from crmarena_tui.storage.convert import settings_key

        imported = skipped = 0
        for item in parsed.items:
            participant_id, run_settings = self.participant_for(parsed, item)
            existing = self.store.sessions(
                participant_id=participant_id, task_source=source, task_idx=item.task_id
            )
            if any(s.settings.get("import_key") == item.digest for s in existing):
                skipped += 1
                continue
            key = settings_key({**run_settings, "model": parsed.run.model, "org_type": org})
            self._write_item(participant_id, item, parsed, source, org, key, mtime)
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
        from crmarena_tui.graders.base import Grade, GraderName
        from crmarena_tui.tasks.model import Task

        known = BY_NAME.get(item.task_type)
        metric = cast(
            GraderName,
            known.metric if known else ("fuzzy_match" if 0 < item.reward < 1 else "exact_match"),
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
        session = self.store.create_session(
            participant_id,
            task,
            org_kind="salesforce",
            org_ref=f"salesforce:{org}",
            aided=item.prompt["aided"],
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
        if item.run_error is not None:
            metrics["api_error"] = item.run_error
            self.store.append_event(
                session.id, "system", "error", {"source": "api", "error": item.run_error}, ts=mtime
            )
        if item.infrastructure:
            metrics["infrastructure_error"] = item.infrastructure
        elif item.run_error is not None:
            metrics["run_error"] = item.run_error
        if item.end_reason is not None:
            metrics["end_reason"] = str(item.end_reason.get("message", ""))
            metrics["end_source"] = str(item.end_reason.get("source", ""))
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
            protocol="upstream",
        )
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
                "protocol": grade.protocol,
                "metrics": grade.metrics,
            },
            ts=mtime,
        )
        self.store.add_grade(session.id, grade, graded_at=mtime)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _usage(info: dict[str, Any], model: str) -> dict[str, Any]:
    """`agent_info` accounting as one usage event: totals under the live agents' keys, plus the
    per-call lists, turn counts, observation sizes and end reason as upstream recorded them."""
    usage = as_dict(info.get("usage"))
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
        "cost": float(cost) if isinstance(cost, int | float) else float(total("cost")),
        "calls": len(usage.get("total_tokens") or usage.get("cost") or []),
        "per_call": usage,
    }
    for name in ("num_turns", "observation_sizes", "end_reason"):
        if name in info:
            payload[name] = info[name]
    return payload
