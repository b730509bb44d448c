"""The app in study mode (`play --study NAME`, `serve --study NAME`): where the app's start-up,
its task list and its navigation defer to the participant's seat (`study_mode.StudyMode`).

The app calls these at a few points: `ask_for_seat` when it mounts (no `--as`: the join screen,
before anything else is reachable), `open_seat` once the sessions database is open (`--as`),
`shown_tasks` and `view_for` for the browser's list, `refusal` before a task opens and
`next_step` after a submit (from the submit worker). Outside study mode each gives what the app
did without studies.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from crmarena_tui.tasks.blind import BlindView

if TYPE_CHECKING:
    from crmarena_tui.app.app import CrmArenaApp
    from crmarena_tui.studies.mode import NextStep, StudyMode
    from crmarena_tui.tasks.index import TaskStatus
    from crmarena_tui.tasks.model import Task
    from crmarena_tui.tasks.table import TaskRow

NOT_IN_A_STUDY = "Not in a study: {what} is for the researcher, after the study."


def ask_for_seat(app: CrmArenaApp) -> None:
    """When the app mounts in study mode without `--as`: the join screen (name and join code)
    covers the app until the participant is seated."""
    if app.options.study and not app.options.participant:
        from crmarena_tui.screens.join_screen import JoinScreen

        app.push_screen(JoinScreen(app.options.study, seat=partial(take_seat, app)))


def open_seat(app: CrmArenaApp) -> None:
    """Blocking (the store worker): with `--as`, seat the participant now. `play` checked the
    study before the app started; should it have closed since, the app ends with the reason."""
    from crmarena_tui.studies.mode import open_study
    from crmarena_tui.studies.model import StudyError

    name, who = app.options.study, app.options.participant
    if not name or not who:
        return  # the join screen seats them
    try:
        mode = open_study(app.sessions_store(), name, who)
    except StudyError as exc:
        app.call_from_thread(app.exit, return_code=2, message=f"error: {exc}")
        return
    take_seat(app, mode)


def take_seat(app: CrmArenaApp, mode: StudyMode) -> None:
    """Blocking (workers): the participant's seat, then their participant row and statuses."""
    app.study = mode
    app.set_participant(mode.participant)


def shown_tasks(app: CrmArenaApp) -> Sequence[TaskRow]:
    """The browser's tasks: all of them, or in study mode the participant's queue (none before
    they are seated)."""
    if not app.options.study:
        return app.tasks
    return app.study.queue_tasks(app.tasks) if app.study is not None else []


def view_for(app: CrmArenaApp, name: str) -> BlindView:
    """The blind view once the participant is known: their queue in a study, else the tasks
    shuffled by their name."""
    return app.study.view() if app.study is not None else BlindView(enabled=True, seed=name)


def statuses(app: CrmArenaApp) -> dict[str, TaskStatus]:
    """Blocking (workers): the browser's status per `Task.key`; in a study each task of the
    queue is done, in progress or left."""
    from crmarena_tui.reports.task_status import statuses_for

    grade_lost(app)
    if app.study is not None and app.store is not None:
        return app.study.statuses(app.store)
    return statuses_for(app.store, app.participant)


def grade_lost(app: CrmArenaApp) -> None:
    """Blocking: grade the participant's sessions that were submitted but never graded (the app
    was killed between the two), each under its own protocol, before their status is shown."""
    from crmarena_tui.session.protocols import session_protocol

    if app.store is None or app.participant is None:
        return
    lost = app.store.read(
        "SELECT id FROM sessions WHERE participant_id = ? AND status = 'submitted'"
        " AND id NOT IN (SELECT session_id FROM grades)",
        (app.participant.id,),
    )
    for (session_id,) in lost:
        session = app.store.session(session_id)
        app.service.regrade(app.store, session_id, protocol=session_protocol(session))


def point_at_next(app: CrmArenaApp) -> None:
    """In a study, a cursor on a done task moves to the first task not done (the one in progress
    first, else the first one left), so `enter` opens what the participant is to do next; a
    cursor the participant put on an open task stays."""
    if app.study is None or not app.statuses:
        return
    tasks = app.browser.task_list
    here = tasks.current_row
    if here is None or getattr(app.statuses.get(here.key), "state", None) != "submitted":
        return
    rows = tasks.visible_tasks()
    for wanted in ("in progress", "new"):
        for k, row in enumerate(rows):
            if getattr(app.statuses.get(row.key), "state", None) == wanted:
                tasks.move_to(k)
                return


def refusal(app: CrmArenaApp, task: Task) -> str | None:
    """Why `task` may not be opened now (study mode only: out of order, or done)."""
    return app.study.refusal(task, app.statuses) if app.study is not None else None


def next_step(app: CrmArenaApp) -> NextStep | None:
    """Blocking (the submit worker): in study mode, what follows this submit."""
    if app.study is None:
        return None
    return app.study.next_step(app.sessions_store(), app.tasks)


def open_study_screen(app: CrmArenaApp) -> None:
    """The study screen: a participant's own queue in study mode; outside one, the researcher's
    view of the database's studies (not in blind mode: that is a participant's machine)."""
    from crmarena_tui.screens.study_screen import StudyScreen

    if app.study is None and (app.options.study or app.blind):
        app.notify("Blind mode: the studies' progress is for the researcher.", severity="warning")
        return
    app.push_screen(StudyScreen())


def revealed_tasks(app: CrmArenaApp) -> set[tuple[str, int]]:
    """Blocking (workers): the (source, idx) of the tasks this participant submitted."""
    from crmarena_tui.reports.task_status import submitted_tasks

    store = app.sessions_store()
    with app.store_lock:
        return submitted_tasks(store, app.participant)
