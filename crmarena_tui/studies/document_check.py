"""What `study import` checks in a study file before a row is written, each failure one line
naming the file, the entry and the field (`StudyError`).

A study file comes from another machine, by hand or by mail: it may be damaged or made to harm.
Every number must be finite and in range (`storage/strict_json.py` refuses NaN, infinities,
integers SQLite cannot hold, lone surrogates and deep nesting while parsing); the settings must
be what `study create` could have made (a time limit in minutes, `per_task` of at least 1, a
creation time between 1970 and 3000); names (the study's and each participant's) are printable
text without path separators; join codes are not empty; a participant appears once; the task
source is built in, on the hub, or a task file (`.json`, `.jsonl`, `.parquet`), and every queued
task exists in it when it can be loaded here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from crmarena_tui.studies.model import SHOW_GRADE, STUDY_STATUSES, StudyError

MAX_NAME = 100
LATEST = 32_503_680_000.0  # 3000-01-01 (UTC), as seconds since 1970
MAX_IDX = 2**31
MAX_MINUTES = 7 * 24 * 60
TASK_FILES = (".json", ".jsonl", ".parquet")
Fail = Callable[[str, str], Exception]


def check_document(path: Path, data: dict[str, Any]) -> None:
    """Raise `StudyError` at the first field that a study file must not hold (module docstring)."""

    def fail(where: str, problem: str) -> StudyError:
        return StudyError(f"{path}: {where}: {problem}; nothing was imported")

    study = data.get("study")
    if not isinstance(study, dict):
        raise fail("study", "missing, or not an object")
    _settings(study, fail)
    people = data.get("participants")
    if not isinstance(people, list) or not people:
        raise fail("participants", "expected a list of at least one participant")
    seen: dict[str, int] = {}
    for k, person in enumerate(people):
        where = f"participants entry {k}"
        if not isinstance(person, dict):
            raise fail(where, "expected an object")
        name = person.get("name")
        _name(name, f"{where}, field name", fail)
        key = str(name).strip().casefold()
        if key in seen:
            raise fail(
                f"{where}, field name",
                f"{name!r} is also entry {seen[key]}: each participant appears once",
            )
        seen[key] = k
        code = person.get("join_code")
        if not isinstance(code, str) or not code.strip() or not code.isprintable():
            raise fail(f"{where}, field join_code", "expected a join code (printable, not empty)")
        queue = person.get("queue")
        if not isinstance(queue, list):
            raise fail(f"{where}, field queue", "expected a list of tasks")
        for n, item in enumerate(queue):
            _queued(item, f"{where}, queue entry {n}", fail)


def _settings(study: dict[str, Any], fail: Fail) -> None:
    if not isinstance(study.get("uuid"), str) or not study["uuid"].strip():
        raise fail("study, field uuid", "expected the study's uuid")
    _name(study.get("name"), "study, field name", fail)
    tasks = study.get("tasks")
    if not isinstance(tasks, str) or not _task_source(tasks):
        raise fail(
            "study, field tasks",
            f"{tasks!r:.80} is not a task source (demo, demo:small, hf:NAME, or a "
            f"{', '.join(TASK_FILES)} task file)",
        )
    if study.get("org") is not None and not isinstance(study["org"], str):
        raise fail("study, field org", "expected an org (text) or null")
    per_task = study.get("per_task")
    if type(per_task) is not int or per_task < 1:
        raise fail(
            "study, field per_task", f"expected a whole number of at least 1, not {per_task!r:.40}"
        )
    if type(study.get("seed")) is not int:
        raise fail("study, field seed", "expected a whole number")
    limit = study.get("time_limit_minutes")
    if limit is not None and not _number_within(limit, 0.0, MAX_MINUTES, low_open=True):
        raise fail(
            "study, field time_limit_minutes",
            f"expected null or a number of minutes above 0 and at most {MAX_MINUTES}, "
            f"not {limit!r:.40}",
        )
    if study.get("show_grade") not in SHOW_GRADE:
        raise fail("study, field show_grade", f"expected one of {', '.join(SHOW_GRADE)}")
    if study.get("status") not in STUDY_STATUSES:
        raise fail("study, field status", f"expected one of {', '.join(STUDY_STATUSES)}")
    created = study.get("created_at")
    if not _number_within(created, 0.0, LATEST):
        raise fail(
            "study, field created_at",
            f"expected a time in seconds since 1970 before the year 3000, not {created!r:.40}",
        )


def _number_within(value: Any, low: float, high: float, low_open: bool = False) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if not math.isfinite(value) or value > high:
        return False
    return value > low if low_open else value >= low


def _name(name: Any, where: str, fail: Fail) -> None:
    """A name shown on terminals and used in file names: printable, no path separators."""
    if not isinstance(name, str) or not name.strip():
        raise fail(where, "expected a name")
    if len(name) > MAX_NAME:
        raise fail(where, f"longer than {MAX_NAME} characters")
    if not name.isprintable():
        raise fail(where, f"{name!r:.60} holds a control character (an escape code?)")
    if "/" in name or "\\" in name or name.strip() in (".", ".."):
        raise fail(where, f"{name!r:.60} holds a path separator")


def _task_source(tasks: str) -> bool:
    if tasks in ("demo", "demo:small") or (tasks.startswith("hf:") and tasks[3:].isidentifier()):
        return True
    return tasks.isprintable() and Path(tasks).suffix.lower() in TASK_FILES


def _queued(item: Any, where: str, fail: Fail) -> None:
    if not isinstance(item, dict):
        raise fail(where, "expected an object")
    if not isinstance(item.get("task_source"), str):
        raise fail(f"{where}, field task_source", "expected text")
    idx = item.get("task_idx")
    if type(idx) is not int or not 0 <= idx < MAX_IDX:
        raise fail(f"{where}, field task_idx", f"expected a task idx, not {idx!r:.40}")
    if not isinstance(item.get("task_type", ""), str):
        raise fail(f"{where}, field task_type", "expected text")


def check_tasks_exist(path: Path, data: dict[str, Any]) -> None:
    """Every queued task is in the study's task source, when that source loads here (a hub
    source not yet downloaded is left to `play`, which says so)."""
    from crmarena_tui.demo.sources import load_tasks
    from crmarena_tui.tasks.rows import LoadRules, TaskLoadError

    source = data["study"]["tasks"]
    try:
        tasks = load_tasks(source, LoadRules(allow_duplicates=True, allow_unknown_types=True))
    except (TaskLoadError, OSError):
        return
    known = {(t.source, t.idx) for t in tasks} | {(source, t.idx) for t in tasks}
    for k, person in enumerate(data["participants"]):
        for n, item in enumerate(person["queue"]):
            if (item["task_source"], item["task_idx"]) not in known:
                raise StudyError(
                    f"{path}: participants entry {k}, queue entry {n}, field task_idx: task "
                    f"{item['task_idx']} is not in {source}; nothing was imported"
                )
