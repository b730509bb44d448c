"""Arguments shared by several subcommands, and small output helpers."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crmarena_tui.errors import ExitCode, UserError

if TYPE_CHECKING:
    from crmarena_tui.settings.config import Settings
    from crmarena_tui.storage.store import Store
    from crmarena_tui.tasks.model import Task
    from crmarena_tui.tasks.rows import LoadRules


def add_db(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        type=Path,
        default=None,
        help="sessions database (default: $CRMARENA_TUI_DB or $XDG_DATA_HOME/crmarena-tui/sessions.db)",
    )


def add_tasks(parser: argparse.ArgumentParser, default: str = "demo") -> None:
    parser.add_argument(
        "--tasks",
        default=default,
        metavar="SRC",
        help="task source: demo (built in, 8,560 tasks), demo:small (its first 12 per type and "
        "org type), hf:b2b, hf:b2c, hf:b2b_interactive, hf:b2c_interactive, hf:original, or a "
        ".json/.jsonl/.parquet file (default: %(default)s)",
    )
    parser.add_argument(
        "--allow-duplicates",
        action="store_true",
        help="load a task file whose rows repeat an idx, keeping the first of each and naming "
        "the rows left out (default: refused, naming both rows)",
    )
    parser.add_argument(
        "--allow-unknown-types",
        action="store_true",
        help="load rows whose task type is none of the 22 (`tasks types`); default: refused",
    )


def task_rules(args: argparse.Namespace) -> LoadRules:
    """What `--allow-duplicates` and `--allow-unknown-types` let a task source hold."""
    from crmarena_tui.tasks.rows import LoadRules

    return LoadRules(
        allow_duplicates=bool(getattr(args, "allow_duplicates", False)),
        allow_unknown_types=bool(getattr(args, "allow_unknown_types", False)),
    )


def load_source(args: argparse.Namespace) -> list[Task]:
    """The tasks of `--tasks` under the `--allow-*` options; the rows left out named on stderr.
    A source that cannot load raises `TaskLoadError` (one line, from `cli.main`)."""
    from crmarena_tui.demo.sources import load_tasks

    rules = task_rules(args)
    tasks = load_tasks(args.tasks, rules)
    for note in rules.notes:
        print(f"note: {note}", file=sys.stderr)
    return tasks


def add_org(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--org",
        default=None,
        metavar="ORG",
        help="the org every task runs on: demo, demo:b2b, demo:b2c, upstream:b2b|b2c|original "
        "(a snapshot fetched with `org fetch`), salesforce:b2b|b2c|original, or an org .db file "
        "(default: each task's own org: demo tasks the demo org, real tasks upstream:<type>, "
        "else salesforce:<type>)",
    )
    parser.add_argument(
        "--lenient",
        action="store_true",
        default=False,
        help="let a local org answer queries Salesforce refuses (filters on long text areas, "
        "COUNT() with GROUP BY, a date for a datetime field, ...); default: strict, like "
        "Salesforce (also the `lenient` setting, CRMARENA_TUI_LENIENT=1)",
    )


def add_judge_temperature(parser: argparse.ArgumentParser) -> None:
    """`--judge-temperature T`: the temperature sent to the judge (the `judge_temperature`
    setting; default: none under `upstream`, 0 under `workbench`)."""
    parser.add_argument(
        "--judge-temperature",
        type=float,
        metavar="T",
        default=None,
        help="temperature sent to the judge under every protocol (default: the "
        "judge_temperature setting, else none under upstream, as upstream's evaluator sent "
        "none, and 0 under workbench)",
    )


def add_schema(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--schema",
        default=None,
        metavar="hub|FILE|builtin",
        help="under --protocol upstream, where the agent's schema text comes from on upstream's "
        "orgs: hub (the hub's b2b_schema / b2c_schema rows, as upstream's runner loads them, "
        "through the datasets cache), FILE (those rows saved as .json, .jsonl or .parquet) or "
        "builtin (this project's descriptions, recorded on each session as a departure); "
        "default: the `schema` setting, $CRMARENA_TUI_SCHEMA, else hub",
    )


def check_schema_file(
    service: Any, tasks: Sequence[Any], protocol: str, given: str | None = None
) -> None:
    """A schema file holds one org's rows: refused (`UserError`) for tasks of several org types
    under `upstream`. A `--schema` `given` under `workbench` is noted as having no effect."""
    if given and protocol != "upstream":
        note("note: --schema applies under --protocol upstream only: workbench sessions show "
             "this project's own descriptions")  # fmt: skip
    path = service.schemas.file
    types = sorted({t.org_type for t in tasks})
    if protocol != "upstream" or path is None or len(types) < 2:
        return
    raise UserError(
        f"--schema {path} holds one org's schema rows, and the tasks are of "
        f"{len(types)} org types ({', '.join(types)}): run each org type with its own file "
        "(--task, or a task file of one org type)",
        code=ExitCode.USAGE,
    )


def day(text: str) -> date:
    """An argparse type: a `YYYY-MM-DD` date."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from None


ORG_TODAY_HELP = (
    "the day a local org's relative date literals (TODAY, LAST_N_MONTHS:4, ...) count from, "
    "under either protocol; default: the `org_today` setting ($CRMARENA_TUI_ORG_TODAY), else "
    "under upstream the run's date (as the live org counted) and under workbench the task's "
    "'Today's date'. Recorded with each session"
)


def add_org_today(parser: argparse.ArgumentParser, help: str = ORG_TODAY_HELP) -> None:
    parser.add_argument("--org-today", type=day, default=None, metavar="YYYY-MM-DD", help=help)


