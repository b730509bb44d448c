"""Links to a step: `SESSION[:STEP]` (`12`, `12:3`), as `crmarena-tui view` takes it and `serve`
reads it from a URL (`/view/12:3`), so a finding in a paper or a chat can point at the step it is
about. Steps are numbered from 1 as the trajectory viewer numbers them (`storage/steps.py`).

`parse_link` reads the text (a malformed one is a `ValueError` with a one-line message);
`check_link` says why a parsed link does not open (no such session, no such step), else None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from crmarena_tui.storage.errors import NotFound
from crmarena_tui.storage.steps import group_steps

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store

_LINK = re.compile(r"\s*(\d+)\s*(?::\s*(\d+)\s*)?")


@dataclass(frozen=True, slots=True)
class StepLink:
    """A session and, optionally, one of its steps (from 1)."""

    session_id: int
    step: int | None = None

    def __str__(self) -> str:
        return str(self.session_id) if self.step is None else f"{self.session_id}:{self.step}"


def parse_link(text: str) -> StepLink:
    """`SESSION` or `SESSION:STEP` (positive integers) as a `StepLink`."""
    found = _LINK.fullmatch(text)
    if not found:
        raise ValueError(f"{text!r} is not SESSION or SESSION:STEP (e.g. 12 or 12:3)")
    session, step = int(found[1]), None if found[2] is None else int(found[2])
    if step is not None and step < 1:
        raise ValueError(f"steps are numbered from 1: {text!r} names step {step}")
    return StepLink(session, step)


def step_count(store: Store, session_id: int) -> int:
    """Blocking: how many steps the viewer shows for the session."""
    return len(group_steps(store.events(session_id)))


def check_link(store: Store, link: StepLink) -> str | None:
    """Blocking: why `link` cannot be opened (one line), or None when it can."""
    try:
        store.session(link.session_id)
    except NotFound:
        return f"no session {link.session_id} in {store.path}"
    if link.step is None:
        return None
    steps = step_count(store, link.session_id)
    if link.step > steps:
        has = f"it has {steps} step{'s' if steps != 1 else ''}" if steps else "it has no steps"
        return f"no step {link.step} in session {link.session_id} ({has})"
    return None
