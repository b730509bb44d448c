"""The viewer's Task tab: what the session was asked (the request, the required metadata with its
policy and today's date, the domain details of aided runs), how it ended, and, when the viewer
may see them, the gold answer and the grade's breakdown. Also the readable forms of a grade and
of a system payload the step detail uses (never raw JSON).
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

METRIC_NAMES = (
    ("exact_match", "exact match"),
    ("f1", "F1"),
    ("bleu", "BLEU"),
    ("rouge1", "ROUGE-1"),
    ("rouge2", "ROUGE-2"),
    ("rougeL", "ROUGE-L"),
)
SHOWN_APART = frozenset(
    {"end_reason", "end_source", "infrastructure_error", "run_error", "api_error"}
)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}".rstrip("0").rstrip(".") if value != int(value) else f"{value:.0f}"
    if isinstance(value, list):
        return ", ".join("None" if v is None else str(v) for v in value) or "(empty)"
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_value(v)}" for k, v in value.items())
    return str(value)


def readable(payload: dict[str, Any]) -> str:
    """A payload as `name: value` lines."""
    return "\n".join(f"{key.replace('_', ' ')}: {_value(v)}" for key, v in payload.items())


def _extraction(how: Any) -> str | None:
    if not how:
        return None
    if how == "imported":
        return "reward imported from the result file"
    return f"answer read by {how}"


def parsed_text(parsed: Any) -> str:
    """The grader's reading of the answer: its items, or a plain "no answer extracted" (never the
    word None, which is also a real answer)."""
    if parsed is None or parsed == []:
        return "no answer extracted"
    if isinstance(parsed, list):
        return ", ".join(f"“{p}”" if p is not None else "None" for p in parsed)
    return f"“{parsed}”"


def grade_lines(grade: dict[str, Any]) -> list[RenderableType]:
    """A grade (a grade event's payload, or a stored grade's fields) as lines: the reward, how it
    was graded, the parsed answer and the metrics by name."""
    reward = grade.get("reward")
    won = isinstance(reward, int | float) and reward >= 1
    how = " · ".join(
        str(x)
        for x in (
            grade.get("grader"),
            f"{grade['protocol']} protocol" if grade.get("protocol") else None,
            _extraction(grade.get("extraction")),
            f"judge {grade['judge_model']}" if grade.get("judge_model") else None,
        )
        if x
    )
    shown = f"{reward:.2f}" if isinstance(reward, int | float) else "—"
    lines: list[RenderableType] = [
        Text.assemble(("Grade ", "bold"), (shown, "bold green" if won else "bold red"), f"  {how}"),
        Text(f"parsed answer: {parsed_text(grade.get('parsed_answer'))}"),
    ]
    metrics = dict(grade.get("metrics") or {})
    figures = [
        f"{label} {_value(metrics.pop(name))}" for name, label in METRIC_NAMES if name in metrics
    ]
    rest = {k: v for k, v in metrics.items() if k not in SHOWN_APART}
    if figures or rest:
        lines.append(Text("metrics: " + " · ".join(figures + [readable(rest)] * bool(rest))))
    for name in ("infrastructure_error", "run_error"):
        if metrics.get(name):
            lines.append(Text(f"{name.replace('_', ' ')}: {metrics[name]}", style="red"))
    return lines


class TaskDetail(VerticalScroll):
    """Shows one session's task; `show` takes plain data from the viewer."""

    DEFAULT_CSS = """
    TaskDetail { padding: 0 1; }
    TaskDetail > Static { margin-bottom: 1; }
    """

    def compose(self) -> ComposeResult:
        yield Static("", id="td-task")
        yield Static("", id="td-gold")

    def show(
        self,
        task: dict[str, Any],
        *,
        ended: str,
        grade: dict[str, Any] | None,
        hidden_by: int | None,
    ) -> None:
        """`hidden_by`: the viewer's own open attempt on this task, which withholds the gold
        answer and the grade breakdown."""
        meta = task.get("metadata") or {}
        parts: list[RenderableType] = [
            Text.assemble(
                ("Task ", "bold"),
                f"{str(task.get('task', '')).replace('_', ' ')} #{task.get('idx')} · "
                f"{task.get('org_type', '')} · "
                f"{'chat' if task.get('interactive') else 'single turn'} · "
                f"{task.get('reward_metric', '')} · source {task.get('source', '')}",
            ),
            Text("Request", style="bold"),
            Text(str(task.get("query") or "(no request recorded)")),
            Text("Required metadata (policy, today's date)", style="bold"),
            Text(str(meta.get("required") or "").strip() or "(none recorded)"),
        ]
        if str(meta.get("optional") or "").strip():
            parts.append(Text("Domain details (shown to aided runs)", style="bold"))
            parts.append(Text(str(meta["optional"]).strip()))
        parts.append(Text.assemble(("Ended: ", "bold"), ended))
        self.query_one("#td-task", Static).update(Group(*parts))
        self.query_one("#td-gold", Static).update(self._gold(task, grade, hidden_by))

    @staticmethod
    def _gold(
        task: dict[str, Any], grade: dict[str, Any] | None, hidden_by: int | None
    ) -> RenderableType:
        if hidden_by is not None:
            return Text(
                "Gold answer and grade hidden: you have an unsubmitted attempt on this task "
                f"(session #{hidden_by}). Submit it first.",
                style="yellow",
            )
        gold = task.get("answer")
        lines: list[RenderableType] = [Text.assemble(("Gold answer: ", "bold"), parsed_text(gold))]
        if grade is None:
            lines.append(Text("not graded", style="dim"))
        else:
            lines.append(Text.assemble(("Submitted answer: ", "bold"), str(grade.get("answer"))))
            lines.extend(grade_lines(grade))
        return Group(*lines)
