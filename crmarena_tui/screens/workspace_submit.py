"""The workspace's submit: the dialog (text, picked items or a decline), grading in a worker,
then the result screen (docs/ARCHITECTURE.md, "The data flow of a submit"); in a study, also the
end of a session at the study's time limit (the clock part's `TimeUp`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on, work
from textual.message import Message

from crmarena_tui.graders.answer_choices import (
    Choice,
    enumeration,
    multiple_allowed,
    session_ids,
)
from crmarena_tui.graders.structured import StructuredAnswer
from crmarena_tui.screens.submit_dialog import SubmitChoice, SubmitDialog
from crmarena_tui.screens.workspace_part import WorkspacePart, WorkspaceState
from crmarena_tui.tasks.catalog import BY_NAME

if TYPE_CHECKING:
    from textual.worker import Worker

    from crmarena_tui.graders import Grade
    from crmarena_tui.studies.mode import NextStep
    from crmarena_tui.widgets.session_clock import SessionClock


class WorkspaceSubmit(WorkspacePart):
    """The answer: asked for, graded, shown on the result screen."""

    @dataclass
    class ChoicesReady(Message):
        """What the submit dialog offers to pick, gathered from the session's log."""

        choices: list[Choice]

    @dataclass
    class Submitted(Message):
        """The answer is submitted and graded; the ground truth may now be shown."""

        grade: Grade
        ground_truth: list[str]
        active_seconds: float
        query_count: int
        next_step: NextStep | None = None  # a study: the queue's next task, or the queue done

    def __init__(
        self, state: WorkspaceState, *, clock: SessionClock, id: str | None = None
    ) -> None:
        """`clock`: the workspace's clock, stopped once the answer is in."""
        super().__init__(state, id=id)
        self.clock = clock
        self.draft_answer = ""  # the text of a dialog left with escape comes back next time
        self.submitting = False

    def start(self) -> None:
        """`ctrl+s`: gather what can be picked, then ask for the answer."""
        if self.episode is None:
            self.not_open()
            return
        if self.submitting or self.state.time_up:
            return
        if self.episode.finished:
            self.notify("This session is already closed.", severity="warning")
            return
        # the keys typed while the choices are gathered go to the dialog, once it is open
        self.arena.key_gate.hold(self, "the submit dialog")
        self.gather_choices()

    @work(thread=True, exclusive=True, exit_on_error=False, group="choices")
    def gather_choices(self) -> None:
        assert self.episode is not None
        task_type = self.task_row.task
        fixed = enumeration(task_type)
        entry = BY_NAME.get(task_type)
        found = session_ids(self.episode.events)
        enum_first = entry is not None and entry.answer_kind in ("state", "month", "stage", "bant")
        self.post_message(self.ChoicesReady([*fixed, *found] if enum_first else [*found, *fixed]))

    @on(ChoicesReady)
    def _choices_ready(self, event: ChoicesReady) -> None:
        event.stop()
        if self.episode is None or self.episode.finished or self.submitting:
            self.arena.key_gate.release(self)
            return
        self.app.push_screen(
            SubmitDialog(
                self.draft_answer,
                interactive=self.task_row.interactive,
                choices=event.choices,
                multiple=multiple_allowed(self.task_row.task),
            ),
            self._confirmed,
        )
        self.arena.key_gate.release(self)  # the next key waits until the dialog has the focus

    def _confirmed(self, answer: SubmitChoice | None) -> None:
        if answer is None or not self.state.accepting:
            return
        if isinstance(answer, str):
            self.draft_answer = answer
        self.submitting = True
        self.note("grading…")
        self.submit_answer(answer)

    @work(thread=True, exclusive=True, exit_on_error=False, group="submit")
    def submit_answer(self, answer: SubmitChoice) -> None:
        assert self.episode is not None
        try:
            if isinstance(answer, StructuredAnswer):
                grade = self.episode.submit(answer.text, structured=answer)
            else:
                grade = self.episode.submit(answer)
        finally:
            self.submitting = False
        self._post_submitted(grade)

    def _post_submitted(self, grade: Grade) -> None:
        """Blocking (workers): the grade and, in a study, what comes next, to the handler."""
        assert self.episode is not None
        self.post_message(
            self.Submitted(
                grade,
                self.episode.ground_truth(),
                self.episode.active_seconds,
                self.episode.query_count,
                next_step=self.arena.study_next_step(),
            )
        )

    def end_at_time_limit(self) -> None:
        """The study's time limit is reached: close what is open over the workspace and end the
        session with no answer, unless one is already being graded (it came in time)."""
        if self.submitting or self.episode is None:
            return
        self.submitting = True
        workspace = self.screen
        while self.app.screen is not workspace and workspace in self.app.screen_stack:
            self.app.pop_screen()  # a dialog: the submit dialog, a cell in full, saving
        self.clock.pause()
        self.note("time limit reached: the session is closed")
        self.end_session()

    @work(thread=True, exclusive=True, exit_on_error=False, group="submit")
    def end_session(self) -> None:
        from crmarena_tui.studies.mode import TIME_LIMIT_REASON

        assert self.episode is not None and self.arena.study is not None
        source = self.arena.study.time_limit_source()
        try:
            grade = self.episode.end(TIME_LIMIT_REASON, source=source)
        finally:
            self.submitting = False
        self._post_submitted(grade)

    @on(Submitted)
    def _submitted(self, event: Submitted) -> None:
        from crmarena_tui.screens.result_screen import ResultScreen

        event.stop()
        self.clock.pause()
        self.arena.refresh_statuses()
        self.app.switch_screen(
            ResultScreen(
                self.task_row,
                event.grade,
                event.ground_truth,
                event.active_seconds,
                event.query_count,
                next_step=event.next_step,
            )
        )

    def worker_failed(self, worker: Worker) -> None:
        self.arena.key_gate.release(self)
        if worker.group == "submit":
            self.note("[red]submission failed[/]")
