"""Blind mode: what the task browser may show of a task before the participant has submitted it.

In blind mode (`--blind`, the `blind` setting) the browser hides each task's type and metric (a
`privacy_rejection` label tells the expert to refuse), lists the tasks in a neutral order (a
shuffle seeded by the participant's name, so it is the same every time they open the app) and
numbers them 1..N instead of showing the dataset's idx (real tasks are numbered by type). In a
study (`--study`) the list is the participant's queue, in the study's order (`queue`).

A chat task's request is hidden in both modes: the simulated customer reveals it in the
conversation, so neither the list nor the filter may show or match it.

No textual import: the browser, the task index and the workspace title all read this module.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from crmarena_tui.tasks.catalog import BY_NAME

BLIND_REFUSAL = "Blind mode: {what} shows answers; submit this task first."  # what is refused

if TYPE_CHECKING:
    from crmarena_tui.tasks.table import TaskHead

T = TypeVar("T", bound="TaskHead")

CHAT_REQUEST = "(chat: the customer tells you what they need)"


def shown_query(task: TaskHead) -> str:
    """The request as the task list shows it: a chat task's hidden request never appears."""
    return CHAT_REQUEST if task.interactive else " ".join(task.query.split())


def neutral_order(tasks: Sequence[T], seed: str) -> list[T]:
    """`tasks` shuffled by a hash of `seed` and each task's key: the same seed always gives the
    same order, and adding a task does not move the others relative to each other."""

    def rank(task: T) -> bytes:
        return hashlib.sha256(f"{seed}\0{task.key}".encode()).digest()

    return sorted(tasks, key=rank)


@dataclass(slots=True)
class BlindView:
    """How tasks are listed and titled: `enabled` hides type, metric and idx (see module doc);
    `queue` (task keys, a study's order for one participant) lists only those tasks, in order."""

    enabled: bool = False
    seed: str = ""
    queue: tuple[str, ...] = ()
    _numbers: dict[str, int] = field(default_factory=dict, repr=False)

    @classmethod
    def decide(cls, blind: bool | None, participant: str | None) -> BlindView:
        """Blind mode from `--blind`/`--no-blind` (`blind`), else the `blind` setting, read
        without loading the settings (the app's task rows come first); the order is seeded by
        the participant's name (else the `participant` setting)."""
        from crmarena_tui.settings.config_file import quick_setting

        enabled = bool(quick_setting("blind")) if blind is None else blind
        name = participant or quick_setting("participant")
        return cls(enabled=enabled, seed=str(name or ""))

    def arrange(self, tasks: Sequence[T]) -> list[T]:
        """The tasks in the order the browser lists them (numbered from 1 in blind mode)."""
        if not self.enabled:
            self._numbers = {}
            return list(tasks)
        if self.queue:
            position = {key: i for i, key in enumerate(self.queue)}
            ordered = sorted((t for t in tasks if t.key in position), key=lambda t: position[t.key])
        else:
            ordered = neutral_order(tasks, self.seed)
        self._numbers = {t.key: i for i, t in enumerate(ordered, start=1)}
        return ordered

    def number(self, task: TaskHead) -> str:
        """What the `#` column shows: the position in blind mode, else the dataset's idx."""
        if self.enabled:
            n = self._numbers.get(task.key)
            return str(n) if n is not None else "?"
        return str(task.idx)

    def heading(self, task: TaskHead) -> str:
        """A task's title as Rich markup: `Task 12 · b2b · chat` in blind mode, else its type
        label, idx, org and mode."""
        from rich.markup import escape  # (the task's own text is shown, never read as markup)

        mode = " · interactive" if task.interactive else ""
        org = escape(str(task.org_type))
        if self.enabled:
            return f"[b]Task {self.number(task)}[/] [dim]{org}{mode}[/]"
        entry = BY_NAME.get(task.task)
        label = escape(entry.label if entry else str(task.task))
        return f"[b]{label}[/] [dim]#{task.idx} · {org}{mode}[/]"
