"""The app's start-up, step by step: the task rows first, then the settings and the sessions
database, then the participant and their statuses (the demo orgs are built beside, on first run).

Each step is blocking work that `CrmArenaApp` runs in a worker of its own (app/app.py), one after
the other so the first frame is drawn before any heavy import; a step tells the app what it found
by the app's messages (app/messages.py), whose handlers in the app update the browser.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crmarena_tui.app import startup_gc, study
from crmarena_tui.app.messages import (
    NameNeeded,
    OrgProgress,
    ParticipantReady,
    SettingsLoaded,
    StatusesLoaded,
    StoreOpened,
    TasksLoaded,
)
from crmarena_tui.tasks.table import TaskTable

if TYPE_CHECKING:
    from crmarena_tui.app.app import CrmArenaApp


def load_task_rows(app: CrmArenaApp) -> None:
    """The task source's rows (a demo source: its orgs and tasks built first, on first run),
    posted as `TasksLoaded`; once the store is open (the rows are drawn by then), a file's rows
    are checked in full, and a broken one is posted again (`checked`)."""
    from crmarena_tui.app.demo_setup import prepare_demo_source
    from crmarena_tui.demo.sources import load_task_table

    source, tasks = app.options.tasks, app.tasks  # (tasks: read before the first frame)
    try:
        if source in ("demo", "demo:small"):  # computed from the demo orgs: build them first
            if not tasks:  # not built yet (seconds of work): the collector back on
                startup_gc.resume()
            prepare_demo_source(source, lambda *step: app.post_message(OrgProgress(*step)))
        if not tasks or tasks.partial:  # a file's rows are checked in full once shown
            tasks = load_task_table(source, rules := app.options.task_rules())
            for note in rules.notes:  # (`--allow-duplicates`: the rows left out)
                app.call_from_thread(app.notify, note, title="Left out", timeout=12)
    except Exception as exc:  # a bad file or an offline hub: say so on the screen
        app.post_message(TasksLoaded(source, TaskTable(), error=str(exc)))
        return
    app.post_message(TasksLoaded(source, tasks))
    app.store_opened.wait(60)  # the rows are drawn by then: validate a file's tasks in full
    if problem := tasks.problem():  # (it names the first broken row and field)
        app.post_message(TasksLoaded(source, TaskTable(), problem, checked=True))


def open_store(app: CrmArenaApp) -> None:
    """The settings (their keymap posted), the sessions database and, when the name is known,
    the participant; else `NameNeeded` (the app asks once)."""
    from crmarena_tui.app.commands import db_origin
    from crmarena_tui.app.keymap import unknown_ids
    from crmarena_tui.storage import Store

    settings = app.settings
    app.post_message(SettingsLoaded(dict(settings.keymap), unknown_ids(settings.keymap)))
    path = settings.db_path(app.options.db)
    try:
        with app.store_lock:
            app.store = Store(path)
    finally:
        app.store_opened.set()
    app.db_path = path
    app.post_message(StoreOpened(str(path), db_origin(app.options.db, settings)))
    name = app.options.participant or settings.participant
    if app.options.study:
        study.open_seat(app)  # `--as`: seated now; else the join screen seats them
    elif name:
        set_participant(app, name)
    else:
        app.post_message(NameNeeded())


def set_participant(app: CrmArenaApp, name: str) -> None:
    """The participant row, then their statuses."""
    with app.store_lock:
        assert app.store is not None
        app.participant = app.store.participant("human", name)
    app.participant_known.set()
    app.post_message(ParticipantReady(name))
    post_statuses(app)


def post_statuses(app: CrmArenaApp) -> None:
    """The participant's status per task (a study: done, in progress or left)."""
    with app.store_lock:
        statuses = study.statuses(app)
    app.post_message(StatusesLoaded(statuses))
