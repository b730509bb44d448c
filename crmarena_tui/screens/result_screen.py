"""After submitting: the reward, what was compared in words ("You declined; the task expects a
refusal: correct"), the ground truth (revealed only now), metrics, time taken and number of
queries. `n` opens the next task, `escape` goes back to the list; the arrows and page keys
scroll it (at 80x24 the metrics and the hint are below the fold).

In a study (study_mode.py) the title is the blind one, `n` opens the queue's next task (or says the
queue is done), the sessions of the task are not offered, and when the study never shows grades the
screen says only "Submitted" (or that the time limit ended the task) and the next step."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, ClassVar

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from crmarena_tui.graders.explain import compared, expected
from crmarena_tui.screens.base_screen import BaseScreen
from crmarena_tui.tasks.catalog import BY_NAME
from crmarena_tui.tasks.model import Task
from crmarena_tui.widgets.key_footer import KeyFooter
from crmarena_tui.widgets.session_clock import format_seconds

if TYPE_CHECKING:
    from crmarena_tui.graders import Grade
    from crmarena_tui.studies.mode import NextStep


def _metric(value: Any) -> str:
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:.3f}"
    return json.dumps(value) if isinstance(value, dict | list) else str(value)


class ResultScreen(BaseScreen):
    """The grade of one submitted session."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "next_task", "Next task", id="result.next-task"),
        Binding("v", "view_steps", "View steps", id="result.view-steps"),
        Binding("s", "sessions", "Sessions of task", id="result.sessions"),
        Binding("escape", "back", "Tasks", id="result.back"),
    ]
    AUTO_FOCUS = "#result-body"  # up, down, pageup, pagedown, home, end scroll it at once

    def __init__(
        self,
        task: Task,
        grade: Grade,
        ground_truth: list[str],
        active_seconds: float,
        query_count: int,
        *,
        session_id: int | None = None,
        next_step: NextStep | None = None,
    ) -> None:
        """`session_id`: the graded session (`v` shows it; default: the participant's latest
        session on the task); `next_step`: a study's next task, or the queue done."""
        super().__init__()
        self.session_id = session_id
        self.next_step = next_step
        self.task_done = task
        self.grade = grade
        self.ground_truth = ground_truth
        self.active_seconds = active_seconds
        self.query_count = query_count

    @property
    def grade_shown(self) -> bool:
        """False in a study that never shows grades."""
        study = self.arena.study
        return study is None or study.shows_grade

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A study: no other participants' sessions; no steps (with their grade) if hidden."""
        if self.arena.study is not None and action in ("sessions", "view_steps"):
            return action == "view_steps" and self.grade_shown
        return super().check_action(action, parameters)

    def _hint(self) -> str:
        if self.next_step is not None:
            return escape(self.next_step.hint())
        return "n: next task · escape: back to the tasks"

    def compose(self) -> ComposeResult:
        if not self.grade_shown:
            yield from self._compose_submitted()
            return
        task, grade = self.task_done, self.grade
        entry = BY_NAME.get(task.task)
        reward = float(grade.reward)
        verdict = (
            "[b green]correct[/]"
            if reward >= 1.0
            else ("[b yellow]partly right[/]" if reward > 0 else "[b red]not correct[/]")
        )
        with VerticalScroll(id="result-body"):
            yield Static(
                self.arena.blind_view.heading(task)  # a study: blind after the submit too
                if self.arena.study is not None
                else f"[b]{entry.label if entry else task.task}[/] [dim]#{task.idx} · "
                f"{task.org_type} · {task.reward_metric}[/]",
                id="result-title",
            )
            if grade.metrics.get("end_reason"):
                yield Static(f"[b]{escape(self._ended())}[/]", id="result-ended")
            yield Static(f"Reward [b]{reward:.2f}[/]  {verdict}", id="result-reward")
            with Vertical(id="result-facts"):
                yield Static(f"[b]Submitted answer[/]\n{escape(grade.answer)}", id="result-answer")
                metric = grade.grader
                yield Static(
                    f"[b]What was compared[/] [dim]({escape(grade.extraction)})[/]\n"
                    f"{escape(compared(grade, metric, self.ground_truth))}",
                    id="result-parsed",
                )
                yield Static(
                    f"[b]Ground truth[/]\n{escape(expected(metric, self.ground_truth))}",
                    id="result-truth",
                )
                metrics = "\n".join(
                    f"  {escape(k)}: {escape(_metric(v))}" for k, v in sorted(grade.metrics.items())
                )
                grader = f" [dim]grader {escape(grade.grader)} {escape(grade.grader_version)}[/]"
                yield Static(
                    f"[b]Metrics[/]{'' if self.arena.study else grader}\n{metrics or '  —'}",
                    id="result-metrics",
                )  # a study names no metric (blind: the grader is the task's metric)
                yield Static(
                    f"[b]Time[/] {format_seconds(self.active_seconds)}   "
                    f"[b]Queries[/] {self.query_count}",
                    id="result-stats",
                )
            yield Static(f"[dim]{self._hint()}[/]", id="result-hint")
        yield KeyFooter()

    def _ended(self) -> str:
        reason = str(self.grade.metrics.get("end_reason", ""))
        return f"{reason[:1].upper()}{reason[1:]}: the task ended with no answer."

    def _compose_submitted(self) -> ComposeResult:
        """A study that never shows grades: no reward, no ground truth, no comparison."""
        ended = bool(self.grade.metrics.get("end_reason"))
        with VerticalScroll(id="result-body"):
            yield Static(self.arena.blind_view.heading(self.task_done), id="result-title")
            yield Static(escape(self._ended()) if ended else "Submitted", id="result-reward")
            yield Static(
                f"[b]Time[/] {format_seconds(self.active_seconds)}   "
                f"[b]Queries[/] {self.query_count}",
                id="result-stats",
            )
            yield Static(f"[dim]{self._hint()}[/]", id="result-hint")
        yield KeyFooter()

    def action_next_task(self) -> None:
        step = self.next_step
        if step is None:
            self.arena.open_next_task(self.task_done, replace=True)
        elif step.task is None:
            self.notify(step.hint(), title="Study")
        else:
            self.arena.open_next_task(self.task_done, replace=True, task=step.task)

    def action_view_steps(self) -> None:
        """This session step by step (an agent's run: the agent's session)."""
        from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer

        task = self.task_done
        if self.session_id is not None:
            self.app.push_screen(TrajectoryViewer(self.session_id))
        else:
            self.app.push_screen(TrajectoryViewer(task_key=(task.source, task.idx)))

    def action_sessions(self) -> None:
        """Every session of this task: compare yours with the others."""
        from crmarena_tui.screens.sessions_screen import SessionsScreen

        task = self.task_done
        self.app.push_screen(SessionsScreen((task.source, task.idx), title=f"task #{task.idx}"))

    def action_back(self) -> None:
        self.app.pop_screen()
