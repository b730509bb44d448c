"""Which demo orgs the app needs for its tasks, and building the missing ones with progress
(first run only). No textual import: the app posts the progress as messages."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crmarena_tui.tasks.table import TaskHead

Progress = Callable[[str, float, str], object]  # (org type, fraction in [0, 1], what is built)


def needed_demo_orgs(org: str | None, tasks: Sequence[TaskHead]) -> list[str]:
    """The demo org types the tasks run on under `--org org` (none unless the org is a demo)."""
    from crmarena_tui.session.org_resolve import org_kind

    if org_kind(org) != "demo":
        return []
    if org and ":" in org:
        return [org.split(":", 1)[1]]
    from crmarena_tui.demo.task_origin import is_demo_task

    return sorted({t.org_type for t in tasks if t.org_type in ("b2b", "b2c") and is_demo_task(t)})


def build_missing_demo_orgs(org_types: Sequence[str], progress: Progress) -> None:
    """Blocking: build each demo org of `org_types` not built by this generator version yet."""
    from crmarena_tui.demo.generator import GENERATOR_VERSION, ensure_demo_org, org_meta
    from crmarena_tui.settings import locations

    for org_type in org_types:
        meta = org_meta(locations.demo_org_path(org_type))
        if meta.get("generator_version") == GENERATOR_VERSION:
            continue

        def report(fraction: float, text: str = "", org_type: str = org_type) -> None:
            progress(org_type, min(fraction, 0.999), text)

        report(0.0, "starting")
        ensure_demo_org(org_type, progress=report)
        progress(org_type, 1.0, "done")


TASKS_STEP = "making the demo tasks"  # the progress text of the tasks phase (the browser shows it)


def prepare_demo_source(source: str, progress: Progress) -> None:
    """Blocking (first run only): the demo orgs, then the demo tasks of `source` (`demo`,
    `demo:small`), each org type's tasks made in turn with progress, so the browser says what
    is being made from the first second to the rows."""
    from crmarena_tui.demo.tasks import SOURCES, NotReady, demo_table, demo_tasks

    build_missing_demo_orgs(["b2b", "b2c"], progress)
    size = SOURCES[source]
    try:
        demo_table(size=size, ready_only=True)
        return  # made on an earlier run: read in a few hundredths of a second
    except NotReady:
        pass
    for n, org_type in enumerate(("b2b", "b2c")):
        progress(org_type, n / 2, f"{TASKS_STEP}: {org_type} ({n + 1} of 2)")
        demo_tasks(org_type, size)
    progress("b2c", 1.0, TASKS_STEP)
