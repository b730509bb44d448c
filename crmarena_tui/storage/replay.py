"""What a session's event log says, recomputed from the events alone: active time, the dialogue
with the simulated user, and the trajectory as role/content messages. Pure functions, so the
Episode, the trajectory viewer and the exporters all read a log the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from crmarena_tui.orgs.base import OBSERVATION_PREFIX
from crmarena_tui.storage.models import Event
from crmarena_tui.storage.usage_calls import model_calls

AGENT_ACTORS = frozenset({"human", "agent"})


def is_paused(events: Iterable[Event]) -> bool:
    """True when the last pause/resume event of the log is a pause."""
    paused = False
    for ev in events:
        if ev.kind == "pause":
            paused = True
        elif ev.kind in ("resume", "fork"):
            paused = False
    return paused


def active_seconds(started: float, events: Sequence[Event], until: float) -> float:
    """Seconds of work from `started` to `until`, not counting:

    - spans between a `pause` and the next `resume`;
    - the gap before a `resume` marked `reopened` (the session's process had stopped: the time
      between its last event and the reopening is not work);
    - anything before a `fork` event (a fork counts only the new participant's time).

    Events without a time (steps copied from an imported upstream run) are passed over.
    """
    total = 0.0
    span_start = started
    previous = started
    paused = False
    for ev in events:
        if ev.ts is None:
            continue
        t = ev.ts.timestamp()
        if t > until:
            break
        if ev.kind == "fork":
            total, span_start, paused = 0.0, t, False
        elif ev.kind == "pause" and not paused:
            total += max(0.0, t - span_start)
            paused = True
        elif ev.kind == "resume":
            if paused:
                paused = False
                span_start = t
            elif ev.payload.get("reopened"):
                total += max(0.0, previous - span_start)
                span_start = t
        previous = t
    if not paused:
        total += max(0.0, until - span_start)
    return total


def dialogue(events: Iterable[Event]) -> list[dict[str, str]]:
    """The conversation so far: `{"role": "agent"|"user", "content"}` per message event."""
    return [
        {"role": "user" if ev.actor == "user" else "agent", "content": ev.text}
        for ev in events
        if ev.kind == "message"
    ]


def trajectory(query: str | None, events: Iterable[Event]) -> list[dict[str, str]]:
    """The attempt as upstream-style messages (`user`/`assistant`), for judges and exports.

    Single-turn logs start with the task's `query` as the user's message (pass None for an
    interactive log, whose user messages are events). The participant's actions read as the
    ReAct tags agents write (`<thought>`, `<execute>`, `<respond>`); observations read as
    `Salesforce instance output: ...`. Notes, pauses, usage and grades are not part of it.
    """
    messages: list[dict[str, str]] = []
    if query:
        messages.append({"role": "user", "content": query})
    thought: str | None = None
    last_respond: str | None = None

    def assistant(action: str) -> None:
        nonlocal thought
        content = f"<thought>{thought}</thought>\n{action}" if thought is not None else action
        thought = None
        messages.append({"role": "assistant", "content": content})

    for ev in events:
        if ev.kind == "thought":
            thought = ev.text if thought is None else f"{thought}\n{ev.text}"
        elif ev.kind in ("query", "search"):
            assistant(f"<execute>{ev.text}</execute>")
        elif ev.kind == "observation" or (ev.kind == "error" and ev.actor == "system"):
            messages.append({"role": "user", "content": OBSERVATION_PREFIX + ev.text})
        elif ev.kind == "message" and ev.actor in AGENT_ACTORS:
            last_respond = ev.text
            assistant(f"<respond>{ev.text}</respond>")
        elif ev.kind == "message":
            messages.append({"role": "user", "content": ev.text})
        elif ev.kind == "submit" and ev.text and ev.text != last_respond:  # (none: unconfirmed)
            assistant(f"<respond>{ev.text}</respond>")
    return messages


def usage_totals(events: Iterable[Event]) -> tuple[int, int, float | None]:
    """(model calls, tokens, cost) over a session's `usage` events (calls as
    `storage.usage_calls` counts them); cost None when no call recorded one."""
    calls, tokens, costs = 0, 0, []
    for ev in events:
        if ev.kind != "usage":
            continue
        u = ev.payload
        calls += model_calls(u)
        tokens += int(
            u.get("total_tokens")
            or (u.get("prompt_tokens") or 0) + (u.get("completion_tokens") or 0)
        )
        if isinstance(u.get("cost"), int | float):
            costs.append(float(u["cost"]))
    return calls, tokens, sum(costs) if costs else None
