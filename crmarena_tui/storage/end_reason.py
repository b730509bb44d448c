"""Why a session ended, in one line, for the viewer, compare and exports: read from the session,
its log and its grade alone (like `replay.py`).

Imported upstream runs keep the run's own reason (`agent_info.end_reason`: "Submit action",
"SOQL/SOSL query error", "Max user turns reached", with its source). Sessions played or run
here say it through their log: the agent's turn limit, the user's `###STOP###` or its turn limit,
a model API error, a take-over, the submission; else the status (in progress, abandoned).

The words an episode ends on live here, below the agents and the sessions that write them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

STOP = "###STOP###"
"""What a simulated user says, exactly, to end the conversation."""
SUBMIT_ACTION = "Submit action"  # upstream's end reason for a confirmed answer, the one it graded
MAX_TURNS_REACHED = "Max turns reached"  # upstream's end reasons at its limits ...
MAX_USER_TURNS_REACHED = "Max user turns reached"
CONNECTOR_ERROR = "Connector error"  # ... and where its connector raised on a result

if TYPE_CHECKING:
    from crmarena_tui.storage.models import Event, GradeRow, Session


def end_reason(session: Session, events: Sequence[Event], grade: GradeRow | None = None) -> str:
    """The session's end, as a person reads it."""
    upstream = session.settings.get("end_reason")
    metrics: dict[str, Any] = grade.metrics if grade is not None else {}
    infra = metrics.get("infrastructure_error") or session.settings.get("infrastructure_error")
    if infra:
        return f"infrastructure error: {str(infra)[:120]}"
    if isinstance(upstream, dict) and upstream.get("message"):
        source = upstream.get("source")
        return f"{upstream['message']}" + (f" ({source})" if source else "")
    if metrics.get("end_reason"):
        source = metrics.get("end_source")
        return str(metrics["end_reason"]) + (f" ({source})" if source else "")
    for ev in reversed(events):
        payload = ev.payload or {}
        if ev.kind == "system" and payload.get("event") == "taken_over":
            return f"taken over by a human (session #{payload.get('session')})"
        if ev.kind == "system" and "turn limit" in str(payload.get("text", "")):
            return str(payload["text"])
        if ev.kind == "system" and payload.get("event") == "driver_error":
            return f"the run stopped on an error: {str(payload.get('error', ''))[:120]}"
        if ev.kind == "message" and ev.actor == "user" and ev.text.strip() == STOP:
            limit = payload.get("turn_limit")
            return f"user turn limit ({limit}) reached" if limit else "the user ended the chat"
        if ev.kind == "error" and payload.get("source") == "api":
            return f"model API error: {ev.text[:120]}"
        if ev.kind == "submit":
            break
    if session.status == "submitted":
        return "answer submitted"
    return "in progress" if session.status == "in_progress" else session.status


def end_kind(reason: str) -> str:
    """The kind of an end (`end_reason`'s line, or a stored reason alone), as `search ended:`
    names it: submit, max-turns, query-error, invalid-action, user-stop, api-error, run-error,
    taken-over, infrastructure, in-progress, abandoned, else other."""
    folded = reason.casefold()
    for start, kind in _KIND_STARTS:
        if folded.startswith(start):
            return kind
    if "turn limit" in folded or "turns reached" in folded:
        return "max-turns"
    if "query error" in folded:
        return "query-error"
    if folded.startswith(("invalid action", "invalid tool", "tool_call error")):
        return "invalid-action"
    return "other"


_KIND_STARTS = (
    ("infrastructure error", "infrastructure"),
    ("taken over", "taken-over"),
    ("the run stopped on an error", "run-error"),
    ("model api error", "api-error"),
    ("the user ended the chat", "user-stop"),
    (SUBMIT_ACTION.casefold(), "submit"),
    ("answer submitted", "submit"),
    ("in progress", "in-progress"),
    ("abandoned", "abandoned"),
)
