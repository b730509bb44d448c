"""The trajectory viewer's annotations part: labels and notes on a step (`m`, `n`) or on the whole
session (`M`, `N`), signed with the participant's name; `b` hides other annotators' labels.

A part of the viewer (screens/screen_part.py): it owns the workers that save them (group
`viewer-annotate`), which post `Annotated` with the session's annotations as stored now; it keeps
them in the feed's trajectory, and the viewer (screens/trajectory_viewer.py) redraws its marks.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from rich.markup import escape
from textual import on
from textual.message import Message

from crmarena_tui.screens.label_dialog import LabelChoice, LabelDialog, apply_label
from crmarena_tui.screens.note_dialog import NoteDialog, add_note
from crmarena_tui.screens.screen_part import ScreenPart

if TYPE_CHECKING:
    from crmarena_tui.reports.trajectory import Trajectory
    from crmarena_tui.screens.viewer_feed import ViewerFeed
    from crmarena_tui.storage.models import Annotation
    from crmarena_tui.storage.store import Store
    from crmarena_tui.widgets.step_list import Step


class ViewerAnnotations(ScreenPart):
    """Labels and notes on the session `feed` holds."""

    @dataclass
    class Annotated(Message):
        """The session's annotations as stored now (kept in the feed's trajectory)."""

        annotations: list[Annotation]

    def __init__(self, feed: ViewerFeed, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.feed = feed

    @property
    def hidden(self) -> bool:
        """Whether other annotators' labels and notes are hidden (the app's choice, `b`)."""
        return bool(self.arena.hidden_labels)

    def toggle_hidden(self) -> None:
        self.arena.hidden_labels = not self.hidden
        self.notify(
            "Other annotators' labels and notes are hidden."
            if self.hidden
            else "Every annotator's labels and notes are shown."
        )

    def session_line(self) -> str:
        """The status line's account of the session's own labels and notes (rich markup)."""
        data = self.feed.data
        assert data is not None
        labels = [a for a in data.labels(self.hidden) if a.event_seq is None]
        notes = data.notes(None, self.hidden)
        bits = [
            f"⚑ {escape(a.label)} [dim]({escape(a.annotator)})[/]"
            + (f" {escape(a.note)}" if a.note else "")
            for a in labels
        ]
        bits += [f"✎ {escape(n.note)} [dim]({escape(n.annotator)})[/]" for n in notes]
        line = (
            "[b]Session:[/] " + " · ".join(bits)
            if bits
            else "[dim]No session labels (M: label the session)[/]"
        )
        suggested = self.suggestion_line()
        return f"{line}  {suggested}" if suggested else line

    def suggestion_line(self) -> str:
        """Scanners' suggestions (crmarena-tui scan), set apart from labels, each with its model
        and scan; in hidden-labels mode only where the annotator has saved a label of their own."""
        data = self.feed.data
        assert data is not None
        found = data.shown_suggestions(self.hidden)
        if not found:
            return ""
        from crmarena_tui.storage.steps import group_steps

        number = {
            ev.seq: i for i, (_, evs) in enumerate(group_steps(data.events), start=1) for ev in evs
        }
        bits = [
            f"◇ {escape(s.label or str(s.answer))}"
            + (f" step {number.get(s.event_seq, '?')}" if s.event_seq is not None else "")
            + f" [dim]({escape(s.provenance)})[/] [i]{escape(s.reason)}[/]"
            for s in found
        ]
        return "[b]Suggested:[/] " + " · ".join(bits)

    # -- labels and notes -----------------------------------------------------------------------

    def _signer(self) -> Trajectory | None:
        """The trajectory, once the participant's name (which signs annotations) is known."""
        data = self.feed.data
        if data is None:
            return None
        data.me = data.me or self.arena.participant_name or ""
        if not data.me:
            self.notify(
                "Set your participant name first (--as NAME): it signs your labels.",
                severity="warning",
            )
            return None
        return data

    def _mine(self, data: Trajectory, event_seq: int | None) -> set[str]:
        return {
            a.label for a in data.annotations if a.annotator == data.me and a.event_seq == event_seq
        }

    def label(self, step: Step | None) -> None:
        """Ask for labels on `step` (the session when None) and save the choice."""
        data = self._signer()
        if data is None:
            return
        seq = step.anchor_seq if step is not None else None
        what = f"step {step.index + 1}" if step is not None else f"session {data.session.id}"
        self.app.push_screen(
            LabelDialog(data.taxonomy, what, self._mine(data, seq)),
            lambda choice: self._labelled(choice, seq),
        )

    def _labelled(self, choice: LabelChoice | None, event_seq: int | None) -> None:
        if choice is not None:
            self._save(partial(self._save_label, choice, event_seq))

    def note(self, step: Step | None) -> None:
        """Ask for a note on `step` (the session when None) and save it."""
        data = self._signer()
        if data is None:
            return
        seq = step.anchor_seq if step is not None else None
        what = f"step {step.index + 1}" if step is not None else f"session {data.session.id}"
        self.app.push_screen(NoteDialog(what), lambda text: self._noted(text, seq))

    def _noted(self, text: str | None, about_seq: int | None) -> None:
        if text:
            self._save(partial(self._save_note, text, about_seq))

    def _save(self, work: partial[None]) -> None:
        self.run_worker(work, "save", "viewer-annotate", thread=True, exit_on_error=False)

    def _save_label(self, choice: LabelChoice, event_seq: int | None) -> None:
        """Blocking (worker thread)."""
        store = self.arena.sessions_store()
        data = self.feed.data
        assert data is not None
        apply_label(store, data.session.id, data.me, choice, event_seq)
        self._post_stored(store, data)

    def _save_note(self, text: str, about_seq: int | None) -> None:
        """Blocking (worker thread)."""
        store = self.arena.sessions_store()
        data = self.feed.data
        assert data is not None
        add_note(store, data.session.id, data.me, text, about_seq)
        self._post_stored(store, data)

    def _post_stored(self, store: Store, data: Trajectory) -> None:
        found = store.annotations.find(session_id=data.session.id, kind=None)
        self.post_message(self.Annotated(found))

    @on(Annotated)
    def _take(self, event: Annotated) -> None:  # then on to the viewer, when a session is shown
        if self.feed.data is None:
            event.stop()
            return
        self.feed.data.annotations = event.annotations
