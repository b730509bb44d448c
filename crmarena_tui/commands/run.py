"""`crmarena-tui run`: an LLM (or the reference agent) works a batch of tasks, resumably."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from crmarena_tui.commands._proxy_args import add_proxy
from crmarena_tui.commands.common import (
    add_db,
    add_format,
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
    load_source,
    note,
    open_each_org,
)
from crmarena_tui.errors import ExitCode, Interrupted, UserError

if TYPE_CHECKING:
    from crmarena_tui.session.run_report import RunReport, TaskResult
    from crmarena_tui.session.runner import RunOptions
    from crmarena_tui.session.service import SessionService
    from crmarena_tui.tasks.model import Task

ORDER = 40

EPILOG = """\
Every attempt is a session in the database. Running the same command again skips tasks already
submitted and resumes unfinished ones, so an interrupted run (Ctrl-C) or a model outage loses
nothing. --trials K works each task K times, K distinct attempts: trial 1 of every task first,
then trial 2, ...; a later run with a larger K adds the missing trials. Keys come from the
provider's usual environment variable (OPENAI_API_KEY, ...) or, for an --api-base server, from
api_key in the config file.

--protocol upstream (the default for model agents) runs them as upstream's code does, so scores
compare with the paper's; --protocol workbench uses this project's friendlier loop (JSON results,
visible COUNT(), tool calling on CRMArena-Pro, the offline scripted user). The reference agent
always runs under workbench. Chat tasks (hf:*_interactive, the demo's chat tasks, or every task
with --interactive) need a simulated user: under upstream a model (--user-model, default
gpt-4o-2024-08-06, upstream's), under workbench the scripted user unless --user-model is given.

examples:
  crmarena-tui run --agent reference
  crmarena-tui run --agent openai/gpt-4o-mini --task handle_time --limit 5
  crmarena-tui run --agent openai/qwen2.5 --api-base http://127.0.0.1:8000/v1 --concurrency 4
  crmarena-tui run --agent openai/gpt-4o-mini --tasks demo:small --limit 20 --trials 5
  crmarena-tui run --agent openai/gpt-4o --tasks hf:b2b_interactive --user-model openai/gpt-4o
  crmarena-tui run --agent anthropic/claude-3-5-haiku-latest --interactive --protocol workbench
"""


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "run",
        help="run an agent over tasks (progress bar, resumable, summary)",
        description="Run an LLM agent (any litellm model name) or the reference agent over a set "
        "of tasks, grade every attempt and store it.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--agent",
        metavar="MODEL|reference",
        default=None,
        help="litellm model name (e.g. openai/gpt-4o), or `reference` "
        "(default: agent_model from the settings)",
    )
    parser.add_argument(
        "--strategy",
        choices=("react", "tool_call"),
        default="react",
        help="ReAct tags or native tool calls (default: %(default)s)",
    )
    parser.add_argument(
        "--api-base",
        metavar="URL",
        default=None,
        help="OpenAI-compatible base URL for the agent's model",
    )
    add_tasks(parser)
    add_org(parser)
    add_org_today(parser)
    parser.add_argument(
        "--task",
        metavar="TYPE",
        default=None,
        help="only tasks of this type (comma-separated for several)",
    )
    parser.add_argument("--limit", type=int, metavar="N", default=None, help="at most N tasks")
    add_trials(parser)
    parser.add_argument(
        "--protocol",
        choices=("upstream", "workbench"),
        default=None,
        help="how model agents run and answers are graded: upstream (as upstream's code: scores "
        "comparable with the paper) or workbench (this project's loop); default: the `protocol` "
        "setting, $CRMARENA_TUI_PROTOCOL, else upstream. The reference agent always runs under "
        "workbench",
    )
    parser.add_argument(
        "--interactive",
        action="store_true",
        help="play every selected task as a chat task: a simulated user opens the conversation "
        "and reveals the request (chat task sources are chat tasks without it)",
    )
    parser.add_argument(
        "--user-model",
        metavar="MODEL|scripted",
        default=None,
        help="who plays the user in chat tasks (default: the user_model setting, else under "
        "upstream gpt-4o-2024-08-06 and under workbench the offline scripted user)",
    )
    parser.add_argument(
        "--user-api-base",
        metavar="URL",
        default=None,
        help="OpenAI-compatible base URL for the user model",
    )
    parser.add_argument(
        "--aided", action="store_true", help="add the tasks' optional domain details to the prompt"
    )
    parser.add_argument(
        "--privacy-aware",
        action="store_true",
        help="tell the agent to decline private, internal or confidential requests",
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        default=1,
        metavar="N",
        help="attempts worked at once (default: %(default)s)",
    )
    parser.add_argument(
        "--judge",
        metavar="MODEL",
        default=None,
        help="LLM for answer extraction and privacy judging (default: judge_model "
        "from the settings, else the deterministic graders)",
    )
    parser.add_argument(
        "--pace",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="each agent waits SECONDS after every step before the next, so that a session can "
        "be followed live in `crmarena-tui view` (demos; default: no wait)",
    )
    add_judge_temperature(parser)
    add_proxy(parser, who="a Python agent's AgentTask.model_base_url and model_key")
    add_schema(parser)
    add_upstream_prompts(parser)
    add_db(parser)
    add_format(parser)
    parser.set_defaults(func=run)


def select_tasks(args: argparse.Namespace) -> list[Task]:
    from crmarena_tui.tasks.catalog import BY_NAME

    types = [t.strip() for t in args.task.split(",") if t.strip()] if args.task else []
    unknown = [t for t in types if t not in BY_NAME]
    if unknown:
        raise UserError(
            f"unknown task type {', '.join(unknown)}; see `crmarena-tui tasks types`",
            code=ExitCode.USAGE,
        )
    tasks = load_source(args)
    if types:
        tasks = [t for t in tasks if t.task in types]
    if args.interactive:
        tasks = [t if t.interactive else t.model_copy(update={"interactive": True}) for t in tasks]
    unique: dict[str, Task] = {}
    for t in tasks:
        unique.setdefault(t.key, t)
    tasks = list(unique.values())
    if args.limit is not None:
        tasks = tasks[: max(0, args.limit)]
    return tasks


def run(args: argparse.Namespace) -> int:
    from crmarena_tui.orgs.strictness import lenient_wanted
    from crmarena_tui.session.runner import RunOptions
    from crmarena_tui.session.service import SessionService

    settings = load_command_settings(
        judge_model=args.judge,
        judge_temperature=args.judge_temperature,
        protocol=args.protocol,
        schema=args.schema,
        org_today=args.org_today,
        upstream_prompts=args.upstream_prompts,
    )
    service = SessionService(settings)
    check_prompts(args, service)
    agent = args.agent or settings.agent_model
    if not agent:
        raise UserError(
            "--agent is required: a litellm model name (e.g. openai/gpt-4o-mini) or `reference`",
            code=ExitCode.USAGE,
        )
    if args.concurrency < 1:
        raise UserError("--concurrency must be at least 1", code=ExitCode.USAGE)
    if args.trials < 1:
        raise UserError("--trials must be at least 1", code=ExitCode.USAGE)
    if args.pace < 0:
        raise UserError(f"--pace must be 0 or more seconds, not {args.pace:g}", code=ExitCode.USAGE)
    tasks = select_tasks(args)
    if not tasks:
        raise UserError("no tasks selected")
    options = RunOptions(
        agent=agent,
        strategy=args.strategy,
        api_base=args.api_base,
        org=args.org,
        lenient=lenient_wanted(args.lenient, settings),
        user_model=args.user_model or settings.user_model,
        user_api_base=args.user_api_base,
        aided=args.aided,
        privacy_aware=args.privacy_aware,
        concurrency=args.concurrency,
        trials=args.trials,
        pace=args.pace,
    )
    if agent == "reference" and args.protocol == "upstream":
        note("note: the reference agent is not a model agent: its sessions run under workbench")
    _check(options, tasks, service, args.schema)

    from crmarena_tui.commands._proxy_args import start_proxy

    proxy = start_proxy(args, agent, service)
    try:
        report = _run(args, agent, tasks, options, service)
    finally:
        if proxy is not None:
            from crmarena_tui.agents.python_agent import PythonAgent

            PythonAgent.proxy = None
            proxy.stop()
    print_summary(report, args.format)
    if report.interrupted:
        left = sum(1 for r in report.results if r.outcome == "unfinished")
        raise Interrupted(
            f"Stopped: {left} session(s) left in progress. Run the same command again to resume."
        )
    return ExitCode.OK if report.complete else ExitCode.FAILED


def _run(
    args: argparse.Namespace,
    agent: str,
    tasks: list[Task],
    options: RunOptions,
    service: SessionService,
) -> RunReport:
    from crmarena_tui.session.runner import BatchRunner

    label = agent if args.trials == 1 else f"{agent} ({len(tasks)} tasks x {args.trials} trials)"
    runner = BatchRunner(db_path(args), tasks, options, service=service)
    runner.prepare()  # a damaged or unusable database: its one line, before the bar is drawn
    with Progress(len(tasks) * args.trials, label) as progress:
        runner.on_result = progress.advance
        runner.on_stopping = progress.stopping
        runner.on_loading = progress.loading
        return runner.run()


def _check(
    options: RunOptions, tasks: list[Task], service: SessionService, given: str | None = None
) -> None:
    """Fail fast, before any worker starts (`UserError`): the protocol allows the run, the agent
    and the judge can be built, every org opens and the schema text its agents are shown loads
    (`given`: the `--schema` option).

    Opening each org here also builds a missing demo org once, instead of in every worker.
    """
    from crmarena_tui.llm.client import LLMError

    for interactive, org_type in sorted({(t.interactive, t.org_type) for t in tasks}):
        service.check_agent_run(  # (ProtocolRefused, from cli.main)
            options.agent,
            strategy=options.strategy,
            interactive=interactive,
            org_type=org_type,
            user=options.user_model,
            lenient=options.lenient,
        )
    try:
        service.agent(options.agent, strategy=options.strategy, api_base=options.api_base)
    except ImportError:
        raise UserError("the reference agent is not available in this build") from None
    except UserError:
        raise
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    try:
        service.judge()
    except (LLMError, ValueError) as exc:
        raise UserError(f"cannot set up the judge {service.settings.judge_model!r}: {exc}") from exc
    protocol = service.protocol_for(options.agent)
    check_schema_file(service, tasks, protocol, given)
    open_each_org(
        tasks, options.org, options.lenient, lambda org: service.schemas.for_org(org, protocol)
    )


class Progress:
    """A rich progress bar on stderr: attempts done (tasks x trials), running mean reward."""

    def __init__(self, total: int, agent: str) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as RichProgress

        self.console = Console(stderr=True)
        self.bar = RichProgress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[status]}"),
            TimeElapsedColumn(),
            console=self.console,
            transient=False,
        )
        self.task_id = self.bar.add_task(agent, total=total, status="")
        self.rewards: list[float] = []
        self.problems = 0

    def __enter__(self) -> Progress:
        self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.stop()

    def advance(self, result: TaskResult) -> None:
        if result.reward is not None:
            self.rewards.append(result.reward)
        if result.outcome in ("failed", "unfinished"):
            self.problems += 1
        mean = f"mean reward {sum(self.rewards) / len(self.rewards):.2f}" if self.rewards else ""
        extra = f", {self.problems} not finished" if self.problems else ""
        self.bar.update(self.task_id, advance=1, status=mean + extra)

    def loading(self, loading: bool) -> None:
        """The model client loads before the first task starts (litellm's import takes seconds):
        a line above the bar says so, and the bar's status while it lasts."""
        if loading:
            self.console.print("loading the model client...", markup=False)
        self.bar.update(self.task_id, status="loading the model client..." if loading else "")

    def stopping(self) -> None:
        self.console.print("Stopping after the current steps... (Ctrl-C again to quit at once)")


def print_summary(report: RunReport, fmt: str) -> None:
    summary = report.summary()
    if fmt == "json":
        print(json.dumps(summary, indent=1))
        return
    from rich.console import Console
    from rich.table import Table

    def mean(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    table = Table(title=f"{report.agent}: reward by task type")
    table.add_column("task type")
    table.add_column("n", justify="right")
    table.add_column("mean reward", justify="right")
    for name, row in summary["by_task"].items():
        table.add_row(name, str(row["n"]), mean(row["mean"]))
    overall = summary["overall"]
    table.add_section()
    table.add_row("overall", str(overall["n"]), mean(overall["mean"]), style="bold")
    console = Console(soft_wrap=True)
    console.print(table)
    counts = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in sorted(summary["outcomes"].items()))
    if summary["trials"] > 1:
        head = f"{summary['tasks']} tasks x {summary['trials']} trials"
        console.print(f"{head} = {summary['attempts']} attempts: {counts}")
    else:
        console.print(f"{summary['tasks']} tasks: {counts}")
    ended = ", ".join(f"{n} {reason}" for reason, n in summary["end_reasons"].items())
    if ended:
        console.print(f"ended unconfirmed (reward 0): {ended}", markup=False)
    for failure in summary["failures"]:
        trial = f" (trial {failure['trial']})" if summary["trials"] > 1 else ""
        console.print(f"  {failure['task']}{trial}: {failure['error']}", markup=False)
