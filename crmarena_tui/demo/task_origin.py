"""Whether a task is one of the real benchmark's or one of the built-in demo tasks.

Demo tasks come from `--tasks demo`, or from a file `tasks export` wrote (its rows keep
`"source": "demo"`). A file exported before that marker existed is recognised by its content: a
row with the idx and query of a demo task, when the demo org of its type is already built (this
never builds one). Every other task (`hf:*`, any other file) is real: it needs the real org.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crmarena_tui.tasks.table import TaskHead

_DEMO_KEYS: dict[str, frozenset[tuple[int, str]]] = {}


def _demo_keys(org_type: str) -> frozenset[tuple[int, str]]:
    """(idx, query) of every demo task of `org_type`, or nothing when its org is not built."""
    if org_type in _DEMO_KEYS:
        return _DEMO_KEYS[org_type]
    from crmarena_tui.demo.generator import GENERATOR_VERSION, org_meta
    from crmarena_tui.settings import locations

    if org_meta(locations.demo_org_path(org_type)).get("generator_version") != GENERATOR_VERSION:
        return frozenset()
    from crmarena_tui.demo.tasks import demo_task_keys

    keys = demo_task_keys(org_type)
    _DEMO_KEYS[org_type] = keys
    return keys


def is_demo_task(task: TaskHead) -> bool:
    if task.source == "demo":
        return True
    if task.source.startswith("hf:") or task.org_type not in ("b2b", "b2c"):
        return False
    return (task.idx, task.query) in _demo_keys(task.org_type)


def is_real_task(task: TaskHead) -> bool:
    return not is_demo_task(task)
