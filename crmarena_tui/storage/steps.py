"""A session's event log as the steps the trajectory viewer numbers: one definition, read by the
viewer (`widgets/step_list.py` builds its steps on it), by a fork (which records the step it
continues after) and by the exports (`fork_seq` is that step's number).

A step is what a participant did and what came back: the thoughts and token usage leading to an
action, the action and its result (an observation or error; a grade joins its submission). Every
other event starts a step of its own. Pure functions over events; nothing here reads a database.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crmarena_tui.storage.models import Event

PARTICIPANTS = frozenset({"agent", "human"})

StepEvents = tuple["Event", list["Event"]]
"""One step: its anchor (the event labels attach to) and its events in log order."""


def group_steps(events: Sequence[Event]) -> list[StepEvents]:
    """Group a session's events (in log order) into steps."""
    steps: list[StepEvents] = []
    pending: list[Event] = []
    waiting = False  # the last step is a query or search still waiting for its result

    def graded_submit() -> list[Event] | None:
        for anchor, grouped in reversed(steps[-3:]):
            if anchor.kind == "submit" and not any(ev.kind == "grade" for ev in grouped):
                return grouped
        return None

    for ev in events:
        kind, actor = ev.kind, ev.actor
        if kind in ("thought", "usage") and actor in PARTICIPANTS:
            pending.append(ev)
            waiting = False
            continue
        if (
            waiting
            and not pending
            and (kind == "observation" or (kind == "error" and actor == "system"))
        ):
            steps[-1][1].append(ev)
            waiting = False
            continue
        if kind == "grade":
            target = graded_submit()
            if target is not None:
                target.append(ev)
                waiting = False
                continue
        steps.append((ev, [*pending, ev]))
        pending = []
        waiting = kind in ("query", "search")
    if pending:
        steps.append((pending[-1], pending))
    return steps


def step_number(last_seqs: Sequence[int], seq: int | None) -> int | None:
    """The number (from 1) of the last step that ends at or before event `seq`, given each
    step's last event in order: a fork made "after step N" continues after event `seq`."""
    if seq is None:
        return None
    done = [number for number, last in enumerate(last_seqs, 1) if last <= seq]
    return done[-1] if done else None


def step_after(events: Sequence[Event], seq: int | None) -> int | None:
    """`step_number` over the steps of `events`."""
    return step_number([int(grouped[-1].seq) for _, grouped in group_steps(events)], seq)


def fork_step(events: Sequence[Event], fork_seq: int | None) -> int | None:
    """The step a fork (or take-over) with these `events` continues after, as the viewer shows
    it ("after step N"): the number its `fork` event recorded when it was made, else (a fork made
    before forks recorded it) the step of its own log that ends at event `fork_seq`."""
    if fork_seq is None:
        return None
    for ev in events:
        if ev.kind == "fork" and ev.seq > fork_seq:  # its own (a copied one is a parent's)
            recorded = ev.payload.get("at_step")
            if isinstance(recorded, int) and not isinstance(recorded, bool):
                return recorded
            break
    return step_after(events, fork_seq)
