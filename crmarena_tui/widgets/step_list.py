"""A session's event log as steps, and the virtual list that shows them one line each.

A step is what a participant did and what came back: the thoughts (and token usage) leading to an
action, the action (a query or search, a message, the submission) and its result (the observation
or error, the grade). Every message of the user (simulated, or a person playing the user) is a
step of its own, as are events that answer nothing (a format error, a pause, a fork). Annotators'
notes are annotations (`Trajectory.notes`), not steps.

`StepList` renders only the visible lines, so a 500-step trajectory costs no more than a short one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message

from crmarena_tui.orgs.base import error_summary
from crmarena_tui.storage.steps import group_steps, step_number
from crmarena_tui.widgets.cursor_list import CursorList
from crmarena_tui.widgets.step_model import turn_summary

if TYPE_CHECKING:
    from crmarena_tui.storage.models import Event

ICONS = {
    "query": "Q",
    "search": "S",
    "message": ">",
    "user": "<",
    "submit": "✔",
    "grade": "★",
    "thought": "…",
    "usage": "$",
    "error": "✖",
    "note": "✎",
    "pause": "‖",
    "resume": "▶",
    "fork": "⑂",
    "system": "·",
    "observation": "=",
    "browse": "□",
    "compute": "∑",
    "model_turn": "◆",
}


_COUNT = re.compile(r"\s*SELECT\s+COUNT\(\s*\)\s", re.I)


def one_line(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@dataclass(slots=True)
class Step:
    """One step of a trajectory: `events` in log order, `anchor` the event labels attach to."""

    index: int
    kind: str
    anchor: Event
    events: list[Event]

    @property
    def anchor_seq(self) -> int:
        return int(self.anchor.seq)

    @property
    def last_seq(self) -> int:
        """The step's last event: a fork from this step continues after it."""
        return int(self.events[-1].seq)

    @property
    def actor(self) -> str:
        return str(self.anchor.actor)

    @property
    def has_error(self) -> bool:
        return any(ev.kind == "error" for ev in self.events)

    def of_kind(self, *kinds: str) -> list[Event]:
        return [ev for ev in self.events if ev.kind in kinds]

    @property
    def result(self) -> Event | None:
        """The observation or error that answered the step's query or search."""
        found = [
            ev
            for ev in self.events
            if ev.seq > self.anchor.seq
            and (ev.kind == "observation" or (ev.kind == "error" and ev.actor == "system"))
        ]
        return found[0] if found else None

    @property
    def truncated(self) -> dict[str, int]:
        """The texts of the step stored cut (an event's text over the `event_text_limit`
        setting, storage/event_cap.py): field -> its full length in characters."""
        found: dict[str, int] = {}
        for ev in self.events:
            cut = (ev.payload or {}).get("truncated")
            if isinstance(cut, dict):
                found.update({str(k): v for k, v in cut.items() if isinstance(v, int)})
        return found

    @property
    def summary(self) -> str:
        """One line saying what the step did (✂ first when a text of it was stored cut)."""
        line = self._summary()
        return f"✂ {line}" if self.truncated else line

    def _summary(self) -> str:
        anchor, kind = self.anchor, self.kind
        text = one_line(anchor.text, 160)
        if kind in ("query", "search"):
            result = self.result
            if result is None:
                return text
            if result.kind == "error":
                return f"{text}  ✖ {one_line(error_summary(result.text), 60)}"
            size = result.payload.get("total_size")
            if not isinstance(size, int):
                return text
            if _COUNT.match(anchor.text):
                return f"{text}  → count {size:,}"
            return f"{text}  → {size:,} row{'s' if size != 1 else ''}"
        if kind == "submit":
            grade = self.of_kind("grade")
            reward = grade[0].payload.get("reward") if grade else None
            return f"answer: {text}" + (
                f"  ★ {reward:.2f}" if isinstance(reward, int | float) else ""
            )
        if kind == "grade":
            reward = anchor.payload.get("reward")
            return f"graded: {reward:.2f}" if isinstance(reward, int | float) else "graded"
        if kind == "usage":
            tokens = anchor.payload.get("total_tokens")
            return f"usage: {tokens} tokens" if tokens is not None else "token usage"
        if kind == "browse":
            p = anchor.payload
            what = p.get("record_id") or f"{p.get('object', '')} records"
            return f"browse {what}"
        if kind == "system":
            event = anchor.payload.get("event")
            if event == "system_prompt":
                lines = len(anchor.text.splitlines())
                return f"system prompt ({lines} line{'s' if lines != 1 else ''})"
            return str(event).replace("_", " ") if event else (text or "system")
        if kind == "fork":
            p = anchor.payload
            after = p.get("at_step")  # recorded by the fork since forks record it
            after = after if isinstance(after, int) else self.index
            return f"forked from session {p.get('from_session')} after step {after}"
        if kind == "pause" and anchor.payload.get("auto"):  # the workspace's idle pause
            idle = anchor.payload.get("idle_seconds")
            return (
                f"paused: no input for {idle:.0f} s" if isinstance(idle, int | float) else "paused"
            )
        if kind in ("pause", "resume"):
            return (
                "paused"
                if kind == "pause"
                else ("reopened" if anchor.payload.get("reopened") else "resumed")
            )
        if kind == "compute":
            return f"compute: {text}  {compute_outcome(anchor.payload)}"
        if kind == "thought":
            return text or "thought"
        if kind == "model_turn":
            return one_line(turn_summary(anchor.payload), 160)
        return text or kind

    @property
    def haystack(self) -> str:
        """Every text of the step, lower-cased, for search."""
        return "\n".join(ev.text for ev in self.events).casefold()


