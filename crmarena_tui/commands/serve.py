"""`crmarena-tui serve`: the app in a web browser through textual-serve.

textual-serve starts one `crmarena-tui play` process per browser connection (it runs the command
through the shell, so every argument is quoted). It listens on loopback unless told otherwise:
anyone who can reach the port can play as the participant given with --as and read the database.
With `--study NAME` every connection starts on the join screen instead: a participant of the
study, with their join code, works their own queue; all of them write to one database. A study's
server takes at most `--max-connections` joined and `--max-joining` joining connections at once,
and closes a joining one after `--join-timeout` seconds (`_serve_study.py`). Every request must
name this server in its Host and Origin headers (`--allow-origin` adds a reverse proxy's), and
each connection's process ends with its browser and with the server (`_serve_guard.py`).
Without `--study`, `/view/SESSION[:STEP]` opens `crmarena-tui view SESSION[:STEP]` instead of
`play`: a link to a step (`_serve_links.py`).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from crmarena_tui.commands.common import (
    add_blind,
    add_db,
    add_org,
    add_pace,
    add_tasks,
    db_path,
)
from crmarena_tui.commands.play import add_study, check_study, study_db
from crmarena_tui.errors import ExitCode, UserError

ORDER = 90
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "serve",
        help="serve the app in a web browser (textual-serve)",
        description="Serve `crmarena-tui play` over HTTP: every browser tab gets its own app "
        "process. Listens on 127.0.0.1 by default. Without --study, the URL "
        "/view/SESSION[:STEP] opens that session in the trajectory viewer at that step "
        "(crmarena-tui view SESSION[:STEP]).",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: %(default)s)"
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default: %(default)s)")
    parser.add_argument(
        "--public-url",
        default=None,
        metavar="URL",
        help="the URL browsers use to reach the server, when it differs from "
        "http://HOST:PORT (e.g. behind a proxy)",
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="URL",
        help="also let in pages and websockets whose Host or Origin is this URL's (e.g. "
        "https://study.example.org, a reverse proxy's); repeatable. Others get 403",
    )
    add_tasks(parser)
    add_org(parser)
    parser.add_argument(
        "--as", dest="participant", metavar="NAME", help="participant name for play"
    )
    add_db(parser)
    add_blind(parser)
    add_pace(parser)
    add_study(
        parser,
        help="serve this baseline study: every connection first asks for a participant's name "
        "and join code (printed by `study create`), then shows that participant's queue; the "
        "study decides tasks, org and blind mode",
    )
    parser.add_argument(
        "--max-connections",
        type=int,
        default=None,
        metavar="N",
        help="with --study: at most N browser connections at once, each its own app process "
        "(default: twice the study's participants) once joined; one more is refused and logged",
    )
    parser.add_argument(
        "--max-joining",
        type=int,
        default=None,
        metavar="N",
        help="with --study: at most N connections on the join screen at once, apart from the "
        "joined ones (default: twice the study's participants, at least 2)",
    )
    parser.add_argument(
        "--join-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="with --study: close a connection that has not joined within SECONDS of its join "
        "screen showing (default: 120)",
    )
    parser.add_argument(
        "--join-grace",
        type=float,
        default=None,
        metavar="SECONDS",
        help="with --study: when the join screen's places are all taken, a newcomer takes the "
        "place of a connection whose join screen has shown SECONDS with no key (default: 10)",
    )
    parser.set_defaults(func=run)


def play_command(args: argparse.Namespace, python: str | None = None) -> str:
    """The shell command textual-serve runs per connection: this interpreter, `-m crmarena_tui play`
    and the pass-through options, each quoted."""
    if getattr(args, "study", None):  # the study decides tasks, org and blind mode
        return shlex.join(
            [python or sys.executable, "-m", "crmarena_tui", "play", "--study", args.study]
            + ["--db", str(study_db(args))]
            + (["--lenient"] if args.lenient else [])
        )
    argv = [python or sys.executable, "-m", "crmarena_tui", "play", "--tasks", args.tasks]
    if args.org:
        argv += ["--org", args.org]
    if args.lenient:
        argv.append("--lenient")
    if args.db:
        argv += ["--db", str(Path(args.db).expanduser().resolve())]
    if args.participant:
        argv += ["--as", args.participant]
    if getattr(args, "blind", None) is not None:
        argv.append("--blind" if args.blind else "--no-blind")
    if getattr(args, "pace", 0.0):
        argv += ["--pace", str(args.pace)]
    for name in ("allow_duplicates", "allow_unknown_types"):
        if getattr(args, name, False):
            argv.append("--" + name.replace("_", "-"))
    return shlex.join(argv)


def view_command(args: argparse.Namespace, link: str, python: str | None = None) -> str:
    """The shell command of a connection opened at `/view/LINK`: `crmarena-tui view LINK` with
    `play_command`'s options that `view` takes, each quoted."""
    argv = shlex.split(play_command(args, python))
    argv[3] = "view"
    for flag in ("--blind", "--no-blind"):  # `view` shows finished sessions; no blind mode
        if flag in argv:
            argv.remove(flag)
    if "--pace" in argv:
        at = argv.index("--pace")
        del argv[at : at + 2]
    return shlex.join([*argv, link])


