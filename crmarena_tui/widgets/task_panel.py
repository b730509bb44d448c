"""The task as the participant may see it: the request, the required context, and more by mode.

Single-turn tasks show the query. Interactive tasks hide it (the simulated user reveals the need in
the chat) and show who the participant is talking to. `metadata.optional` shows only when aided.
The ground truth is never part of what this panel is given.
"""

from __future__ import annotations

import textwrap

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown, Static

from crmarena_tui.tasks.catalog import BY_NAME
from crmarena_tui.tasks.model import Task


def _clean(text: str) -> str:
    return textwrap.dedent(text.strip("\n")).strip()


def task_markdown(task: Task, *, aided: bool) -> str:
    """The panel's text for `task` (which holds no ground truth)."""
    parts: list[str] = []
    context = task.metadata.required.strip()
    if task.interactive:
        # The policy and today's date first: this panel is the chat's fixed header.
        if context:
            parts.append("## Context\n" + _clean(task.metadata.required))
        if task.persona.strip():
            parts.append("## Who you are talking to\n" + _clean(task.persona))
        parts.append(
            "## Conversation\nThe person you help explains what they need in the chat below. "
            "Ask, query the org, and answer them there; submit your final answer with "
            "ctrl+s."
        )
    else:
        parts.append("## Request\n" + _clean(task.query))
        if context:
            parts.append("## Context\n" + _clean(task.metadata.required))
    if aided and task.metadata.optional.strip():
        parts.append("## Domain details (aided)\n" + _clean(task.metadata.optional))
    return "\n\n".join(parts)


class TaskPanel(VerticalScroll):
    """Scrollable task description."""

    def __init__(
        self, task: Task, *, aided: bool, heading: str | None = None, id: str | None = None
    ) -> None:
        """`heading`: the title to show instead of the task's type, idx and metric (blind
        mode: `tasks.blind.BlindView.heading`)."""
        super().__init__(id=id)
        self.task_shown = task
        self.aided = aided
        self.heading = heading

    def compose(self) -> ComposeResult:
        task = self.task_shown
        entry = BY_NAME.get(task.task)
        kind = entry.label if entry else task.task
        mode = "interactive" if task.interactive else "single-turn"
        yield Static(
            self.heading
            or f"[b]{kind}[/]  [dim]#{task.idx} · {task.org_type} · {mode} · "
            f"{task.reward_metric}[/]",
            id="task-title",
        )
        yield Markdown(task_markdown(task, aided=self.aided), id="task-text")
