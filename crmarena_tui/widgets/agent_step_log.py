"""The live log of an agent run: one entry per step (thought, action, observation summary,
messages to and from the user, grade), newest at the bottom, following the end while it grows."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from textual.containers import VerticalScroll
from textual.widgets import Static

from crmarena_tui.session.agent_driver import StepReport

if TYPE_CHECKING:
    from crmarena_tui.storage.models import Event

LABELS = {
    "execute": "query",
    "respond": "message",
    "submit": "submit",
    "format_error": "format error",
    "model_error": "model error",
    "turn_limit": "turn limit",
    "user_limit": "user turn limit",
    "connector_error": "connector error",
}


def escape(text: str) -> str:
    """`text` shown as it is inside markup (every `[` escaped: JSON output is full of them)."""
    text = text.replace("[", "\\[")
    return text + " " if text.endswith("\\") else text


def clip(text: str, *, lines: int = 6, chars: int = 500) -> str:
    """At most `lines` lines and `chars` characters of `text`, marked when cut."""
    text = (text or "").strip()
    kept = text.splitlines()[:lines]
    short = "\n".join(kept)
    if len(short) > chars:
        short = short[: chars - 1].rstrip()
    return short + (" …" if short != text else "")


def _indent(text: str, prefix: str = "  ") -> str:
    return "\n".join(prefix + line for line in text.splitlines())


def observation_summary(events: Iterable[Event], observation: str | None) -> str:
    """`N records · <the start of the output>`, or the error, from a query step's events."""
    for ev in events:
        if ev.kind == "observation":
            total = ev.payload.get("total_size")
            plural = "" if total == 1 else "s"
            count = f"{total} record{plural} · " if isinstance(total, int) else ""
            shown = escape(clip(observation or ev.text, lines=2, chars=160))
            return f"[green]→[/] {count}[dim]{shown}[/]"
        if ev.kind == "error" and ev.actor == "system":
            return f"[red]→ {escape(clip(ev.text, lines=3))}[/]"
    if not observation:
        return ""
    return f"[dim]→ {escape(clip(observation, lines=2, chars=160))}[/]"


def step_markup(report: StepReport) -> str:
    """The log entry of one step, as Rich markup."""
    step, events = report.step, report.events
    lines: list[str] = []
    for ev in events:  # what happened before the action: the user's opening, model retries
        if ev.kind == "message" and ev.actor == "user" and ev.payload.get("opening"):
            lines.append(f"[b $accent]Customer:[/] {escape(ev.text)}")
        elif (
            ev.kind == "error" and ev.payload.get("source") == "llm" and not ev.payload.get("final")
        ):
            lines.append(
                f"[yellow]model {escape(str(ev.payload.get('error_type')))} "
                f"(attempt {ev.payload.get('attempt')}/{ev.payload.get('max_attempts')}), "
                "retried[/]"
            )
    mark = "" if step.ok else " [red]✗[/]"
    lines.append(f"[b]#{report.index} {LABELS.get(step.action, step.action)}[/]{mark}")
    if step.thought:
        lines.append(f"[dim italic]{escape(_indent(clip(step.thought)))}[/]")
    text = escape(step.text or "")
    if step.action == "execute":
        lines.append(_indent(text))
        summary = observation_summary(events, step.observation)
        if summary:
            lines.append("  " + summary)
    elif step.action == "respond":
        lines.append(f"  [b]Agent:[/] {text}")
        if step.observation is not None:
            lines.append(f"  [b $accent]Customer:[/] {escape(step.observation)}")
    elif step.action == "model_error":
        lines.append(f"  [red]{text}[/]")
    elif step.action == "format_error":
        lines.append(f"  [yellow]{escape(clip(step.text, lines=3, chars=240))}[/]")
    elif step.observation is not None:  # a last message to the user, submitted as the answer
        lines.append(f"  [b]Agent:[/] {text}")
        lines.append(f"  [b $accent]Customer:[/] {escape(step.observation)}")
        if step.grade is None or step.grade.extraction != "ended":
            lines.append("  [dim]submitted as the final answer[/]")
    else:  # submit and the turn limits
        lines.append(f"  [b]Answer:[/] {text or '[dim](none)[/]'}")
    if step.grade is not None:
        reward = float(step.grade.reward)
        colour = "green" if reward >= 1.0 else "yellow" if reward > 0 else "red"
        lines.append(f"  [b {colour}]Reward {reward:.2f}[/]")
        ended = step.grade.metrics.get("end_reason") if step.grade.extraction == "ended" else None
        if ended:
            lines.append(f"  [b]Ended:[/] {escape(str(ended))} [dim](no answer confirmed)[/]")
    return "\n".join(lines)


def history_markup(events: Iterable[Event]) -> str:
    """A compact account of what a resumed session did before this run."""
    lines = []
    for ev in events:
        if ev.kind in ("query", "search"):
            shown = escape(clip(ev.text, lines=2, chars=160))
            lines.append(f"  [b]{ev.actor}[/] {ev.kind}: {shown}")
        elif ev.kind == "message":
            who = "Customer" if ev.actor == "user" else ev.actor.capitalize()
            lines.append(f"  [b]{who}:[/] {escape(clip(ev.text, lines=2, chars=160))}")
        elif ev.kind == "error" and ev.actor == "system":
            lines.append(f"  [red]{escape(clip(ev.text, lines=1, chars=160))}[/]")
    return "\n".join(lines)


class AgentStepLog(VerticalScroll):
    """Entries are `Static`s with class `agent-step` (or `agent-note`)."""

    DEFAULT_CSS = """
    AgentStepLog { padding: 0 1; }
    AgentStepLog > .agent-step { margin-bottom: 1; }
    AgentStepLog > .agent-note { margin-bottom: 1; color: $text-muted; }
    """

    def add_report(self, report: StepReport) -> None:
        self._add(step_markup(report), "agent-step")

    def add_note(self, markup: str) -> None:
        self._add(markup, "agent-note")

    def _add(self, markup: str, classes: str) -> None:
        follow = self.is_vertical_scroll_end or self.max_scroll_y == 0
        self.mount(Static(markup, classes=classes))
        if follow:
            self.call_after_refresh(self.scroll_end, animate=False)

    @property
    def entries(self) -> list[str]:
        """Every entry shown, as plain text."""
        return [str(s.render()) for s in self.query(".agent-step, .agent-note").results(Static)]
