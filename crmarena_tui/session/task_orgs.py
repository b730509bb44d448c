"""Which listed tasks no org on this machine can answer (no textual import).

A real task (`demo.task_origin.is_real_task`) runs on the real org of its type: an imported
upstream snapshot or a live org with credentials (`session/org_resolve.py` decides). When neither is
there and no `--org` is given, the task cannot be worked here: the browser marks it ("no org"),
counts such tasks in its status line and refuses to open it, with the message that says what to
run (`session.org_resolve.no_org_message`), instead of a workspace whose session never opens.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crmarena_tui.tasks.table import TaskHead

NO_ORG_LABEL = "no org"


def tasks_without_org(tasks: Iterable[TaskHead], configured: str | None) -> dict[str, str]:
    """`{task key: why it cannot be opened}` for the tasks no available org can answer; empty
    when an `--org` is configured (it answers every task, with the resolver's note)."""
    if configured:
        return {}
    from crmarena_tui.demo.task_origin import is_real_task
    from crmarena_tui.session.org_resolve import Available, no_org_message

    tasks = list(tasks)
    types = {t.org_type for t in tasks if t.source != "demo"}
    if not types:
        return {}
    available = Available.probe()
    missing = {
        org_type: no_org_message(org_type, f"real {org_type} tasks")
        for org_type in types
        if org_type not in available.upstream and org_type not in available.salesforce
    }
    if not missing:
        return {}
    return {
        t.key: missing[t.org_type]
        for t in tasks
        if t.org_type in missing and t.source != "demo" and is_real_task(t)
    }
