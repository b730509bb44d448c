"""Domain models of the sessions database: what the rest of the app reads and passes around.

Timestamps are timezone-aware UTC datetimes; JSON columns are decoded into Python values.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from crmarena_tui.tasks.model import Task

ParticipantKind = Literal["human", "agent"]
SessionStatus = Literal["in_progress", "submitted", "abandoned"]
SessionKind = Literal["attempt", "fork", "takeover"]
Actor = Literal["human", "agent", "user", "system"]
EventKind = Literal[
    "query",
    "search",
    "observation",
    "error",
    "thought",
    "message",
    "submit",
    "grade",
    "note",
    "pause",
    "resume",
    "fork",
    "usage",
    "system",
    "compute",
]
EVENT_KINDS: frozenset[str] = frozenset(EventKind.__args__)  # type: ignore[attr-defined]
ACTORS: frozenset[str] = frozenset(Actor.__args__)  # type: ignore[attr-defined]
STATUSES: frozenset[str] = frozenset(SessionStatus.__args__)  # type: ignore[attr-defined]
SESSION_KINDS: frozenset[str] = frozenset(SessionKind.__args__)  # type: ignore[attr-defined]


class _Row(BaseModel):
    model_config = ConfigDict(frozen=True)


class Participant(_Row):
    id: int
    kind: ParticipantKind
    name: str
    model: str | None = None
    settings: dict[str, Any] = Field(default_factory=dict)

    @property
    def label(self) -> str:
        return (
            f"{self.name} ({self.model})" if self.model and self.model != self.name else self.name
        )


class Session(_Row):
    """One attempt at one task. `task_json` holds the whole task row, ground truth included."""

    id: int
    participant_id: int
    task_source: str
    task_idx: int
    task_type: str
    task_json: dict[str, Any]
    org_kind: str
    org_ref: str
    interactive: bool
    aided: bool
    blind: bool
    status: SessionStatus
    started_at: datetime
    ended_at: datetime | None = None
    active_seconds: float | None = None
    app_version: str
    settings_key: str
    settings: dict[str, Any] = Field(default_factory=dict)
    user_simulator: str | None = None
    parent_session_id: int | None = None
    fork_seq: int | None = None
    kind: SessionKind = "attempt"  # a fork or a take-over is not the participant's own attempt

    @property
    def is_attempt(self) -> bool:
        return self.kind == "attempt"

    @property
    def wall_seconds(self) -> float | None:
        """Seconds from start to end, pauses included (`active_seconds` leaves them out)."""
        if self.ended_at is None:
            return None
        return (self.ended_at - self.started_at).total_seconds()

    def task(self) -> Task:
        """The snapshotted task, ground truth included: for grading, never for the participant."""
        return Task.model_validate(self.task_json)


class Event(_Row):
    session_id: int
    seq: int
    ts: datetime
    actor: Actor
    kind: EventKind
    payload: dict[str, Any] = Field(default_factory=dict)
    duration_ms: float | None = None

    @property
    def text(self) -> str:
        """The main text of the event, whatever its kind (query text, message, observation...)."""
        for key in ("text", "observation", "error", "answer"):
            value = self.payload.get(key)
            if isinstance(value, str):
                return value
        return ""


class GradeRow(_Row):
    id: int
    session_id: int
    answer: str
    parsed_answer: Any = None
    reward: float
    metrics: dict[str, Any] = Field(default_factory=dict)
    grader: str
    grader_version: str
    judge_model: str | None = None
    judge_raw: str | None = None
    extraction: str | None = None
    imported: bool = False
    graded_at: datetime
    protocol: str | None = None


class Annotation(_Row):
    id: int
    session_id: int
    event_seq: int | None = None
    label: str
    note: str = ""
    annotator: str
    created_at: datetime