def port_in_use(host: str, port: int) -> str | None:
    """Why `host:port` cannot be listened on (taken by another program), else None."""
    import errno
    import socket

    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server does
            probe.bind((host, port))
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            return (
                f"port {port} on {host} is in use: stop what listens there or pick another --port"
            )
        return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
    return None


def run(args: argparse.Namespace) -> int:
    if not 0 < args.port < 65536:
        raise UserError(f"--port must be between 1 and 65535, not {args.port}", code=ExitCode.USAGE)
    if args.host not in LOOPBACK:
        print(
            f"warning: listening on {args.host}: anyone who can reach this port can use the app",
            file=sys.stderr,
        )
    if args.study:
        if args.participant:
            raise UserError(
                "--as does not go with --study: each connection joins as a participant",
                code=ExitCode.USAGE,
            )
        check_study(args.study, None, study_db(args))
        if problem := port_in_use(args.host, args.port):
            raise UserError(problem)
        return _serve_study(args)
    for option in ("max_connections", "max_joining", "join_timeout", "join_grace"):
        if getattr(args, option) is not None:
            raise UserError(f"--{option.replace('_', '-')} goes with --study", code=ExitCode.USAGE)
    if problem := port_in_use(args.host, args.port):
        raise UserError(problem)
    from crmarena_tui.commands._serve_links import linked_server

    server = linked_server(
        play_command(args),
        view_command=lambda link: view_command(args, link),
        db=db_path(args),
        **server_options(args),
    )
    server.serve()
    return 0


def server_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options of textual-serve's `Server`, and the Host/Origin allow-list
    (`_serve_guard.allowed_netlocs`)."""
    from crmarena_tui.commands._serve_guard import allowed_netlocs

    allowed = allowed_netlocs(
        args.host, args.port, public_url=args.public_url, extra=args.allow_origin
    )
    return {
        "allowed": allowed,
        "host": args.host,
        "port": args.port,
        "title": "crmarena-tui",
        "public_url": args.public_url,
    }


def _serve_study(args: argparse.Namespace) -> int:
    """The study's server: connections capped, each named for the join log (_serve_study.py)."""
    from crmarena_tui.commands._serve_study import (
        JOIN_TIMEOUT,
        SILENT_GRACE,
        default_max_connections,
        default_max_joining,
        study_server,
    )

    db = study_db(args)
    most, joining, timeout = args.max_connections, args.max_joining, args.join_timeout
    for option, value in (("--max-connections", most), ("--max-joining", joining)):
        if value is not None and value < 1:
            raise UserError(f"{option} must be 1 or more, not {value}", code=ExitCode.USAGE)
    for option, seconds in (("--join-timeout", timeout), ("--join-grace", args.join_grace)):
        if seconds is not None and not 0 < seconds < 86400:
            raise UserError(
                f"{option} must be between 0 and 86400 seconds, not {seconds:g}",
                code=ExitCode.USAGE,
            )
    server = study_server(
        play_command(args),
        db=db,
        study=args.study,
        max_connections=most or default_max_connections(db, args.study),
        max_joining=joining or default_max_joining(db, args.study),
        join_timeout=timeout or JOIN_TIMEOUT,
        join_grace=args.join_grace or SILENT_GRACE,
        **server_options(args),
    )
    server.serve()
    return 0
