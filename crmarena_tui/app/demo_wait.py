"""A demo org still being built (first run) while a screen needs it: the screen's worker waits
for the build (the org file's lock, demo/generator.py) and the user is told how far it is.

`view` opens the sessions database before the demo orgs and tasks are made (app/app.py), so a
fork, a re-run or an opened task can come while a build runs; the task browser shows the build's
bar, every other screen these notices. No textual import: the app passes its `notify`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

Notify = Callable[[str], object]
STEP = 0.25  # a waiting screen hears of the build at every quarter


class DemoBuilds:
    """The demo org builds under way in this app (org type -> fraction done) and the org types a
    screen's worker waits for."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fractions: dict[str, float] = {}
        self._told: dict[str, int] = {}  # org type waited for -> the last quarter told

    def progress(self, org_type: str, fraction: float, notify: Notify) -> None:
        """A build's progress (the app's `OrgProgress`, not the tasks phase); a screen waiting
        for it hears of each quarter and of the end."""
        with self._lock:
            if fraction >= 1.0:
                self._fractions.pop(org_type, None)
                waited = self._told.pop(org_type, None) is not None
            else:
                self._fractions[org_type] = fraction
                quarter = int(fraction / STEP)
                waited = False
                if self._told.get(org_type, quarter) < quarter:
                    self._told[org_type] = quarter
                    notify(f"Building the demo {org_type} org: {fraction:.0%} done")
        if waited:
            notify(f"The demo {org_type} org is built: the session goes on")

    def announce(self, org_type: str, notify: Notify) -> bool:
        """Before a worker waits for the `org_type` org: True (and the user told) when its build
        is under way."""
        with self._lock:
            fraction = self._fractions.get(org_type)
            if fraction is None:
                return False
            self._told.setdefault(org_type, int(fraction / STEP))
        notify(
            f"The demo {org_type} org is being built (first run, {fraction:.0%} done): "
            "this waits for it"
        )
        return True
