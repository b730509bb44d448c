"""A baseline study and one participant's place in it: plain frozen data, no heavy imports."""

from __future__ import annotations

from dataclasses import dataclass

from crmarena_tui.errors import UserError

TaskKey = tuple[str, int]  # (task source, task idx) as sessions store them (Task.source, Task.idx)

SHOW_GRADE = ("after-submit", "never")
STUDY_STATUSES = ("open", "closed")


class StudyError(UserError):
    """A study cannot be created, found, joined or imported; `str(e)` is one line for the user."""


@dataclass(frozen=True)
class Study:
    id: int
    name: str
    tasks: str  # the --tasks source spec as given ("demo", "demo:small", "hf:b2b", a file path)
    org: str | None  # --org as given; None: each task's own org
    per_task: int  # K: how many different participants work each task
    seed: int
    time_limit_minutes: float | None  # per task, active time
    show_grade: str  # "after-submit" | "never"
    status: str  # "open" | "closed"
    created_at: float  # unix seconds
    uuid: str = ""  # the same in every copy of the study (export/import, merge)

    @property
    def is_open(self) -> bool:
        return self.status == "open"


@dataclass(frozen=True)
class Seat:
    """One participant of a study: their join code and their queue of tasks in order."""

    study: Study
    participant: str
    join_code: str
    queue: tuple[TaskKey, ...]
