"""`crmarena-tui play` (also what `crmarena-tui` runs with no command): the app for human play."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from crmarena_tui.commands.common import (
    add_blind,
    add_db,
    add_hidden_labels,
    add_org,
    add_org_today,
    add_pace,
    add_tasks,
    db_path,
)
from crmarena_tui.errors import ExitCode, UserError

if TYPE_CHECKING:
    from crmarena_tui.app.app import CrmArenaApp
    from crmarena_tui.screens.play_options import PlayOptions
    from crmarena_tui.studies.model import Study

ORDER = 10


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "play",
        help="work tasks yourself in the terminal app (the default command)",
        description="Open the task browser; pick a task, query the org, submit an answer, see "
        "the grade. Every step is saved as it happens; reopening a task resumes it.",
    )
    add_tasks(parser)
    add_org(parser)
    add_org_today(parser)
    parser.add_argument(
        "--as",
        dest="participant",
        metavar="NAME",
        help="your participant name (default: the one saved on first run)",
    )
    add_db(parser)
    parser.add_argument(
        "--aided", action="store_true", help="show the tasks' optional domain details (aided mode)"
    )
    parser.add_argument(
        "--user-model",
        metavar="MODEL|scripted",
        help="who plays the user in interactive tasks: a litellm model, or the "
        "offline scripted user (default: the configured user_model, else scripted)",
    )
    parser.add_argument(
        "--protocol",
        choices=("upstream", "workbench"),
        default=None,
        help="how agents you start in the app (ctrl+g, forks) run, and how answers are graded: "
        "upstream (as upstream's code) or workbench (this project's loop); default: the "
        "`protocol` setting, else upstream",
    )
    add_blind(parser)
    add_pace(parser)
    add_hidden_labels(parser)
    add_study(parser)
    parser.set_defaults(func=run)


STUDY_HELP = (
    "work your queue in this baseline study (`crmarena-tui study create`): its tasks and org, "
    "blind, in the study's order, with its time limit; with --as NAME you are that participant, "
    "else the app asks for your name and join code"
)


def add_study(parser: argparse.ArgumentParser, help: str = STUDY_HELP) -> None:
    parser.add_argument("--study", metavar="NAME", default=None, help=help)


def study_db(args: argparse.Namespace) -> Path:
    """The sessions database `play` opens: --db, else CRMARENA_TUI_DB or the config file's `db`,
    else the default place (as the app's settings resolve it, without loading them)."""
    return db_path(args).resolve()


def check_study(name: str, participant: str | None, db: Path) -> Study:
    """The study, open, with `participant` among its participants when given; else refused
    (`StudyError`, `StorageError` or a missing database: the app does not open)."""
    from crmarena_tui.storage import Store
    from crmarena_tui.studies.mode import check_study as checked

    if not db.exists():
        raise UserError(
            f"no sessions database at {db}: create the study there first (or pass --db)"
        )
    with Store(db) as store:
        return checked(store, name, participant)


def run(args: argparse.Namespace) -> int:
    from crmarena_tui.app.app import startup_gc
    from crmarena_tui.commands._parent_watch import watch

    watch()  # behind `serve`: end with the server

    options = options_from(args)
    startup_gc.pause(options.tasks)  # until the app has drawn the rows (startup_gc.py)
    from crmarena_tui.app.app import CrmArenaApp

    app = CrmArenaApp(options)
    try:
        return run_app(app)
    finally:
        startup_gc.resume()  # (an app that ended before its rows were drawn)


def run_app(app: CrmArenaApp) -> int:
    """Run the app to its end; its exit code, or an unexpected error's (`settings/crash_log.py`:
    one line once the terminal is restored, the traceback in a crash log)."""
    from crmarena_tui.settings.crash_log import crash

    app.run()
    if app._exception is not None:
        return crash(app._exception)
    return int(app.return_code or 0)


def options_from(args: argparse.Namespace) -> PlayOptions:
    """What the app is asked for; a bad option, a study that cannot start or real tasks without
    a real org are refused (`UserError`)."""
    from crmarena_tui.session.org_resolve import check_source

    if args.pace < 0:
        raise UserError(f"--pace must be 0 or more seconds, not {args.pace:g}", code=ExitCode.USAGE)
    tasks, org, db, blind = args.tasks, args.org, args.db, args.blind
    rows_allowed = bool(args.allow_duplicates), bool(args.allow_unknown_types)
    if args.study:  # the study decides the tasks, the org and blind mode
        db = study_db(args)
        study = check_study(args.study, args.participant, db)
        tasks, org, blind = study.tasks, study.org, True
        # and which rows its source holds: `study create` loaded it (a repeated idx or an
        # unknown type refused there unless --allow-duplicates / --allow-unknown-types) and its
        # queues name the rows it kept, so the source loads as it did then (the first of a
        # repeated idx kept, and named), with or without the flags here or through `serve`
        rows_allowed = True, True
    problem = check_source(tasks, org)  # real tasks, no real org: stop before the app
    if problem:
        raise UserError(problem)
    from crmarena_tui.screens.play_options import PlayOptions

    return PlayOptions(
        tasks=tasks,
        org=org,
        lenient=bool(args.lenient),
        participant=args.participant,
        db=db,
        aided=bool(args.aided),
        user_model=args.user_model,
        protocol=args.protocol,
        org_today=args.org_today,
        blind=blind,
        pace=args.pace,
        hidden_labels=args.hidden_labels or None,
        study=args.study,
        allow_duplicates=rows_allowed[0],
        allow_unknown_types=rows_allowed[1],
    )
