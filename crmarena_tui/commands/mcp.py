"""`crmarena-tui mcp`: serve a queue of tasks to any MCP client (session/mcp_server.py)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import TYPE_CHECKING

from crmarena_tui.commands._proxy_args import add_proxy
from crmarena_tui.commands.common import (
    add_db,
    add_judge_temperature,
    add_org,
    add_org_today,
    add_schema,
    add_tasks,
    add_trials,
    add_upstream_prompts,
    check_prompts,
    check_schema_file,
    db_path,
    load_command_settings,
    note,
    open_each_org,
)
from crmarena_tui.errors import ExitCode, UserError

if TYPE_CHECKING:
    from crmarena_tui.session.mcp_handshake import EarlyHandshake
    from crmarena_tui.session.service import SessionService
    from crmarena_tui.session.task_queue import QueueOptions
    from crmarena_tui.tasks.model import Task

ORDER = 42
LOOPBACK = ("127.0.0.1", "localhost", "::1")

EPILOG = """\
The tools: next_task (the next unfinished task: system prompt and request, never the answer),
get_task, execute_soql(query), execute_sosl(search), query_more(cursor) (the next batch of a
result paged at 2,000 records or the `mcp_result_chars` setting), describe_object(name),
respond(content) (single-turn: submits the answer; chat: the simulated user's reply comes back) and
report_usage(model, prompt_tokens, completion_tokens, cost). Every call is an event of a session
in the database, as for `run`: participant kind agent, strategy mcp, named by --as or by the
client's name and version (a client known only by its SDK's default name, `mcp/0.1.0`, needs
--as). A server stopped mid-task resumes that session when started again. Each client works a
task of its own, leased in the database: many clients on one HTTP server, or many stdio servers
on one database, never work the same task; a client silent for the lease_timeout setting (120 s)
loses its task to the next one. A stdio client passes the server no environment: give --db.

A client that reads an `mcpServers` JSON entry (Claude Desktop, Cursor, ...):
  {"mcpServers": {"crmarena": {"command": "crmarena-tui",
     "args": ["mcp", "--tasks", "demo:small", "--protocol", "workbench",
              "--db", "/home/me/crmarena/sessions.db", "--as", "my-agent"]}}}
A client that adds servers by command:
  claude mcp add crmarena -- crmarena-tui mcp --tasks demo:small --protocol workbench --db DB
