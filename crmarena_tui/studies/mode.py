"""Study mode: one participant of a baseline study works their queue in the app (issue 17).

`crmarena-tui play --study NAME --as a` seats participant `a` at once; without `--as` (and behind
`serve --study`, for every browser connection) the join screen asks for a name and join code.
`open_study` finds the study (`studies/db.py`), refuses a closed one, checks the code when one is
asked for, and returns a `StudyMode`. With it the app:

- lists only the participant's queue, blind, in queue order and numbered 1..N (`view`), each task
  done, in progress or left (`statuses`), and opens only the queue's next task (`refusal`);
- records the study in every session it starts (`session_options`: `sessions.study_id`, and the
  study's name in the settings, so a study attempt never resumes an attempt made outside it);
- ends a task when its active time reaches the study's limit (`time_limit_seconds`; the
  workspace's clock, screens/workspace_clock.py), after a warning a minute before;
- shows grades only when the study says so (`shows_grade`), and after each submit the next step
  (`next_step`): the queue's next task, or "All N tasks done".

No textual import: the app, its screens and the tests read it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from crmarena_tui.studies.db import get_study, next_task, queue_status, seat
from crmarena_tui.studies.joins import JoinRules, check_code
from crmarena_tui.studies.model import Seat, Study, StudyError
from crmarena_tui.tasks.blind import BlindView
from crmarena_tui.tasks.index import TaskStatus

if TYPE_CHECKING:
    from crmarena_tui.storage import Store
    from crmarena_tui.tasks.model import Task
    from crmarena_tui.tasks.table import TaskRow

WARN_SECONDS = 60.0  # the workspace warns this long before the time limit
TIME_LIMIT_REASON = "time limit reached"
STATES: Mapping[str, TaskStatus] = {
    "done": TaskStatus("submitted"),
    "in_progress": TaskStatus("in progress"),
    "left": TaskStatus("new"),
}


def open_study(
    store: Store,
    name: str,
    participant: str,
    code: str | None = None,
    *,
    rules: JoinRules | None = None,
    connection: str | None = None,
) -> StudyMode:
    """`participant`'s seat in study `name`; `code`: their join code must match (the join
    screen: `studies/joins.check_code`, one message for an unknown name or a wrong code, a name
    locked after too many wrong codes, every try logged). Raises `StudyError` (one line for the
    user) for an unknown study or participant, a wrong code or a closed study."""
    study = get_study(store, name)
    if not study.is_open:
        raise StudyError(f"study {name!r} is closed: it takes no more work")
    if code is not None:
        check_code(store, study, participant, code, rules=rules, connection=connection)
    return StudyMode(seat(store, name, participant))


def check_study(store: Store, name: str, participant: str | None) -> Study:
    """Before the app starts (`play --study`): the study, open, and `participant` one of its
    participants when given. Raises `StudyError`."""
    if participant is not None:
        return open_study(store, name, participant).study
    study = get_study(store, name)
    if not study.is_open:
        raise StudyError(f"study {name!r} is closed: it takes no more work")
    return study


@dataclass(frozen=True)
class NextStep:
    """What follows a submit in a study: the queue's next task, or the end of the queue."""

    task: Task | None  # None: every task of the queue is done (or the next one did not load)
    done: int
    total: int

    @property
    def finished(self) -> bool:
        return self.done >= self.total

    def hint(self) -> str:
        """The result screen's last line (plain text)."""
        if self.finished:
            return f"All {self.total} tasks done — thank you. ctrl+q quits."
        if self.task is None:
            return "Your next task is not among the tasks loaded: tell the researcher."
        return f"n: next task ({self.done} of {self.total} done) · escape: back to your tasks"


@dataclass(frozen=True)
class QueueRow:
    """One task of a participant's queue on the study screen (no grade: the screen never shows
    one to a participant)."""

    number: int
    state: str  # done | in_progress | left
    active_seconds: float


