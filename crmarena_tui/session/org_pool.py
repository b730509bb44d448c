"""The orgs a process has open: one per org type, opened on first use, shared by its sessions, and
one long-lived thread that org calls from the UI run on.

Org backends may keep a connection per thread; funnelling the app's org calls through one thread
keeps that to one connection however long the app runs. Sessions share an org object safely: the
task's date travels with each query (`orgs.dated_org.DatedOrg`), never as state on the org.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from crmarena_tui.orgs.base import Org
    from crmarena_tui.tasks.model import Task

T = TypeVar("T")


class OrgPool:
    """`spec` is an `--org` value; `factory(org_type)` replaces its resolution (embedding, tests)."""

    def __init__(self, spec: str | None, factory: Callable[[str], Org] | None = None) -> None:
        self.spec = spec
        self.factory = factory
        self._orgs: dict[tuple[str | None, str], Org] = {}
        self._lock = threading.Lock()
        self._thread: ThreadPoolExecutor | None = None

    def org_for(
        self, task: Task, *, lenient: bool = False, session_org: str | None = None
    ) -> tuple[Org, str | None]:
        """Blocking: the org `task` runs on, opened once, and the resolver's note on the choice
        (or None). session/org_resolve.py decides which org (`session_org`: the org of a session
        being re-run or forked); `lenient`: a local org answers what Salesforce refuses."""
        from crmarena_tui.session.org_resolve import open_org, task_route

        spec, note = None, None
        if self.factory is None:
            route = task_route(task, self.spec, session_org=session_org)
            spec, note = route.spec, route.note
        key = (spec, task.org_type)
        with self._lock:
            org = self._orgs.get(key)
            if org is None:
                if self.factory is not None:
                    org = self.factory(task.org_type)
                else:
                    org = open_org(spec, org_type=task.org_type, lenient=lenient)
                self._orgs[key] = org
            return org, note

    def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Blocking: run `fn(*args)` on the one org thread."""
        if self._thread is None:
            self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="org")
        return self._thread.submit(fn, *args).result()

    def close(self) -> None:
        """Stop the org thread and close every org (never raises)."""
        if self._thread is not None:
            self._thread.shutdown(wait=False, cancel_futures=True)
        for org in self._orgs.values():
            with suppress(Exception):
                org.close()
