"""The participant's status per task, read from the sessions store (no textual import)."""

from __future__ import annotations

from typing import Any

from crmarena_tui.tasks.index import TaskStatus


def task_key(source: str, idx: int) -> str:
    return f"{source}#{idx}"


def statuses_for(store: Any, participant: Any) -> dict[str, TaskStatus]:
    """`Task.key` -> status, from the participant's own attempts (forks and take-overs are not):
    the latest session of a task wins, a submitted one shows its reward."""
    if store is None or participant is None:
        return {}
    out: dict[str, TaskStatus] = {}
    sessions = sorted(
        (s for s in store.sessions(participant_id=participant.id) if s.is_attempt),
        key=lambda s: s.id,
    )
    for session in sessions:
        key = task_key(session.task_source, session.task_idx)
        if session.status == "submitted":
            grade = store.grade(session.id)
            reward = None if grade is None else float(grade.reward)
            out[key] = TaskStatus("submitted", reward, session.id)
        elif session.status == "in_progress":
            previous = out.get(key)
            if previous is None or previous.state != "submitted":
                out[key] = TaskStatus("in progress", None, session.id)
    return out


def submitted_tasks(store: Any, participant: Any) -> set[tuple[str, int]]:
    """(source, idx) of every task the participant has submitted an own attempt at: the tasks
    whose ground truth and other participants' answers blind mode may show them."""
    if store is None or participant is None:
        return set()
    return {
        (s.task_source, s.task_idx)
        for s in store.sessions(participant_id=participant.id)
        if s.is_attempt and s.status == "submitted"
    }
