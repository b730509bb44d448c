"""`export --format inspect --out DIR`: the selected sessions as Inspect eval logs, one `.eval`
file per configuration (`storage/configuration.py`), each session a sample
(`inspect_sample.py`).

The `.eval` format is Inspect's own (what `inspect eval` writes, `inspect view` and
`inspect_ai.log.read_eval_log` read): a zip holding `header.json` (the eval's spec, plan, results
and stats), `summaries.json` (one summary per sample), `samples/<id>_epoch_<n>.json` and the
`_journal/` start record. Members are deflated (Inspect writes zstd, and reads deflate as well).
A file is named as Inspect names its logs, `<created>_crmarena-pro_<configuration>_<id>.eval`,
`created` the configuration's first session's start, so exporting the same sessions again writes
the same names; a configuration's log from an earlier export of other sessions (another time in its
name) is replaced. Each file is written next to its place and renamed into it once whole.

The sessions are read a chunk at a time (`CHUNK`), every configuration's file open at once, so
memory holds a chunk and the sample summaries, not the database.
"""

from __future__ import annotations

import hashlib
import os
import re
import statistics
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crmarena_tui.errors import ExitCode, UserError
from crmarena_tui.interchange.inspect_sample import SCORER, build_sample, summary
from crmarena_tui.interchange.trajectory import dumps
from crmarena_tui.storage import convert
from crmarena_tui.storage.configuration import session_configuration, strategy_of
from crmarena_tui.storage.export_events import read_events

if TYPE_CHECKING:
    from crmarena_tui.storage.models import (
        Annotation,
        GradeRow,
        ListedSession,
        Participant,
        Session,
    )
    from crmarena_tui.storage.store import Store

TASK = "crmarena-pro"
SUFFIX = ".eval"
CHUNK = 256
LOG_VERSION = 2


def _slug(text: str) -> str:
    """A configuration as a part of a file name: no `_` (Inspect splits names on it), no `/`."""
    return re.sub(r"[^A-Za-z0-9.=+-]+", "-", text).strip("-") or "participant"


def _stamp(created: str) -> str:
    """An ISO time as Inspect's file names start (`2026-12-02T12-00-00+00-00`)."""
    return created[:19].replace(":", "-") + "+00-00"


def log_tail(configuration: str) -> str:
    """The end of a configuration's log name, whatever its time."""
    digest = hashlib.sha256(configuration.encode("utf-8")).hexdigest()[:10]
    return f"_{TASK}_{_slug(configuration)}_{digest}{SUFFIX}"


def log_name(configuration: str, created: str) -> str:
    return _stamp(created) + log_tail(configuration)


def check_folder(out: Path, *, force: bool) -> None:
    """Refuse (one line, exit 2) an `--out` that is not a folder, or a folder holding the logs of
    an earlier export, unless `--force` (then the logs written replace theirs)."""
    if out.exists() and not out.is_dir():
        raise UserError(
            f"--out {out} is a file: --format inspect writes a folder of logs; name a folder",
            code=ExitCode.USAGE,
        )
    if out.is_dir() and not force:
        earlier = sorted(out.glob(f"*_{TASK}_*{SUFFIX}"))
        if earlier:
            raise UserError(
                f"--out {out} already holds {len(earlier)} Inspect log(s) of an export "
                f"({earlier[0].name}...): pass --force to replace them",
                code=ExitCode.USAGE,
            )