@dataclass(frozen=True)
class StudyMode:
    """One participant's seat in an open study, as the app uses it (see the module doc)."""

    seat: Seat

    @property
    def study(self) -> Study:
        return self.seat.study

    @property
    def participant(self) -> str:
        return self.seat.participant

    @property
    def keys(self) -> tuple[str, ...]:
        """The queue as `Task.key`s, in order."""
        return tuple(f"{source}#{idx}" for source, idx in self.seat.queue)

    @property
    def time_limit_seconds(self) -> float | None:
        """Active seconds a task may take (None: no limit)."""
        minutes = self.study.time_limit_minutes
        return None if minutes is None else float(minutes) * 60.0

    def time_limit_source(self) -> str:
        """What set the limit, as `Episode.end` records it (the end reason reads
        "time limit reached (study pilot: 30 min of active time per task)")."""
        minutes = self.study.time_limit_minutes or 0
        return f"study {self.study.name}: {minutes:g} min of active time per task"

    @property
    def shows_grade(self) -> bool:
        """Whether the result screen shows the reward, the comparison and the ground truth."""
        return self.study.show_grade != "never"

    def session_options(self) -> dict[str, Any]:
        """What `SessionService.start` records for a session of this study."""
        return {"study_id": self.study.id, "settings": {"study": self.study.name}}

    def view(self) -> BlindView:
        """Blind, listing the queue in its order, numbered 1..N."""
        return BlindView(enabled=True, seed=self.participant, queue=self.keys)

    def queue_tasks(self, tasks: Iterable[TaskRow]) -> list[TaskRow]:
        """The loaded tasks of the queue, in queue order (a task the source lacks is left out)."""
        by_key = {t.key: t for t in tasks}
        return [by_key[key] for key in self.keys if key in by_key]

    def statuses(self, store: Store) -> dict[str, TaskStatus]:
        """`Task.key` -> the task's state in the queue (no reward: the list never shows one)."""
        return {
            f"{source}#{idx}": STATES[state]
            for (source, idx), state in queue_status(store, self.seat)
        }

    def next_step(self, store: Store, tasks: Sequence[TaskRow]) -> NextStep:
        """Blocking: after a submit, the queue's next task (one in progress first, built in
        full), or none left."""
        states = [state for _, state in queue_status(store, self.seat)]
        key = next_task(store, self.seat)
        by_key = {(t.source, t.idx): t for t in tasks}
        row = by_key.get(key) if key is not None else None
        return NextStep(row.full() if row is not None else None, states.count("done"), len(states))

    def refusal(self, task: Task, statuses: Mapping[str, TaskStatus]) -> str | None:
        """Why `task` may not be opened now (None: it may): a study's tasks are worked in queue
        order (one in progress first), each once."""
        keys = self.keys
        if task.key not in keys:
            return "This task is not in your queue."

        def state(key: str) -> str:
            return statuses.get(key, STATES["left"]).state

        if state(task.key) == "submitted":
            return f"Task {keys.index(task.key) + 1} is done: each task is answered once."
        started = [k for k in keys if state(k) == "in progress"]
        wanted = (started or [k for k in keys if state(k) == "new"])[0]
        if wanted != task.key:
            return f"Please work the tasks in order: next is task {keys.index(wanted) + 1}."
        return None

    def queue_rows(self, store: Store, participant_id: int) -> list[QueueRow]:
        """Blocking: the queue in order, each task's state and the active time of the
        participant's (`participant_id`, their row) attempts on it (an open one's up to its
        last event)."""
        from crmarena_tui.storage.replay import active_seconds

        seconds: dict[tuple[str, int], float] = {}
        for session in store.sessions(participant_id=participant_id):
            if session.study_id != self.study.id or not session.is_attempt:
                continue
            spent = session.active_seconds
            if spent is None or session.status == "in_progress":
                events = store.events(session.id)
                started = session.started_at.timestamp()
                stamps = [e.ts.timestamp() for e in events if e.ts is not None]
                spent = active_seconds(started, events, max(stamps, default=started))
            key = (session.task_source, session.task_idx)
            seconds[key] = seconds.get(key, 0.0) + spent
        return [
            QueueRow(n, state, seconds.get(key, 0.0))
            for n, (key, state) in enumerate(queue_status(store, self.seat), start=1)
        ]
