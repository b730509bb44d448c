"""The study screen (`f7` in the task browser, or "Study" in the command palette).

A participant in study mode sees their own queue: each task's number, whether it is done, in
progress or left, and their active time on it; never a grade, whatever the study shows after a
submit. The researcher (the app opened without `--study`, not in blind mode) picks one of the
database's studies and sees, per participant, the tasks done, in progress and left with their
active time, and the study's completion (as `crmarena-tui study status` prints them), then the
study's report (`crmarena-tui study report`: accuracy per task type with its interval, time,
agreement between experts, agents beside).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import OptionList, Static

from crmarena_tui.screens.base_screen import BaseScreen
from crmarena_tui.widgets.key_footer import KeyFooter

if TYPE_CHECKING:
    from textual.worker import Worker

    from crmarena_tui.storage import Store
    from crmarena_tui.studies.mode import StudyMode
    from crmarena_tui.studies.model import Study

STATE_WORDS = {"done": "done", "in_progress": "in progress", "left": "left"}


def describe(study: Study) -> str:
    """One line of Rich markup: the study's name, tasks, K, limit, grades and status."""
    limit = (
        f"{study.time_limit_minutes:g} min per task"
        if study.time_limit_minutes
        else "no time limit"
    )
    grades = "grades never shown" if study.show_grade == "never" else "grades after submit"
    return (
        f"[b]Study {escape(study.name)}[/] [dim]· {escape(study.tasks)} · {study.per_task} per "
        f"task · {limit} · {grades} · {study.status}[/]"
    )


def queue_view(store: Store, mode: StudyMode, participant_id: int) -> RenderableType:
    """Blocking: a participant's own queue (no grade)."""
    from crmarena_tui.studies.progress import format_seconds

    rows = mode.queue_rows(store, participant_id)
    table = Table("Task", "Status", "Active time", title=f"Your tasks ({mode.participant})")
    for row in rows:
        table.add_row(str(row.number), STATE_WORDS[row.state], format_seconds(row.active_seconds))
    done = sum(r.state == "done" for r in rows)
    total = sum(r.active_seconds for r in rows)
    summary = f"{done} of {len(rows)} done · active time {format_seconds(total)}"
    return Group(table, summary)


def researcher_view(store: Store, study: Study) -> RenderableType:
    """Blocking: every participant's progress in `study`, its completion, then its report."""
    from crmarena_tui.studies.progress import completion, format_seconds, study_progress
    from crmarena_tui.studies.report import build_study_report
    from crmarena_tui.studies.text import render_study_report

    rows = study_progress(store, study)
    table = Table("Participant", "Done", "In progress", "Left", "Active time", title="Progress")
    for r in rows:
        table.add_row(
            r.participant,
            str(r.done),
            str(r.in_progress),
            str(r.left),
            format_seconds(r.active_seconds),
        )
    assigned = sum(r.assigned for r in rows)
    share = completion(rows)
    summary = f"Completion: {sum(r.done for r in rows)} of {assigned} done ({share:.0%})"
    report = Text(render_study_report(build_study_report(store, study)), no_wrap=True)
    return Group(table, summary, "", report)


class StudyScreen(BaseScreen):
    """A participant's queue, or the researcher's view of a study (see the module doc)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f5", "reload", "Refresh", id="study.reload"),
        Binding("escape", "back", "Back", id="study.back"),
    ]

    @dataclass
    class Loaded(Message):
        title: str
        body: RenderableType
        studies: list[str] = field(default_factory=list)  # the researcher's choice

    def __init__(self) -> None:
        super().__init__()
        self.chosen: str | None = None

    def compose(self) -> ComposeResult:
        yield Static("[dim]reading the study…[/]", id="study-title")
        with Horizontal(id="study-main"):
            yield OptionList(id="study-list")
            with VerticalScroll(id="study-body"):
                yield Static("", id="study-tables")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#study-list", OptionList).display = False  # shown for several studies
        self.load(None)

    @work(thread=True, exclusive=True, exit_on_error=False, group="study-load")
    def load(self, name: str | None) -> None:
        from crmarena_tui.studies.db import list_studies

        arena = self.arena
        store = arena.sessions_store()
        if arena.study is not None:  # a participant: their own queue only
            person = arena.named_participant()
            body = queue_view(store, arena.study, person.id)
            self.post_message(self.Loaded(describe(arena.study.study), body))
            return
        studies = list_studies(store)
        if not studies:
            self.post_message(self.Loaded("[b]Studies[/]", "No study in this database yet."))
            return
        study = next((s for s in studies if s.name == name), studies[-1])
        names = [s.name for s in studies]
        self.post_message(self.Loaded(describe(study), researcher_view(store, study), names))

    @on(Loaded)
    def _loaded(self, event: Loaded) -> None:
        self.query_one("#study-title", Static).update(event.title)
        self.query_one("#study-tables", Static).update(event.body)
        choices = self.query_one("#study-list", OptionList)
        choices.display = len(event.studies) > 1
        if event.studies and choices.option_count != len(event.studies):
            choices.set_options(event.studies)

    @on(OptionList.OptionSelected, "#study-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.chosen = str(event.option.prompt)
        self.load(self.chosen)

    def worker_failed(self, worker: Worker) -> None:
        self.query_one("#study-title", Static).update(
            f"[b red]cannot read the study: {escape(str(worker.error))}[/]"
        )

    def action_reload(self) -> None:
        self.load(self.chosen)

    def action_back(self) -> None:
        self.app.pop_screen()
