"""Domain models of the sessions database: what the rest of the app reads and passes around.

Timestamps are timezone-aware UTC datetimes; JSON columns are decoded into Python values.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from crmarena_tui.tasks.model import Task

if TYPE_CHECKING:
    from crmarena_tui.graders.base import GradingProtocol
    from crmarena_tui.orgs.base import Org

ParticipantKind = Literal["human", "agent"]
SessionStatus = Literal["in_progress", "submitted", "abandoned"]
SessionKind = Literal["attempt", "fork", "takeover"]
AnnotationKind = Literal["label", "note"]
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
    "model_turn",  # an outside agent's model call through the model proxy
]
EVENT_KINDS: frozenset[str] = frozenset(EventKind.__args__)  # type: ignore[attr-defined]
ACTORS: frozenset[str] = frozenset(Actor.__args__)  # type: ignore[attr-defined]
STATUSES: frozenset[str] = frozenset(SessionStatus.__args__)  # type: ignore[attr-defined]
SESSION_KINDS: frozenset[str] = frozenset(SessionKind.__args__)  # type: ignore[attr-defined]


def settings_protocol(settings: dict[str, Any]) -> str:
    """The protocol a session with these settings runs under: the recorded one; an imported
    upstream run's is `upstream`; sessions stored before protocols were recorded: `workbench`."""
    recorded = settings.get("protocol")
    if recorded in ("upstream", "workbench"):
        return str(recorded)
    return "upstream" if settings.get("imported_from") == "upstream" else "workbench"


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
    blind: bool | None  # None: an agent's session (only a human plays blind)
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
    protocol: str = "workbench"  # upstream | workbench (`settings_protocol` of its settings)
    uuid: str = ""  # unique across every copy of the database (`sessions merge` matches by it)
    study_id: int | None = None  # the baseline study it was worked in (studies/), or None
    trial: int = 1  # which of a configuration's attempts at the task (`run --trials K`), from 1

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


@dataclass(frozen=True, slots=True)
class SessionSpec:
    """What a new session is, as one value from the service through the Episode to the store:
    who (`participant`) works which `task` on which `org` (its `kind` and `ref` are recorded),
    under which `protocol` and `settings`, as what `kind` of session (an attempt, or a fork or
    take-over of session `parent_id` after its event `fork_seq`), with the help (`aided`), the
    blind mode, the simulated user (`user`, its name) and the study (`study_id`) it has, and
    which of the configuration's trials of the task it is (`trial`, from 1).

    The session layer records it (`session/episode_log.recorded`: the org's mode and the protocol
    added to the settings, the user's name only in a chat task, blind for a human only) and
    keys it (`resume_key`); the store writes it as it is."""

    task: Task
    org: Org
    participant: Participant
    protocol: GradingProtocol = "upstream"  # graders.base.DEFAULT_PROTOCOL
    settings: dict[str, Any] = field(default_factory=dict)
    kind: SessionKind = "attempt"
    parent_id: int | None = None
    fork_seq: int | None = None
    aided: bool = False
    blind: bool | None = True
    user: str | None = None
    study_id: int | None = None
    trial: int = 1  # the attempt's number among the configuration's trials of the task
    org_today: date | None = None  # an explicit org clock (`session/org_clock.py`); None: default


class Event(_Row):
    """One logged step. `ts` is None when the source recorded no time (imported upstream runs)."""

    session_id: int
    seq: int
    ts: datetime | None = None
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
    """A label from the failure taxonomy (with an optional note), or a free note (`kind` note,
    empty label), by `annotator`, on one step (`event_seq`) or on the whole session (None)."""

    id: int
    session_id: int
    event_seq: int | None = None
    label: str
    note: str = ""
    annotator: str
    created_at: datetime
    kind: AnnotationKind = "label"

    @property
    def level(self) -> str:
        return "session" if self.event_seq is None else "step"


class ListedSession(NamedTuple):
    """One session as the sessions list shows it (`started` is ISO-8601 UTC text). A tuple:
    100,000 of them are made straight from the query's rows."""

    id: int
    task_source: str
    task_idx: int
    task_type: str
    status: str
    kind: str
    parent_id: int | None
    started: str
    active_seconds: float | None
    interactive: int
    org_ref: str
    participant_id: int
    protocol: str
    trial: int = 1  # which of its configuration's attempts at the task (`run --trials K`)

    @property
    def task_key(self) -> tuple[str, int]:
        return (self.task_source, self.task_idx)


@dataclass(frozen=True, slots=True)
class ListExtent:
    """What a sessions list's column widths and protocol note depend on, over all its sessions:
    their number, the largest ids, and the distinct values of the columns shown as text. Read by
    SQL before the rows (`listing.list_extent`: the first frame's columns are those of the whole
    list), or gathered from the rows themselves (`of`)."""

    total: int = 0
    max_id: int = 0
    max_idx: int = 0
    max_parent: int = 0
    participants: frozenset[int] = frozenset()
    kinds: frozenset[str] = frozenset()
    task_types: frozenset[str] = frozenset()
    sources: frozenset[str] = frozenset()
    orgs: frozenset[str] = frozenset()
    statuses: frozenset[str] = frozenset()
    protocols: tuple[tuple[str, int], ...] = ()  # (protocol, sessions), by protocol
    max_trial: int = 1

    @classmethod
    def of(cls, rows: Sequence[ListedSession]) -> ListExtent:
        """Gathered with C-level passes over the rows (a few milliseconds for 20,000)."""

        def column(field: str) -> Iterator[Any]:
            return map(itemgetter(ListedSession._fields.index(field)), rows)

        def distinct(field: str) -> frozenset[Any]:
            return frozenset(column(field))

        if not rows:
            return cls()
        return cls(
            total=len(rows),
            max_id=max(column("id")),
            max_idx=max(distinct("task_idx")),
            max_parent=max(p or 0 for p in distinct("parent_id")),
            participants=distinct("participant_id"),
            kinds=distinct("kind"),
            task_types=distinct("task_type"),
            sources=distinct("task_source"),
            orgs=distinct("org_ref"),
            statuses=distinct("status"),
            protocols=tuple(sorted(Counter(column("protocol")).items())),
            max_trial=max(column("trial")),
        )


@dataclass(frozen=True, slots=True)
class Details:
    """What the list loads only for the sessions on screen."""

    reward: float | None = None
    grader: str = ""
    protocol: str = ""
    labels: int = 0
