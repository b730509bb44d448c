"""The built-in demo tasks: every task type, B2B and B2C, single-turn and interactive.

Tasks are derived from the cached demo orgs (`generator.ensure_demo_org`, seed 0, scale 1.0) by
the families in `crmarena_tui.demo.taskgen` with plain SQL and Python (never the SOQL engine):
each family module's docstring states the facts it relies on and the rule fixing the answer.

Sizes, as the real splits have them: `full` (source `demo`) drafts 100 tasks per task type and
80 per privacy type for each org type; `small` (source `demo:small`) the first 6 of each. Every
draft is a single-turn task and, like the benchmark's interactive splits, the same task again to
be played interactively: 4,280 tasks per org type in full, 264 in small. Drafting is
prefix-stable, so the small set is exactly the part of the full set with the same idx:
`idx = org offset + 5000 (interactive) + 100 * (position of the type in the catalogue) + n`.
Each list is cached next to the org (`demo-<type>[.small].tasks.json`, keyed by generator and
task versions and the org's build) so `demo_tasks()` is fast after the first call, with a rows
file (`demo-<type>.<size>.rows.json`: idx, type, metric and request of each draft) from which
`demo_table()` lists the tasks in the app without building them (`demo_task` builds one).
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from crmarena_tui.demo.generator import GENERATOR_VERSION, FileLock, ensure_demo_org, org_meta
from crmarena_tui.settings import locations
from crmarena_tui.tasks.catalog import BY_NAME, TASK_TYPES
from crmarena_tui.tasks.rows import string_pool, tasks_from_rows

if TYPE_CHECKING:  # the families load when tasks are generated, not when the cache is read
    from crmarena_tui.demo.taskgen.common import Draft, OrgReader
    from crmarena_tui.tasks.model import Task
    from crmarena_tui.tasks.table import TaskTable

TASKGEN_VERSION = "5"
SOURCES = {"demo": "full", "demo:small": "small"}  # task source name -> size
DRAFTS = {"full": (100, 80), "small": (6, 6)}  # size -> drafts per (business, privacy) type
ORG_OFFSET = {"b2b": 0, "b2c": 10000}
INTERACTIVE_OFFSET = 5000

Maker = Callable[["OrgReader", random.Random, int], list["Draft"]]


def families() -> tuple[ModuleType, ...]:
    """The task family modules, in catalogue order."""
    from crmarena_tui.demo.taskgen import (
        customer_tasks,
        opportunity_tasks,
        policy_tasks,
        privacy_tasks,
        product_tasks,
        sales_tasks,
        service_tasks,
    )

    return (
        service_tasks,
        product_tasks,
        sales_tasks,
        opportunity_tasks,
        policy_tasks,
        customer_tasks,
        privacy_tasks,
    )


def makers() -> dict[str, Maker]:
    """Task type -> the function drafting its tasks from an org."""
    out: dict[str, Maker] = {}
    for module in families():
        for name in dir(module):
            if name.startswith("make_"):
                out[name.removeprefix("make_")] = getattr(module, name)
    return out


def draft_tasks(org: OrgReader, task_type: str, n: int) -> list[Draft]:
    """`n` drafts (fewer when the org cannot support them) of one type, deterministic per org;
    the first k of them are the drafts of `draft_tasks(org, task_type, k)`."""
    rng = random.Random(f"crmarena-demo-tasks:{org.org_type}:{task_type}")
    return makers()[task_type](org, rng, n)


def drafts_per_type(task_type: str, size: str = "full") -> int:
    """How many drafts a size holds for one task type (each is a single-turn and an interactive
    task)."""
    business, privacy = DRAFTS[size]
    return privacy if BY_NAME[task_type].metric == "privacy_rejection" else business


def generate_tasks(org_path: str | os.PathLike[str], size: str = "full") -> list[Task]:
    """Every demo task of one size for the org file at `org_path` (no cache)."""
    from crmarena_tui.demo.taskgen.common import OrgReader
    from crmarena_tui.demo.taskgen.wording import (
        DOMAIN_DETAILS,
        EXTERNAL_PERSONAS,
        INTERNAL_PERSONAS,
    )
    from crmarena_tui.tasks.model import Task, TaskMetadata

    org = OrgReader(org_path)
    try:
        org_type = org.org_type
        tasks: list[Task] = []
        for t_index, tt in enumerate(TASK_TYPES):
            drafts = draft_tasks(org, tt.name, drafts_per_type(tt.name, size))
            personas = EXTERNAL_PERSONAS if tt.facing == "external" else INTERNAL_PERSONAS
            rng = random.Random(f"crmarena-demo-personas:{org_type}:{tt.name}")
            for n, draft in enumerate(drafts):
                persona = rng.choice(personas)
                for interactive in (False, True):
                    idx = ORG_OFFSET[org_type] + 100 * t_index + n
                    tasks.append(
                        Task(
                            idx=idx + (INTERACTIVE_OFFSET if interactive else 0),
                            task=tt.name,
                            query=draft.query,
                            answer=draft.answer,
                            metadata=TaskMetadata(required=draft.required, optional=DOMAIN_DETAILS),
                            reward_metric=tt.metric,  # type: ignore[arg-type]
                            persona=persona,
                            source="demo",
                            org_type=org_type,  # type: ignore[arg-type]
                            interactive=interactive,
                        )
                    )
        return sorted(tasks, key=lambda t: t.idx)
    finally:
        org.close()


def _cache_key(org_path: Path, size: str, meta: dict[str, str] | None = None) -> dict[str, str]:
    """What a cache of `size` next to the org is valid for (`meta`: the org's, if read)."""
    meta = org_meta(org_path) if meta is None else meta
    return {
        "size": size,
        "generator_version": GENERATOR_VERSION,
        "taskgen_version": TASKGEN_VERSION,
        "built_at": meta.get("built_at", ""),
        "seed": meta.get("seed", ""),
        "scale": meta.get("scale", ""),
    }


_MEMO: dict[tuple[str, str], list[Task]] = {}


def cache_path(org_path: Path, size: str = "full") -> Path:
    """Where the tasks of one size are cached next to the org file."""
    infix = "" if size == "full" else f".{size}"
    return org_path.with_name(f"{org_path.stem}{infix}.tasks.json")


def _org_tasks(org_type: str, size: str) -> list[Task]:
    org_path = ensure_demo_org(org_type)
    key = _cache_key(org_path, size)
    memo_key = (str(org_path), json.dumps(key, sort_keys=True))
    if memo_key in _MEMO:
        return _MEMO[memo_key]
    cache = cache_path(org_path, size)
    tasks = _cached(cache, key)
    if tasks is None:
        # One process generates them (several seconds of CPU); others started at the same time
        # (the apps `serve --study` starts, parallel runs) wait and read what it wrote.
        with FileLock(cache.with_name(cache.name + ".lock")):
            tasks = _cached(cache, key)
            if tasks is None:
                tasks = generate_tasks(org_path, size)
                _write_json(cache, _to_cache(key, tasks))
                _write_rows(org_path, size, key, tasks)
                if size == "full":
                    _write_keys(org_path, key, tasks)
    _MEMO[memo_key] = tasks
    return tasks


def _cached(cache: Path, key: dict[str, str]) -> list[Task] | None:
    """The tasks cached at `cache` for `key`; None when there are none, or older ones."""
    try:
        data = json.loads(cache.read_text(encoding="utf-8"), object_hook=string_pool())
        if data.get("key") == key:
            return _from_cache(data, where=str(cache))
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def _to_cache(key: dict[str, str], tasks: list[Task]) -> dict[str, object]:
    """The cache holds each draft once (its single-turn task) and the domain text once."""
    rows = []
    for task in tasks:
        if not task.interactive:
            row = task.row()
            row["metadata"] = {"required": task.metadata.required}
            rows.append(row)
    optional = tasks[0].metadata.optional if tasks else ""
    return {"key": key, "optional": optional, "rows": rows}


def _from_cache(data: dict[str, Any], where: str) -> list[Task]:
    for row in data["rows"]:
        row["metadata"]["optional"] = data["optional"]
    single = tasks_from_rows(data["rows"], {}, where=where)
    twins = [_twin(t) for t in single]
    return sorted([*single, *twins], key=lambda t: t.idx)


def _rows_path(org_path: Path, size: str) -> Path:
    return org_path.with_name(f"{org_path.stem}.{size}.rows.json")


def _write_rows(org_path: Path, size: str, key: dict[str, str], tasks: list[Task]) -> None:
    """What the browser lists of each draft (its single-turn task), for `demo_table`."""
    rows = [[t.idx, t.task, t.reward_metric, t.query] for t in tasks if not t.interactive]
    _write_json(_rows_path(org_path, size), {"key": key, "rows": rows})


class NotReady(Exception):
    """A demo org or rows file is not built yet (`demo_table(..., ready_only=True)`)."""


def _org_heads(org_type: str, size: str, ready_only: bool = False) -> list[list[Any]]:
    """[idx, type, metric, query] of each single-turn demo task of one org, from the rows file
    (written with the cache; rewritten from the tasks when missing or stale, unless
    `ready_only`: then `NotReady`)."""
    meta = None
    if ready_only:
        org_path = locations.demo_org_path(org_type)
        meta = org_meta(org_path)
        if meta.get("generator_version") != GENERATOR_VERSION:
            raise NotReady(org_type)
    else:
        org_path = ensure_demo_org(org_type)
    key = _cache_key(org_path, size, meta)
    try:
        data = json.loads(_rows_path(org_path, size).read_text(encoding="utf-8"))
        if data.get("key") == key:
            return list(data["rows"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    if ready_only:
        raise NotReady(org_type)
    tasks = _org_tasks(org_type, size)
    _write_rows(org_path, size, key, tasks)
    return [[t.idx, t.task, t.reward_metric, t.query] for t in tasks if not t.interactive]


def demo_table(size: str = "full", *, ready_only: bool = False) -> TaskTable:
    """The rows of `demo_tasks(size=size)` (b2b, then b2c), read without building a Task; a
    row's Task is validated from the cache when it is opened (`demo_task`). `ready_only`:
    raise `NotReady` rather than build an org or write a rows file (a few hundredths of a
    second, so the app may read them before its first frame)."""
    from crmarena_tui.tasks.table import TaskRow, TaskTable

    table = TaskTable(lambda row: demo_task(row.org_type, row.idx, size))
    names: dict[str, str] = {}  # one string per type and metric, not one per row
    make = TaskRow._make  # (a tuple's constructor: 8,560 rows before the first frame)
    for org_type in ("b2b", "b2c"):
        heads = [
            (idx, names.setdefault(task_type, task_type), query, names.setdefault(metric, metric))
            for idx, task_type, metric, query in _org_heads(org_type, size, ready_only)
        ]
        both = [(n, t, q, m, False) for n, t, q, m in heads]
        both += [(n + INTERACTIVE_OFFSET, t, q, m, True) for n, t, q, m in heads]
        both.sort(key=lambda r: r[0])  # (two sorted runs as drafted: a merge)
        table.rows.extend(
            make((n, t, q, m, org_type, chat, "demo", pos, table))
            for pos, (n, t, q, m, chat) in enumerate(both, len(table.rows))
        )
    return table


def demo_task(org_type: str, idx: int, size: str = "full") -> Task:
    """One task of `demo_tasks(org_type, size)` by idx, validated alone from the cache (the
    whole list when the cache must be rebuilt)."""
    org_path = ensure_demo_org(org_type)
    key = _cache_key(org_path, size)
    memo = _MEMO.get((str(org_path), json.dumps(key, sort_keys=True)))
    interactive = (idx - ORG_OFFSET[org_type]) >= INTERACTIVE_OFFSET
    single = idx - INTERACTIVE_OFFSET if interactive else idx
    if memo is None:
        cache = cache_path(org_path, size)
        try:
            data = json.loads(cache.read_text(encoding="utf-8"))
            if data.get("key") == key:
                row = next((r for r in data["rows"] if r.get("idx") == single), None)
                if row is not None:
                    row["metadata"]["optional"] = data["optional"]
                    task = tasks_from_rows([row], {}, where=str(cache))[0]
                    return _twin(task) if interactive else task
        except (OSError, ValueError, KeyError, TypeError):
            pass
        memo = _org_tasks(org_type, size)
    found = next((t for t in memo if t.idx == idx), None)
    if found is None:
        raise LookupError(f"no demo task {idx} of org type {org_type}")
    return found


def _twin(task: Task) -> Task:
    """The interactive twin of a single-turn demo task."""
    return task.model_copy(update={"idx": task.idx + INTERACTIVE_OFFSET, "interactive": True})


def _write_json(path: Path, data: object) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, path)


def _keys_path(org_path: Path) -> Path:
    return org_path.with_name(f"{org_path.stem}.keys.json")


def _write_keys(org_path: Path, key: dict[str, str], tasks: list[Task]) -> None:
    _write_json(_keys_path(org_path), {"key": key, "keys": [[t.idx, t.query] for t in tasks]})


def demo_task_keys(org_type: str) -> frozenset[tuple[int, str]]:
    """(idx, query) of every demo task of `org_type` (the full set holds the small one), read from
    a small file next to the task cache, so telling demo rows from real ones in a task file does
    not build 4,280 tasks."""
    org_path = ensure_demo_org(org_type)
    key = _cache_key(org_path, "full")
    try:
        data = json.loads(_keys_path(org_path).read_text(encoding="utf-8"))
        if data.get("key") == key:
            return frozenset((int(idx), str(query)) for idx, query in data["keys"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    tasks = demo_tasks(org_type)
    _write_keys(org_path, key, tasks)
    return frozenset((t.idx, t.query) for t in tasks)


def demo_tasks(org_type: str | None = None, size: str = "full") -> list[Task]:
    """The demo tasks of one org type, or of both (b2b first) when `org_type` is None; `size` is
    "full" (source `demo`) or "small" (source `demo:small`)."""
    types = ("b2b", "b2c") if org_type is None else (org_type,)
    for t in types:
        if t not in ORG_OFFSET:
            raise ValueError(f"no demo tasks for org type {t!r}: use b2b or b2c")
    if size not in DRAFTS:
        raise ValueError(f"no demo task size {size!r}: use full or small")
    return [task for t in types for task in _org_tasks(t, size)]
