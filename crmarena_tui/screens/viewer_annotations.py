"""Labels and notes in the trajectory viewer: on a step (`m`, `n`) or on the whole session (`M`,
`N`), signed with the participant's name; `b` hides other annotators' labels. The viewer
(trajectory_viewer.py) derives from this screen and provides the steps and the display."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on, work
from textual.message import Message

from crmarena_tui.screens.base_screen import BaseScreen
from crmarena_tui.screens.label_dialog import LabelChoice, LabelDialog, apply_label
from crmarena_tui.screens.note_dialog import NoteDialog, add_note
from crmarena_tui.widgets.step_list import Step, StepList

if TYPE_CHECKING:
    from crmarena_tui.reports.trajectory import Trajectory
    from crmarena_tui.storage.models import Annotation


class ViewerAnnotations(BaseScreen):
    """The annotation actions of the trajectory viewer."""

    data: Trajectory | None
    steps: list[Step]

    @dataclass
    class Annotated(Message):
        annotations: list[Annotation]

    # -- what the viewer provides ---------------------------------------------------------------

    @property
    def step_list(self) -> StepList:
        raise NotImplementedError

    @property
    def current(self) -> Step | None:
        raise NotImplementedError

    @property
    def hidden(self) -> bool:
        return bool(self.arena.hidden_labels)

    def _show_top(self) -> None:
        raise NotImplementedError

    def _refresh_marks(self) -> None:
        raise NotImplementedError

    def _show_current(self) -> None:
        raise NotImplementedError

    # -- labels and notes -----------------------------------------------------------------------

    def _mine(self, event_seq: int | None) -> set[str]:
        if self.data is None:
            return set()
        return {
            a.label
            for a in self.data.annotations
            if a.annotator == self.data.me and a.event_seq == event_seq
        }

    def _can_annotate(self) -> bool:
        if self.data is None:
            return False
        self.data.me = self.data.me or self.arena.participant_name or ""
        if not self.data.me:
            self.notify(
                "Set your participant name first (--as NAME): it signs your labels.",
                severity="warning",
            )
            return False
        return True

    def action_label_step(self) -> None:
        step = self.current
        if step is None or not self._can_annotate():
            return
        assert self.data is not None
        self.app.push_screen(
            LabelDialog(self.data.taxonomy, f"step {step.index + 1}", self._mine(step.anchor_seq)),
            lambda choice: self._labelled(choice, step.anchor_seq),
        )

    def action_label_session(self) -> None:
        if not self._can_annotate():
            return
        assert self.data is not None
        self.app.push_screen(
            LabelDialog(self.data.taxonomy, f"session {self.data.session.id}", self._mine(None)),
            lambda choice: self._labelled(choice, None),
        )

    def _labelled(self, choice: LabelChoice | None, event_seq: int | None) -> None:
        if choice is not None:
            self.save_label(choice, event_seq)

    @work(thread=True, exit_on_error=False, group="viewer-annotate")
    def save_label(self, choice: LabelChoice, event_seq: int | None) -> None:
        store = self.arena.sessions_store()
        assert self.data is not None
        sid = self.data.session.id
        apply_label(store, sid, self.data.me, choice, event_seq)
        self.post_message(self.Annotated(store.annotations.find(session_id=sid, kind=None)))

    def action_note(self) -> None:
        step = self.current
        if step is None or not self._can_annotate():
            return
        self.app.push_screen(
            NoteDialog(f"step {step.index + 1}"), lambda text: self._noted(text, step.anchor_seq)
        )

    def action_note_session(self) -> None:
        if self._can_annotate():
            assert self.data is not None
            self.app.push_screen(
                NoteDialog(f"session {self.data.session.id}"), lambda text: self._noted(text, None)
            )

    def _noted(self, text: str | None, about_seq: int | None) -> None:
        if text:
            self.save_note(text, about_seq)

    @work(thread=True, exit_on_error=False, group="viewer-annotate")
    def save_note(self, text: str, about_seq: int | None) -> None:
        store = self.arena.sessions_store()
        assert self.data is not None
        sid = self.data.session.id
        add_note(store, sid, self.data.me, text, about_seq)
        self.post_message(self.Annotated(store.annotations.find(session_id=sid, kind=None)))

    @on(Annotated)
    def _annotated(self, event: Annotated) -> None:
        if self.data is None:
            return
        self.data.annotations = event.annotations
        self._refresh_marks()
        self._show_current()

    def action_toggle_hidden(self) -> None:
        self.arena.hidden_labels = not self.hidden
        self.notify(
            "Other annotators' labels and notes are hidden."
            if self.hidden
            else "Every annotator's labels and notes are shown."
        )
        self.refresh_bindings()  # the key bar names the state now on
        if self.data is not None:
            self._show_top()
            self._refresh_marks()
            self._show_current()
