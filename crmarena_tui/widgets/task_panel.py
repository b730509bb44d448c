"""The task as the participant may see it: the request, the required context, and more by mode.

Single-turn tasks show the query. Interactive tasks hide it (the simulated user reveals the need in
the chat) and show who the participant is talking to (the simulator's persona, told in the third
person: `about_the_customer`). `metadata.optional` shows only when aided.
The ground truth is never part of what this panel is given.
"""

from __future__ import annotations

import re
import textwrap

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown, Static

from crmarena_tui.tasks.catalog import BY_NAME
from crmarena_tui.tasks.model import Task


def _clean(text: str) -> str:
    return textwrap.dedent(text.strip("\n")).strip()


# The simulator's persona speaks to the simulator ("You are impatient ..."); the panel tells the
# participant about the customer instead ("They are impatient ..."). Whole words, case kept.
_PERSON = {
    "you are": "they are",
    "you're": "they're",
    "you were": "they were",
    "yourself": "themselves",
    "yours": "theirs",
    "your": "their",
}
_OBJECT = re.compile(  # "you" as an object: after a preposition or a verb, or before a stop
    r"\b(to|for|with|about|at|from|of|"
    r"(?:tell|give|help|ask|let|make|show|keep|want|expect|bother|thank|call|serve)(?:s|ed)?)"
    r"\s+you\b|\byou(?=\s*[.,;:!?]|\s*$)",
    re.IGNORECASE,
)
_SECOND = re.compile(r"\b(" + "|".join(map(re.escape, _PERSON)) + r"|you)\b", re.IGNORECASE)


def _cased(word: str, like: str) -> str:
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


def about_the_customer(persona: str) -> str:
    """The persona as a description of the customer (third person), not an instruction to the
    simulator (second person): "You are a busy customer who wants ..." -> "They are a busy
    customer who wants ..."."""
    text = _OBJECT.sub(lambda m: f"{m.group(1)} them" if m.group(1) else "them", persona)
    return _SECOND.sub(lambda m: _cased(_PERSON.get(m.group(0).lower(), "they"), m.group(0)), text)


def task_markdown(task: Task, *, aided: bool) -> str:
    """The panel's text for `task` (which holds no ground truth)."""
    parts: list[str] = []
    context = task.metadata.required.strip()
    if task.interactive:
        # The policy and today's date first: this panel is the chat's fixed header.
        if context:
            parts.append("## Context\n" + _clean(task.metadata.required))
        if task.persona.strip():
            parts.append("## Who you are talking to\n" + about_the_customer(_clean(task.persona)))
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
