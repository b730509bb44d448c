"""The app's messages: what its own workers post when their work is done (the task rows, the
store, the participant, a demo org's build); its handlers update the browser. A screen's or a
part's messages are nested in its class (screens/screen_part.py).

Workers never touch widgets. Each message carries what the handler needs and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from crmarena_tui.tasks.index import TaskStatus
    from crmarena_tui.tasks.table import TaskTable


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
class NameNeeded(Message):
    """No participant name is known yet: ask for it once."""
