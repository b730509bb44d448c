"""App-wide messages: what workers post when their work is done; handlers update the widgets.

Workers never touch widgets. Each message carries what the handler needs and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from crmarena_tui.graders import Grade
    from crmarena_tui.orgs.base import QueryResult
    from crmarena_tui.orgs.schema import Schema
    from crmarena_tui.session.episode import Episode
    from crmarena_tui.studies.mode import NextStep
    from crmarena_tui.tasks.index import TaskStatus
    from crmarena_tui.tasks.model import Task
    from crmarena_tui.tasks.table import TaskTable
    from crmarena_tui.widgets.record_browser import Request


@dataclass
class TasksLoaded(Message):
    """The task source has loaded (or failed: `error` set, `tasks` empty), as the browser's
    light rows; a file's rows are checked in full after they are shown (`TaskTable.problem`)."""

    source: str
    tasks: TaskTable
    error: str | None = None
    checked: bool = False  # the full check of rows already shown


@dataclass
class StatusesLoaded(Message):
    """The participant's status per task key."""

    statuses: dict[str, TaskStatus]


@dataclass
class ParticipantReady(Message):
    """The sessions database is open and the participant known."""

    name: str


@dataclass
class OrgProgress(Message):
    """Progress of a demo org build: `fraction` in [0, 1], `text` says what is being built."""

    org_type: str
    fraction: float
    text: str = ""


@dataclass
class SettingsLoaded(Message):
    """The settings are read: the `keymap` to apply, and its ids that no binding has."""

    keymap: dict[str, str]
    unknown: list[str]


@dataclass
class StoreOpened(Message):
    """The sessions database is open: its `path`, and what chose it (`origin`)."""

    path: str
    origin: str


@dataclass
class OpenTask(Message):
    """The participant chose a task to work on."""

    task: Task


@dataclass
class NameNeeded(Message):
    """No participant name is known yet: ask for it once."""


@dataclass
class EpisodeReady(Message):
    """The workspace's episode is open (started or resumed); `schema` feeds completion."""

    episode: Episode
    schema: Schema


@dataclass
class QueryDone(Message):
    """A query the participant ran has its result. `token` guards against stale results."""

    token: int
    text: str
    result: QueryResult


@dataclass
class UserSpoke(Message):
    """The simulated user said something (the opening, or a reply); `STOP` ends the dialogue."""

    text: str
    opening: bool = False


@dataclass
class Submitted(Message):
    """The answer is submitted and graded; the ground truth may now be shown."""

    grade: Grade
    ground_truth: list[str]
    active_seconds: float
    query_count: int
    next_step: NextStep | None = None  # a study: the queue's next task, or the queue done


@dataclass
class PageFetched(Message):
    """A page of records for the record browser."""

    request: Request
    result: QueryResult


@dataclass
class RecordFetched(Message):
    """One record and its related lists for the record browser."""

    request: Request
    record: dict[str, Any] | None
    related: dict[str, list[dict[str, Any]]]