Over HTTP (the client connects to http://127.0.0.1:8765/mcp):
  crmarena-tui mcp --http --port 8765 --token SECRET

examples:
  crmarena-tui mcp --tasks demo:small --task handle_time --limit 5 --protocol workbench
  crmarena-tui mcp --tasks hf:b2b --as my-graph-v2
  crmarena-tui mcp --tasks demo:small --limit 10 --trials 3 --protocol workbench
  crmarena-tui mcp --http --host 0.0.0.0 --port 8765 --token SECRET
  crmarena-tui mcp --tasks demo:small --model-proxy --proxy-port 8766
"""


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "mcp",
        help="serve tasks to your own agent over MCP (stdio or streamable HTTP)",
        description="An MCP server: any MCP client works a queue of tasks through its tools, "
        "and every call is stored as a session, like `run`'s.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_tasks(parser)
    add_org(parser)
    add_org_today(parser)
    parser.add_argument(
        "--task", metavar="TYPE", default=None, help="only tasks of this type (comma-separated)"
    )
    parser.add_argument("--limit", type=int, metavar="N", default=None, help="at most N tasks")
    add_trials(parser)
    parser.add_argument(
        "--protocol",
        choices=("upstream", "workbench"),
        default=None,
        help="what the agent is shown and how answers are graded (as `run`; default: the "
        "`protocol` setting, else upstream)",
    )
    parser.add_argument(
        "--interactive", action="store_true", help="play every selected task as a chat task"
    )
    parser.add_argument(
        "--user-model",
        metavar="MODEL|scripted",
        default=None,
        help="who plays the user in chat tasks (as `run`)",
    )
    parser.add_argument("--user-api-base", metavar="URL", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--aided", action="store_true", help="add the tasks' domain details")
    parser.add_argument(
        "--privacy-aware", action="store_true", help="tell the agent to decline private requests"
    )
    parser.add_argument(
        "--show-grade", action="store_true", help="respond's reply includes the reward"
    )
    parser.add_argument("--judge", metavar="MODEL", default=None, help="as `run --judge`")
    add_judge_temperature(parser)
    add_upstream_prompts(parser)
    parser.add_argument(
        "--as",
        dest="as_name",
        metavar="NAME",
        default=None,
        help="the participant's name (default: the MCP client's name/version)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        metavar="N",
        default=None,
        help="at most N clients work a task at once on this server (each its own task, leased "
        "in the database; default: no limit); more are told to call next_task later",
    )
    parser.add_argument("--http", action="store_true", help="streamable HTTP instead of stdio")
    parser.add_argument(
        "--host", default="127.0.0.1", help="HTTP: the address (default: %(default)s)"
    )
    parser.add_argument("--port", type=int, default=8765, help="HTTP: the port (default: 8765)")
    parser.add_argument("--token", default=None, help="HTTP: require `Authorization: Bearer TOKEN`")
    add_proxy(parser, who="in next_task's brief", server_key=True)
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="URL",
        help="HTTP off loopback: also accept this URL's host in Host and Origin (a reverse "
        "proxy's, e.g. https://mcp.example.org); repeatable. Others are refused",
    )
    parser.add_argument(
        "--durability",
        choices=("full", "normal"),
        default="full",
        help="full (default): every event is fsynced before its call is answered; normal: as "
        "`run`, without an fsync per event (a killed server still loses nothing, an OS crash "
        "may drop the last events)",
    )
    add_schema(parser)
    add_db(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from crmarena_tui.errors import remember_secret

    remember_secret(args.token)  # never printed, logged or stored, should anything echo it
    if not args.http and (args.token or args.host != "127.0.0.1" or args.allow_origin):
        raise UserError(
            "--host, --token and --allow-origin are for --http (stdio needs none)",
            code=ExitCode.USAGE,
        )
    if args.workers is not None and args.workers < 1:
        raise UserError("--workers must be at least 1", code=ExitCode.USAGE)
    early = None
    if not args.http:  # `initialize` answered now, before the SDK is imported (a second or two)
        from crmarena_tui.session.mcp_handshake import start_early

        early = start_early()
    # Over stdio, stdout is the protocol's wire: whatever loading tasks or building an org
    # might print before the server starts goes to stderr.
    quiet = contextlib.nullcontext() if args.http else contextlib.redirect_stdout(sys.stderr)
    with quiet:
        tasks, service, options = prepare(args)
    if args.http and args.host not in LOOPBACK:
        note(
            f"warning: serving on {args.host}: anyone who can reach it can work (and grade) "
            "tasks in your database" + ("" if args.token else "; consider --token")
        )
    return serve(args, tasks, service, options, early)


def prepare(args: argparse.Namespace) -> tuple[list[Task], SessionService, QueueOptions]:
    """The tasks, the service and the queue's options, checked (a refusal: `UserError`)."""
    from crmarena_tui.commands.run import select_tasks
    from crmarena_tui.orgs.strictness import lenient_wanted
    from crmarena_tui.session.service import SessionService
    from crmarena_tui.session.task_queue import QueueOptions

    settings = load_command_settings(
        judge_model=args.judge,
        judge_temperature=args.judge_temperature,
        protocol=args.protocol,
        schema=args.schema,
        org_today=args.org_today,
        upstream_prompts=args.upstream_prompts,
    )
    service = SessionService(settings)
    if args.trials < 1:
        raise UserError("--trials must be at least 1", code=ExitCode.USAGE)
    check_prompts(args, service)
    tasks = select_tasks(args)
    if not tasks:
        raise UserError("no tasks selected")
    options = QueueOptions(
        org=args.org,
        lenient=lenient_wanted(args.lenient, settings),
        user_model=args.user_model or settings.user_model,
        user_api_base=args.user_api_base,
        aided=args.aided,
        privacy_aware=args.privacy_aware,
        show_grade=args.show_grade,
        trials=args.trials,
        result_chars=settings.mcp_result_chars,
    )
    check(options, tasks, service, args.schema)
    check_user_key(options, tasks, service)
    return tasks, service, options


def check_user_key(options: QueueOptions, tasks: list[Task], service: SessionService) -> None:
    """A chat task's simulated user played by a model whose provider key is not in the
    environment: refused now, not at the first chat turn (an MCP client over stdio passes the
    server no environment unless its entry says so)."""
    from crmarena_tui.llm.keys import missing_key

    if not any(t.interactive for t in tasks):
        return
    user = service.user_spec(options.user_model)
    if user == "scripted":
        return
    variable = missing_key(user, api_base=options.user_api_base)
    if variable is None:
        return
    raise UserError(
        f"the simulated user's model {user} needs {variable} in the environment "
        "(a stdio client passes only what its entry's env gives); set it, or choose another "
        "model with --user-model"
    )


def check(
    options: QueueOptions, tasks: list[Task], service: SessionService, given: str | None = None
) -> None:
    """Before serving: the protocol allows the run, the judge can be made, every org opens
    (a missing demo org is built now, not during the client's first call) and the schema text
    the agent is shown on it loads."""
    from crmarena_tui.llm.client import LLMError

    for interactive, org_type in sorted({(t.interactive, t.org_type) for t in tasks}):
        # an external agent is not upstream's loop: only the org and user rules apply
        service.check_agent_run(  # (ProtocolRefused, from cli.main)
            "mcp",
            interactive=interactive,
            org_type=org_type,
            user=options.user_model,
            lenient=options.lenient,
        )
    try:
        service.judge()
    except (LLMError, ValueError) as exc:
        raise UserError(f"cannot set up the judge {service.settings.judge_model!r}: {exc}") from exc
    check_schema_file(service, tasks, service.protocol, given)
    open_each_org(
        tasks,
        options.org,
        options.lenient,
        lambda org: service.schemas.for_org(org, service.protocol),
    )


def serve(
    args: argparse.Namespace,
    tasks: list[Task],
    service: SessionService,
    options: QueueOptions,
    early: EarlyHandshake | None = None,
) -> int:
    from crmarena_tui.llm import prices
    from crmarena_tui.session import mcp_server
    from crmarena_tui.session.task_queue import TaskQueue
    from crmarena_tui.storage import Store

    path = db_path(args)
    prices.warm()  # a report_usage without a cost is priced at once

    from crmarena_tui.storage.leases import LeaseBook

    def make_queue() -> TaskQueue:
        store = Store(path, durability=args.durability)
        leases = LeaseBook(
            store, pool=f"mcp:{worker.server_id}", timeout=service.settings.lease_timeout
        )
        return TaskQueue(store, tasks, service, options, leases=leases, workers=args.workers)

    proxy = None
    sessions = None
    if args.model_proxy:
        from crmarena_tui.agents.model_proxy import ModelProxy, ProxySessions

        sessions = ProxySessions(args.proxy_key)
    server, worker = mcp_server.build_server(
        make_queue, as_name=args.as_name, stdio=not args.http, proxy=sessions
    )
    if args.http:
        worker.warm()
    if sessions is not None:
        api_base = args.proxy_api_base or service.settings.api_base
        key = service.settings.api_key if api_base else None
        proxy = ModelProxy(sessions, worker.record, api_base=api_base, api_key=key)
        try:
            url = proxy.start("127.0.0.1", args.proxy_port)
        except OSError as exc:
            worker.close()
            raise UserError(
                f"the model proxy cannot listen on port {args.proxy_port}: {exc}"
            ) from exc
        print(
            f"crmarena-tui mcp: model proxy at {url} (server key {sessions.server_key})",
            file=sys.stderr,
        )
    try:
        if args.http:
            mcp_server.serve_http(server, args.host, args.port, args.token, args.allow_origin)
        else:
            trials = f" x {options.trials} trials" if options.trials > 1 else ""
            print(f"crmarena-tui mcp: {len(tasks)} tasks{trials} over stdio", file=sys.stderr)
            mcp_server.serve_stdio(server, early)
    except KeyboardInterrupt:
        pass
    finally:
        if proxy is not None:
            proxy.stop()
        worker.close()
    return 0
