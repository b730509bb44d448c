"""The workspace's submit: the dialog (text, picked items or a decline), grading in a worker,
then the result screen (docs/ARCHITECTURE.md, "The data flow of a submit"); in a study, also the end of a session at
the study's time limit (workspace_clock.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on, work
from textual.message import Message

from crmarena_tui.app.messages import Submitted
from crmarena_tui.graders.answer_choices import (
    Choice,
    enumeration,
    multiple_allowed,
    session_ids,
)
from crmarena_tui.graders.structured import StructuredAnswer
from crmarena_tui.screens.submit_dialog import SubmitChoice, SubmitDialog
from crmarena_tui.screens.workspace_chat import WorkspaceChat
from crmarena_tui.tasks.catalog import BY_NAME

if TYPE_CHECKING:
    from crmarena_tui.graders import Grade


@dataclass
class ChoicesReady(Message):
    """What the submit dialog offers to pick, gathered from the session's log."""

    choices: list[Choice]


class WorkspaceSubmit(WorkspaceChat):
    """The submit half of the workspace."""

    draft_answer = ""
    _submitting = False

    def action_submit(self) -> None:
        if self.episode is None:
            self.not_open()
            return
        if self._submitting or self.time_up:
            return
        if self.episode.finished:
            self.notify("This session is already closed.", severity="warning")
            return
        self.gather_choices()

    @work(thread=True, exclusive=True, exit_on_error=False, group="choices")
    def gather_choices(self) -> None:
        assert self.episode is not None
        task_type = self.task_row.task
        fixed = enumeration(task_type)
        entry = BY_NAME.get(task_type)
        found = session_ids(self.episode.events)
        enum_first = entry is not None and entry.answer_kind in ("state", "month", "stage", "bant")
        self.post_message(ChoicesReady([*fixed, *found] if enum_first else [*found, *fixed]))

    @on(ChoicesReady)
    def _choices_ready(self, event: ChoicesReady) -> None:
        if self.episode is None or self.episode.finished or self._submitting:
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

    def _confirmed(self, answer: SubmitChoice | None) -> None:
        if answer is None or not self.accepting:
            return
        if isinstance(answer, str):
            self.draft_answer = answer
        self._submitting = True
        self._show_state("grading…")
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
            self._submitting = False
        self._post_submitted(grade)

    def _post_submitted(self, grade: Grade) -> None:
        """Blocking (workers): the grade and, in a study, what comes next, to the handler."""
        from crmarena_tui.app.study import next_step

        assert self.episode is not None
        self.post_message(
            Submitted(
                grade,
                self.episode.ground_truth(),
                self.episode.active_seconds,
                self.episode.query_count,
                next_step=next_step(self.arena),
            )
        )

    def end_at_time_limit(self) -> None:
        """The study's time limit is reached: close what is open over the workspace and end the
        session with no answer, unless one is already being graded (it came in time)."""
        if self._submitting or self.episode is None:
            return
        self._submitting = True
        while self.app.screen is not self and self in self.app.screen_stack:
            self.app.pop_screen()  # a dialog: the submit dialog, a cell in full, saving
        self.clock.pause()
        self._show_state("time limit reached: the session is closed")
        self.end_session()

    @work(thread=True, exclusive=True, exit_on_error=False, group="submit")
    def end_session(self) -> None:
        from crmarena_tui.studies.mode import TIME_LIMIT_REASON

        assert self.episode is not None and self.arena.study is not None
        source = self.arena.study.time_limit_source()
        try:
            grade = self.episode.end(TIME_LIMIT_REASON, source=source)
        finally:
            self._submitting = False
        self._post_submitted(grade)

    @on(Submitted)
    def _submitted(self, event: Submitted) -> None:
        from crmarena_tui.screens.result_screen import ResultScreen
        from crmarena_tui.widgets.session_clock import SessionClock

        self.query_one("#clock", SessionClock).pause()
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
