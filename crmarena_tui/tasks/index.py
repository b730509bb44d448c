"""Fast filtering of a task list: type-ahead text plus facets (no textual import).

The browser keeps one `TaskIndex` for the loaded tasks. Each task gets a lower-case haystack once;
a filter is a handful of substring tests per task, so 10,000 tasks filter in a few milliseconds.
Narrowing a filter (typing one more character) only re-tests the previous matches.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from crmarena_tui.tasks.blind import BlindView
from crmarena_tui.tasks.catalog import BY_NAME

if TYPE_CHECKING:
    from crmarena_tui.tasks.table import TaskHead

State = Literal["new", "in progress", "submitted"]
ANY = ""


@dataclass(frozen=True, slots=True)
class TaskStatus:
    """The participant's standing on one task."""

    state: State = "new"
    reward: float | None = None
    session_id: int | None = None

    @property
    def label(self) -> str:
        if self.state == "submitted":
            return "done" if self.reward is None else f"{self.reward:.2f}"
        return "started" if self.state == "in progress" else ""

    @property
    def queue_label(self) -> str:
        """The status in a study's queue: done, in progress or left (never a reward)."""
        return {"submitted": "done", "in progress": "in progress"}.get(self.state, "left")


NEW = TaskStatus()


@dataclass(frozen=True, slots=True)
class Facets:
    """Facet choices; an empty string means any value. Blind mode offers no type or metric
    facet (`without_hidden`)."""

    task_type: str = ANY
    org_type: str = ANY
    mode: str = ANY  # "interactive" | "single" | ""
    metric: str = ANY
    status: str = ANY  # "new" | "in progress" | "submitted" | ""

    def accepts(self, task: TaskHead, status: TaskStatus) -> bool:
        if self.task_type and task.task != self.task_type:
            return False
        if self.org_type and task.org_type != self.org_type:
            return False
        if self.mode and (task.interactive != (self.mode == "interactive")):
            return False
        if self.metric and task.reward_metric != self.metric:
            return False
        return not (self.status and status.state != self.status)

    def without_hidden(self) -> Facets:
        """These facets with the type and metric choices dropped (blind mode)."""
        return Facets(org_type=self.org_type, mode=self.mode, status=self.status)


def skill_of(task: TaskHead) -> str:
    entry = BY_NAME.get(task.task)
    return entry.skill if entry else ""


@dataclass(slots=True)
class TaskIndex:
    """Filterable view of `tasks`; `statuses` maps `Task.key` to the participant's status.

    With a blind `view` the text filter matches no task type, metric or skill, and `#N` is the
    task's number in the blind list rather than its idx. A chat task's hidden request is never
    matched (the simulated customer reveals it)."""

    tasks: Sequence[TaskHead]
    statuses: Mapping[str, TaskStatus] = field(default_factory=dict)
    view: BlindView = field(default_factory=BlindView)
    _hay: list[str] | None = field(default=None, init=False, repr=False)
    _last: tuple[tuple[str, ...], Facets, list[int]] | None = field(default=None, init=False)

    @property
    def hay(self) -> list[str]:
        """Each task's lower-case haystack, made with the first text filter (not when the rows
        are first shown: 8,560 of them cost a few hundredths of a second)."""
        if self._hay is None:
            self._hay = [self._haystack(t) for t in self.tasks]
        return self._hay

    def _haystack(self, task: TaskHead) -> str:
        mode = "interactive chat multi-turn" if task.interactive else "single-turn"
        query = "" if task.interactive else task.query
        if self.view.enabled:
            return " ".join((f"#{self.view.number(task)}", task.org_type, mode, query)).lower()
        return " ".join(
            (
                f"#{task.idx}",
                task.task,
                task.task.replace("_", " "),
                task.org_type,
                mode,
                task.reward_metric,
                query,
            )
        ).lower()

    def status(self, task: TaskHead) -> TaskStatus:
        return self.statuses.get(task.key, NEW)

    def set_statuses(self, statuses: Mapping[str, TaskStatus]) -> None:
        self.statuses = statuses
        self._last = None

    def filter(self, text: str, facets: Facets = Facets()) -> list[int]:
        """Positions (into `tasks`) of the tasks whose text holds every word of `text`."""
        terms = tuple(text.lower().split())
        if self.view.enabled:
            facets = facets.without_hidden()
        pool: Sequence[int] | range = range(len(self.tasks))
        last = self._last
        if last is not None and last[1] == facets and _narrows(last[0], terms):
            pool = last[2]
        hay = self.hay if terms else []  # no words: no haystack needed
        tasks = self.tasks
        status = self.status
        if facets == Facets():
            out = [i for i in pool if all(t in hay[i] for t in terms)]
        else:
            out = [
                i
                for i in pool
                if all(t in hay[i] for t in terms) and facets.accepts(tasks[i], status(tasks[i]))
            ]
        self._last = (terms, facets, out)
        return out


def _narrows(old: tuple[str, ...], new: tuple[str, ...]) -> bool:
    """True when every match of `new` is a match of `old` (each old term lies inside a new one)."""
    if not old:
        return True
    if len(new) < len(old):
        return False
    return all(o in n for o, n in zip(old, new, strict=False))
