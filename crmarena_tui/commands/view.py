"""`crmarena-tui view`: open the app on the research screens: the sessions list, one session in the
trajectory viewer (at a step: `SESSION:STEP`, storage/step_links.py), two or three sessions side
by side, or the report."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from crmarena_tui.commands.common import (
    add_db,
    add_hidden_labels,
    add_org,
    add_tasks,
    db_path,
)
from crmarena_tui.errors import ExitCode, UserError

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.screen import Screen

    from crmarena_tui.app.app import CrmArenaApp, PlayOptions
    from crmarena_tui.orgs.base import Org
    from crmarena_tui.storage.step_links import StepLink

ORDER = 85


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "view",
        help="step through, compare, label and report sessions in the app",
        description="With no session: every session of the database (filter, mark two or three "
        "with space, c compares, enter opens one). One session id: the trajectory viewer. Two "
        "or three ids of one task: compare (sessions of different tasks are refused). "
        "SESSION:STEP opens the viewer at that step (numbered from 1 as the viewer numbers "
        "them). Escape goes back to the task browser.",
    )
    parser.add_argument(
        "sessions",
        nargs="*",
        metavar="SESSION[:STEP]",
        help="session ids (see the sessions list, or `crmarena-tui export`); one id may name a "
        "step, SESSION:STEP, to open the viewer there",
    )
    parser.add_argument("--report", action="store_true", help="open the report instead")
    parser.add_argument(
        "--as",
        dest="participant",
        metavar="NAME",
        help="your name: it signs your labels and notes (default: the saved one)",
    )
    add_db(parser)
    add_org(parser)
    add_tasks(parser)
    add_hidden_labels(parser)
    parser.set_defaults(func=run)


def first_screen(sessions: list[int], report: bool, step: int | None = None) -> Screen:
    """The screen the app opens on (`step`: the viewer's first step shown, from 1)."""
    if report:
        from crmarena_tui.screens.report_screen import ReportScreen

        return ReportScreen()
    if not sessions:
        from crmarena_tui.screens.sessions_screen import SessionsScreen

        return SessionsScreen()
    if len(sessions) == 1:
        from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer

        return TrajectoryViewer(sessions[0], start_step=step)
    from crmarena_tui.screens.compare_screen import CompareScreen

    return CompareScreen(sessions)


def make_app(
    options: PlayOptions,
    sessions: list[int],
    report: bool = False,
    org_factory: Callable[[str], Org] | None = None,
    step: int | None = None,
) -> CrmArenaApp:
    """The app opened on the research screen for `sessions` / `report` (`step`: with one
    session, the step the viewer opens at)."""
    from pathlib import Path

    from crmarena_tui.app import app as app_module
    from crmarena_tui.app.app import CrmArenaApp

    class ResearchApp(CrmArenaApp):
        """The app, opened on a research screen above the task browser."""

        CSS_PATH = str(Path(app_module.__file__).with_name("app.tcss"))  # not beside this file
        STORE_FIRST = True  # the sessions at once; the task rows and demo orgs behind them

        def on_mount(self) -> None:
            self.push_screen(first_screen(sessions, report, step))

    return ResearchApp(options, org_factory=org_factory)


def parse_links(texts: list[str]) -> list[StepLink]:
    """The SESSION[:STEP] arguments; a malformed one, or a step beside other sessions, is a
    usage error."""
    from crmarena_tui.storage.step_links import parse_link

    try:
        links = [parse_link(text) for text in texts]
    except ValueError as exc:
        raise UserError(str(exc), code=ExitCode.USAGE) from None
    if len(links) > 1 and any(link.step is not None for link in links):
        raise UserError("a step (SESSION:STEP) opens one session only", code=ExitCode.USAGE)
    return links


def _check_sessions(args: argparse.Namespace, links: list[StepLink]) -> None:
    """Refuse (`UserError`) sessions that cannot be opened: missing, of different tasks, or
    without the step named."""
    from crmarena_tui.reports.alignment import different_tasks
    from crmarena_tui.storage import Store
    from crmarena_tui.storage.step_links import check_link

    path = db_path(args)
    if not path.exists():
        raise UserError(f"no sessions database at {path} (pass --db, or play, run or import first)")
    with Store(path) as store:
        for link in links:
            if problem := check_link(store, link):
                raise UserError(problem)
        sessions = [store.session(link.session_id) for link in links]
    problem = different_tasks(sessions)
    if problem:
        raise UserError(problem)


def run(args: argparse.Namespace) -> int:
    links = parse_links(args.sessions)
    if len(args.sessions) > 3:
        raise UserError("compare at most three sessions", code=ExitCode.USAGE)
    if args.report and args.sessions:
        raise UserError("--report takes no session ids", code=ExitCode.USAGE)
    if links:
        _check_sessions(args, links)
    from crmarena_tui.app.app import PlayOptions

    app = make_app(
        PlayOptions(
            tasks=args.tasks,
            org=args.org,
            participant=args.participant,
            db=args.db,
            lenient=bool(args.lenient),
            hidden_labels=args.hidden_labels or None,
        ),
        [link.session_id for link in links],
        args.report,
        step=links[0].step if links else None,
    )
    from crmarena_tui.commands.play import run_app

    return run_app(app)