def compute_outcome(payload: dict[str, Any]) -> str:
    """What a scratch-pane computation gave, in a few words."""
    if "error" in payload:
        return f"✖ {one_line(str(payload['error']), 60)}"
    if "value" in payload:
        return f"= {one_line(str(payload['value']), 60)}"
    rows = payload.get("row_count")
    return f"→ {rows} rows" if isinstance(rows, int) else ""


def _kind_of(event: Event) -> str:
    kind = str(event.kind)
    if kind == "message":
        return "user" if event.actor == "user" else "message"
    if kind == "system" and (event.payload or {}).get("event") == "browse":
        return "browse"
    return kind


def build_steps(events: Sequence[Event]) -> list[Step]:
    """Group a session's events (in log order) into steps (`steps.group_steps`)."""
    return [
        Step(index, _kind_of(anchor), anchor, grouped)
        for index, (anchor, grouped) in enumerate(group_steps(events))
    ]


def step_after(steps: Sequence[Step], seq: int | None) -> int | None:
    """The number (from 1) of the step whose events end at or before event `seq`: a fork made
    "after step N" continues after event `seq`."""
    return step_number([s.last_seq for s in steps], seq)


def pretty_json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


class StepList(CursorList):
    """Steps as one line each. Moving the cursor posts `StepList.Highlighted`."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "step-list--cursor",
        "step-list--error",
        "step-list--dim",
        "step-list--match",
    }
    DEFAULT_CSS = """
    StepList { height: 1fr; overflow-x: hidden; }
    StepList > .step-list--cursor { background: $block-cursor-background; color: $block-cursor-foreground; }
    StepList > .step-list--error { color: $error; }
    StepList > .step-list--dim { color: $text-muted; }
    StepList > .step-list--match { color: $warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("k", "cursor(-1)", "Up", show=False, id="step-list.up"),
        Binding("j", "cursor(1)", "Down", show=False, id="step-list.down"),
    ]
    CURSOR_COMPONENT = "step-list--cursor"

    @dataclass
    class Highlighted(Message):
        step_list: StepList
        index: int

        @property
        def control(self) -> StepList:
            return self.step_list

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.steps: list[Step] = []
        self.marks: dict[int, str] = {}  # step index -> marker text (labels, notes)
        self.matches: set[int] = set()
        self.rewards_hidden = False  # the viewer still has this task open

    def set_steps(self, steps: list[Step], cursor: int = 0) -> None:
        self.steps = steps
        self._line_cache.clear()
        self.virtual_size = Size(240, len(steps))
        self.cursor = max(0, min(cursor, len(steps) - 1)) if steps else 0
        self.refresh()  # new steps: every line (a cursor move repaints only its own two)

    def set_marks(self, marks: dict[int, str]) -> None:
        self.marks = marks
        self._line_cache.clear()
        self.refresh()

    def set_matches(self, matches: set[int]) -> None:
        self.matches = matches
        self._line_cache.clear()
        self.refresh()

    @property
    def current(self) -> Step | None:
        return self.steps[self.cursor] if 0 <= self.cursor < len(self.steps) else None

    @property
    def row_count(self) -> int:
        return len(self.steps)

    def next_where(self, wanted: Callable[[Step], bool]) -> bool:
        """Move to the next step (after the cursor, wrapping) that is `wanted`; False if none."""
        n = len(self.steps)
        for k in range(1, n + 1):
            step = self.steps[(self.cursor + k) % n]
            if wanted(step):
                self.move_to(step.index)
                return True
        return False

    def cursor_moved(self, row: int) -> None:
        if self.steps:
            self.post_message(self.Highlighted(self, row))

    def _segments(self, row: int, selected: bool) -> list[Segment]:
        step = self.steps[row]
        base: Style = (
            self.get_component_rich_style("step-list--cursor") if selected else self.base_style
        )
        if selected:
            text_style = base
        elif step.has_error:
            text_style = self.get_component_rich_style("step-list--error")
        elif step.kind in ("pause", "resume", "system", "usage", "browse", "fork"):
            text_style = self.get_component_rich_style("step-list--dim")
        else:
            text_style = base
        mark = self.marks.get(row, "")
        icon = "✖" if step.has_error else ICONS.get(step.kind, "·")
        head = f"{row + 1:>4} {icon} {step.actor[:5]:<5} "
        found = "◆ " if row in self.matches else ""
        out = [Segment(head, base)]
        if found:
            out.append(
                Segment(
                    found, base if selected else self.get_component_rich_style("step-list--match")
                )
            )
        if mark:
            out.append(
                Segment(
                    f"{mark} ",
                    base if selected else self.get_component_rich_style("step-list--match"),
                )
            )
        summary = step.summary
        if self.rewards_hidden and step.kind == "submit":
            summary = summary.split("  ★")[0]
        out.append(Segment(summary, text_style))
        return out
