"""`crmarena-tui play` (also what `crmarena-tui` runs with no command): the app for human play."""

from __future__ import annotations

import argparse

from crmarena_tui.commands.common import (
    add_blind,
    add_db,
    add_hidden_labels,
    add_org,
    add_pace,
    add_tasks,
    fail,
)

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
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from crmarena_tui.orgs.resolve import check_source

    if args.pace < 0:
        return fail(f"error: --pace must be 0 or more seconds, not {args.pace:g}", 2)
    problem = check_source(args.tasks, args.org)  # real tasks, no real org: stop before the app
    if problem:
        return fail(f"error: {problem}")
    from crmarena_tui.app import CrmArenaApp, PlayOptions

    options = PlayOptions(
        tasks=args.tasks,
        org=args.org,
        lenient=bool(args.lenient),
        participant=args.participant,
        db=args.db,
        aided=bool(args.aided),
        user_model=args.user_model,
        protocol=args.protocol,
        blind=args.blind,
        pace=args.pace,
        hidden_labels=args.hidden_labels or None,
    )
    app = CrmArenaApp(options)
    app.run()
    return int(app.return_code or 0)