def add_format(
    parser: argparse.ArgumentParser, choices: tuple[str, ...] = ("table", "json")
) -> None:
    parser.add_argument("--format", choices=choices, default=choices[0], help="output format")


def db_path(args: argparse.Namespace) -> Path:
    """The sessions database a command opens, as the app resolves it: --db, else
    CRMARENA_TUI_DB or the config file's `db`, else the default place."""
    from crmarena_tui.settings import locations
    from crmarena_tui.settings.config_file import file_setting

    return locations.sessions_db_path(getattr(args, "db", None), file_setting("db"))


def index_for_search(store: Store) -> int:
    """The sessions a command just wrote (an import's, a merge's) indexed for search now, not at
    the first search (storage/search_index.py), with a line on stderr per chunk of sessions;
    returns the number indexed. Stopped midway, the rest is left to the first search."""
    from crmarena_tui.storage import search_index

    def progress(done: int, total: int) -> None:
        print(f"indexing for search: {done:,} of {total:,} session(s)", file=sys.stderr, flush=True)

    return search_index.catch_up(store, progress)


def note(message: str) -> None:
    """Print `message` on stderr (without the control codes its data may hold): a note or a
    warning, or an item a batch left out, never the command's own failure (that is raised as a
    `UserError`, for `cli.main` to print)."""
    from crmarena_tui.terminal_text import safe_text

    print(safe_text(message), file=sys.stderr)


@contextlib.contextmanager
def usage_errors() -> Iterator[None]:
    """Within: a refusal (`UserError`) the core raises for a value a command passed from its
    options is a usage error (exit code 2), its line unchanged (the core names no exit code)."""
    try:
        yield
    except UserError as exc:
        exc.exit_code = ExitCode.USAGE
        raise


def load_command_settings(**overrides: Any) -> Settings:
    """The settings with a command's options over them; a bad value is refused as a bad
    option is (exit code 2), naming where it came from (`settings.config.load_settings`)."""
    from crmarena_tui.settings.config import load_settings
    from crmarena_tui.settings.config_problem import SettingsProblem

    try:
        return load_settings(**overrides)
    except SettingsProblem as exc:
        raise UserError(f"bad settings: {exc}", code=ExitCode.USAGE) from None


def add_blind(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--blind",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="blind mode: the task browser hides task types, metrics and idx, lists the tasks "
        "in a neutral order (the same for you every time) and numbers them; no gold answer or "
        "other participant's answer shows before you submit a task (default: the `blind` "
        "setting, CRMARENA_TUI_BLIND, else off)",
    )


def add_pace(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--pace",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="the live agent view waits this long after each agent step, so a fast agent can "
        "be watched (e.g. 0.5 for demos; default: no wait)",
    )


def add_hidden_labels(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--hidden-labels",
        action="store_true",
        help="hide other annotators' labels and notes in the viewer, the sessions list and the "
        "report, so a second annotator is not biased (as the hidden_labels setting; b in the "
        "viewer switches it)",
    )


def open_each_org(
    tasks: Sequence[Any],
    org: str | None,
    lenient: bool,
    check: Callable[[Any], object] | None = None,
) -> None:
    """Fail fast before a batch (`run`, `mcp`): open the org of one task per route, as the tasks
    will (a missing demo org is built here, once), and `check` each opened org (it raises a
    `UserError`); an org that cannot open is refused (`UserError`), notes printed."""
    import sqlite3

    from crmarena_tui.session import org_resolve as resolve

    firsts = {(t.org_type, t.source): t for t in reversed(tasks)}  # one task per route
    for (org_type, _), task in sorted(firsts.items()):
        try:
            opened, route = resolve.open_task_org(task, org, lenient=lenient)
        except resolve.NoOrgForTask:
            raise
        except (UserError, ValueError, OSError, sqlite3.Error) as exc:
            raise UserError(f"cannot open the org for {org_type} tasks: {exc}") from exc
        if route.note:
            note(f"note: {route.note}")
        try:
            if check is not None:
                check(opened)
        finally:
            close = getattr(opened, "close", None)
            if callable(close):
                close()


def add_trials(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--trials",
        type=int,
        metavar="K",
        default=1,
        help="attempts per task, each its own session (trial 1 to K; trial 1 of every task "
        "first). Trials already stored are skipped: a later --trials 5 after --trials 3 adds "
        "trials 4 and 5 (default: %(default)s)",
    )


def add_upstream_prompts(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--upstream-prompts",
        type=Path,
        metavar="PATH",
        default=None,
        help="a checkout of upstream's repository (SalesforceAIResearch/CRMArena): under "
        "--protocol upstream, send its own prompts (agent, format correction, simulated user, "
        "judges), read as data, never imported (default: the upstream_prompts setting, "
        "$CRMARENA_TUI_UPSTREAM_PROMPTS, else this project's paraphrase)",
    )


def check_prompts(args: argparse.Namespace, service: Any) -> None:
    """Refuse (`UserError`) the prompts asked for when they cannot be used: `--upstream-prompts`
    under `workbench` (which has this project's own prompts), or a checkout missing a text
    (`CheckoutProblem`)."""
    if getattr(args, "upstream_prompts", None) is not None and service.protocol != "upstream":
        raise UserError(
            "--upstream-prompts needs --protocol upstream (workbench sends this "
            "project's own prompts)",
            code=ExitCode.USAGE,
        )
    service.prompt_source()