@dataclass
class _Log:
    """One configuration's log being written."""

    configuration: str
    person: Participant
    session: Session
    part: Path
    zip: zipfile.ZipFile
    summaries: list[dict[str, Any]] = field(default_factory=list)
    used: set[tuple[int | str, int]] = field(default_factory=set)
    sources: set[str] = field(default_factory=set)
    rewards: list[float] = field(default_factory=list)
    usage: dict[str, dict[str, Any]] = field(default_factory=dict)
    created: str = ""
    completed: str = ""

    def sample_id(self, session: Session) -> int | str:
        """The task's idx; a second session of the same task and trial (a fork, another task
        source) gets its session id after it."""
        found: int | str = session.task_idx
        if (found, session.trial) in self.used:
            found = f"{session.task_idx}-s{session.id}"
        self.used.add((found, session.trial))
        return found

    def add(self, sample: dict[str, Any], session: Session) -> None:
        name = f"samples/{sample['id']}_epoch_{sample['epoch']}.json"
        self.zip.writestr(name, dumps(sample))
        self.summaries.append(summary(sample))
        self.sources.add(session.task_source)
        score = sample.get("scores", {}).get(SCORER)
        if score is not None:
            self.rewards.append(float(score["value"]))
        for model, usage in sample["model_usage"].items():
            into = self.usage.setdefault(model, {})
            for key, value in usage.items():
                into[key] = into.get(key, 0) + value
        started, ended = sample["started_at"] or "", sample["completed_at"] or ""
        self.created = min(self.created or started, started)
        self.completed = max(self.completed, ended)

    def header(self) -> dict[str, Any]:
        person, session = self.person, self.session
        spec = {
            "eval_id": hashlib.sha256(self.configuration.encode()).hexdigest()[:22],
            "run_id": "",
            "created": self.created,
            "task": TASK,
            "task_id": "",
            "task_version": 0,
            "task_display_name": self.configuration,
            "task_attribs": {},
            "task_args": {},
            "task_args_passed": {},
            "solver": strategy_of(person, session) or person.kind,
            "tags": [self.configuration],
            "dataset": {"name": ", ".join(sorted(self.sources)), "samples": len(self.summaries)},
            "model": person.model or person.name,
            "model_generate_config": {},
            "model_args": {},
            "config": {},
            "packages": {},
            "metadata": {"configuration": self.configuration, "participant": person.name},
        }
        plan = {
            "name": "plan",
            "steps": [{"solver": spec["solver"], "params": {}}],
            "config": {},
        }
        metrics: dict[str, Any] = {}
        if self.rewards:
            mean = statistics.fmean(self.rewards)
            metrics["accuracy"] = {"name": "accuracy", "value": mean, "params": {}}
            if len(self.rewards) > 1:
                err = statistics.stdev(self.rewards) / len(self.rewards) ** 0.5
                metrics["stderr"] = {"name": "stderr", "value": err, "params": {}}
        results = {
            "total_samples": len(self.summaries),
            "completed_samples": len(self.summaries),
            "scores": [{"name": SCORER, "scorer": SCORER, "params": {}, "metrics": metrics}]
            if metrics
            else [],
        }
        stats = {
            "started_at": self.created,
            "completed_at": self.completed,
            "model_usage": self.usage,
            "role_usage": {},
        }
        return {
            "version": LOG_VERSION,
            "status": "success",
            "eval": spec,
            "plan": plan,
            "results": results,
            "stats": stats,
            "invalidated": False,
            "tags": [],
            "metadata": {},
        }

    def close(self, out: Path) -> Path:
        header = self.header()
        self.zip.writestr(
            "_journal/start.json",
            dumps({"version": LOG_VERSION, "eval": header["eval"], "plan": header["plan"]}),
        )
        self.zip.writestr("summaries.json", dumps(self.summaries))
        self.zip.writestr("header.json", dumps(header))
        self.zip.close()
        path = out / log_name(self.configuration, self.created)
        for earlier in out.glob("*" + log_tail(self.configuration)):  # (only with --force)
            if earlier != path:
                earlier.unlink()
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(self.part, 0o666 & ~mask)
        os.replace(self.part, path)
        return path


def _sessions(
    store: Store, keep: Callable[[ListedSession, Participant], bool] | None
) -> Iterator[tuple[Session, Participant, list[Any], list[GradeRow], list[Annotation], Any]]:
    """Every kept session with its events (`read_events`' tuples, without their JSON texts),
    grades (oldest first), labels and notes, and its parent's uuid; a chunk at a time."""
    from crmarena_tui.storage.export_schema import _listed

    people = {p.id: p for p in store.participants()}
    last = 0
    while True:
        rows = store.db.rows(
            "SELECT s.*, p.uuid AS parent_uuid FROM sessions s"
            " LEFT JOIN sessions p ON p.id = s.parent_session_id"
            " WHERE s.id > ? ORDER BY s.id LIMIT ?",
            (last, CHUNK),
        )
        if not rows:
            return
        last = rows[-1]["id"]
        if keep is not None:
            rows = [r for r in rows if keep(_listed(r), people[r["participant_id"]])]
            if not rows:
                continue
        ids = [r["id"] for r in rows]
        marks = ", ".join("?" * len(ids))
        events = read_events(store, ids, texts=False)
        grades: dict[int, list[GradeRow]] = {i: [] for i in ids}
        for r in store.db.rows(
            f"SELECT * FROM grades WHERE session_id IN ({marks}) ORDER BY id", tuple(ids)
        ):
            grades[r["session_id"]].append(convert.grade_from_row(r))
        notes: dict[int, list[Annotation]] = {i: [] for i in ids}
        for r in store.db.rows(
            f"SELECT * FROM annotations WHERE session_id IN ({marks}) ORDER BY id", tuple(ids)
        ):
            notes[r["session_id"]].append(convert.annotation_from_row(r))
        for r in rows:
            session = convert.session_from_row(r)
            person = people[session.participant_id]
            yield (
                session,
                person,
                events[session.id],
                grades[session.id],
                notes[session.id],
                r["parent_uuid"],
            )


def export_inspect(
    store: Store,
    out: Path,
    *,
    keep: Callable[[ListedSession, Participant], bool] | None = None,
) -> tuple[int, list[Path]]:
    """Write the kept sessions to `out` (a folder, made if missing) as one Inspect log per
    configuration; returns the sessions written and the files, by name."""
    out.mkdir(parents=True, exist_ok=True)
    logs: dict[str, _Log] = {}
    count = 0
    try:
        for session, person, events, grades, notes, parent in _sessions(store, keep):
            configuration = session_configuration(person, session)
            log = logs.get(configuration)
            if log is None:
                handle, part = tempfile.mkstemp(prefix=".inspect.", suffix=".part", dir=out)
                os.close(handle)
                archive = zipfile.ZipFile(part, "w", zipfile.ZIP_DEFLATED, compresslevel=1)
                log = logs[configuration] = _Log(
                    configuration, person, session, Path(part), archive
                )
            sample = build_sample(
                log.sample_id(session),
                session,
                person,
                events,
                grades,
                notes,
                parent,
                configuration,
            )
            log.add(sample, session)
            count += 1
        written = sorted(log.close(out) for log in logs.values())
    except BaseException:
        for log in logs.values():
            log.zip.close()
            log.part.unlink(missing_ok=True)
        raise
    return count, written
