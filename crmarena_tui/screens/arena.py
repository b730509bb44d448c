"""What a screen may ask of the app (`Arena`), typed here so that no screen imports the app.

The app (app/app.py, `CrmArenaApp`) composes the screens and provides these services; the
screens reach them through `BaseScreen.arena` and `ScreenPart.arena`, which are the running app
seen through this protocol. The methods marked "blocking" are for workers only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.worker import Worker

    from crmarena_tui.agents.base import UserSimulator
    from crmarena_tui.orgs.base import Org
    from crmarena_tui.screens.play_options import PlayOptions
    from crmarena_tui.session.episode import Episode
    from crmarena_tui.session.service import SessionService
    from crmarena_tui.settings.config import Settings
    from crmarena_tui.storage.models import Participant, Session
    from crmarena_tui.storage.store import Store
    from crmarena_tui.studies.mode import NextStep, StudyMode
    from crmarena_tui.tasks.blind import BlindView
    from crmarena_tui.tasks.index import TaskStatus
    from crmarena_tui.tasks.model import Task
    from crmarena_tui.tasks.table import TaskRow, TaskTable

T = TypeVar("T")


class KeyHold(Protocol):
    """The app's key gate (app/key_gate.py): keys typed while a screen opens wait for it."""

    def hold(self, holder: object, why: str) -> None: ...

    def release(self, holder: object) -> None: ...

    def typed_ahead(self, widget: object) -> bool: ...


class Arena(Protocol):
    """The running app, as its screens see it."""

    options: PlayOptions
    org_factory: Callable[[str], Org] | None
    tasks: TaskTable
    statuses: dict[str, TaskStatus]
    study: StudyMode | None
    blind_view: BlindView
    hidden_labels: bool | None
    participant_name: str | None

    @property
    def key_gate(self) -> KeyHold: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def service(self) -> SessionService: ...

    # -- blocking: workers only -----------------------------------------------------------------

    def sessions_store(self) -> Store: ...

    def named_participant(self) -> Participant: ...

    def revealed_tasks(self) -> set[tuple[str, int]] | None: ...

    def org_for(self, task: Task, session: Session | None = None) -> Org: ...

    def org_call(self, fn: Callable[..., T], *args: Any) -> T: ...

    def start_episode(self, task: Task) -> Episode: ...

    def user_simulator(self) -> UserSimulator: ...

    def study_next_step(self) -> NextStep | None: ...

    # -- on the event loop ----------------------------------------------------------------------

    def shown_tasks(self) -> Sequence[TaskRow]: ...

    def idle_seconds(self) -> float: ...

    def submitted(self, task: Task) -> bool: ...

    def refresh_statuses(self) -> object: ...  # (a worker)

    def in_background(self, fn: Callable[[], object], what: str) -> object: ...  # (a worker)

    def report_worker_error(self, worker: Worker) -> None: ...

    def run_agent(self, task: Task | None, from_screen: Screen | None = None) -> None: ...

    def open_next_task(
        self, after: Task, *, replace: bool = False, task: Task | None = None
    ) -> None: ...

    def open_study(self) -> None: ...
