"""Tasks by the source name a user gives (`--tasks`, the app's task source): the built-in demo
sets here (`demo`, the full set, and `demo:small`, its first tasks of each type and org type),
every other name (a local file, `hf:...`) through `tasks/loaders.py`.

Here, above the tasks, because the demo sets are built from the demo orgs: the loaders below
never import the demo package (docs/ARCHITECTURE.md, "Layers").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crmarena_tui.demo.tasks import SOURCES
from crmarena_tui.tasks import loaders
from crmarena_tui.tasks.loaders import LoadRules

if TYPE_CHECKING:
    from crmarena_tui.tasks.model import Task
    from crmarena_tui.tasks.table import TaskTable


def load_tasks(src: str = "demo", rules: LoadRules | None = None) -> list[Task]:
    """All tasks of `src`, in source order (`tasks/loaders.py` `load_tasks` for a file or the
    hub)."""
    if src in SOURCES:
        from crmarena_tui.demo.tasks import demo_tasks

        return demo_tasks(size=SOURCES[src])
    return loaders.load_tasks(src, rules)


def load_task_table(src: str, rules: LoadRules | None = None) -> TaskTable:
    """The tasks of `src` as the browser lists them, each `Task` built when it is opened."""
    if src in SOURCES:
        from crmarena_tui.demo.tasks import demo_table

        return demo_table(size=SOURCES[src])
    return loaders.load_task_table(src, rules)


def ready_table(src: str, *, first_of_file: bool = True) -> TaskTable:
    """What the browser can list in the first frame without building anything
    (`tasks/loaders.py` `ready_table`): for a demo set, its rows when its orgs and rows files are
    built, else an empty table."""
    if src in SOURCES:
        from crmarena_tui.demo.tasks import NotReady, demo_table
        from crmarena_tui.tasks.table import TaskTable

        try:
            return demo_table(size=SOURCES[src], ready_only=True)
        except (NotReady, OSError, ValueError, KeyError, TypeError):
            return TaskTable()
    return loaders.ready_table(src, first_of_file=first_of_file)
