"""`crmarena-tui tasks list|export|types|stats`: look at a task source without opening the app."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from crmarena_tui.commands._out import add_force, check_out
from crmarena_tui.commands.common import add_format, add_tasks, load_source
from crmarena_tui.errors import ExitCode, UserError

ORDER = 20
QUERY_MIN = 30


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("tasks", help="list, count or export the tasks of a source")
    tsub = parser.add_subparsers(dest="tasks_command", metavar="ACTION", required=True)

    lst = tsub.add_parser(
        "list", help="list tasks (table, JSON rows or a count); answers only with --with-answers"
    )
    add_tasks(lst)
    lst.add_argument("--task", metavar="TYPE", help="only tasks of this type (e.g. handle_time)")
    lst.add_argument("--org-type", choices=("b2b", "b2c", "original"), help="only this org type")
    add_format(lst, ("table", "json", "count"))
    lst.add_argument(
        "--with-answers",
        action="store_true",
        help="include each task's ground truth (an `answer` column, or the `answer` field in "
        "JSON); without it no answer is printed, so none is seen by accident",
    )
    lst.set_defaults(func=run_list)

    exp = tsub.add_parser("export", help="write the tasks of a source to a .json/.jsonl file")
    add_tasks(exp)
    exp.add_argument("--task", metavar="TYPE", help="only tasks of this type")
    exp.add_argument("--out", type=Path, required=True, help="output file (.json or .jsonl)")
    add_force(exp)
    exp.set_defaults(func=run_export)

    stats = tsub.add_parser(
        "stats",
        help="per task type: count, None and multi-item answer shares, mean query and answer "
        "length, period kinds",
        description="The shape of a task set, per task type: how many tasks, the share whose "
        "answer is None, the share whose answer has several items, the mean query and answer "
        "length in characters (answers that are not None), and the kinds of period the queries "
        "name (seasons, quarters, months, years, 'past N weeks/months/quarters', 'N days ago'). "
        "While the blind setting is on, no gold answer is read (the None, multi and answer "
        "figures are left out) and neither is a chat task's request.",
    )
    add_tasks(stats)
    stats.add_argument("--org-type", choices=("b2b", "b2c", "original"), help="only this org type")
    stats.add_argument(
        "--mode", choices=("single", "interactive"), help="only single-turn or interactive tasks"
    )
    add_format(stats)
    stats.set_defaults(func=run_stats, task=None)

    types = tsub.add_parser("types", help="the 22 task types: metric, facing, skill")
    add_format(types)
    types.set_defaults(func=run_types)


def _selected(args: argparse.Namespace) -> list:
    from crmarena_tui.tasks.catalog import BY_NAME

    if args.task and args.task not in BY_NAME:
        raise UserError(
            f"unknown task type {args.task!r}; see `crmarena-tui tasks types`", code=ExitCode.USAGE
        )
    tasks = load_source(args)
    if args.task:
        tasks = [t for t in tasks if t.task == args.task]
    if getattr(args, "org_type", None):
        tasks = [t for t in tasks if t.org_type == args.org_type]
    return tasks


STATS_COLUMNS = ("task", "n", "None", "multi", "query", "answer", "periods")


def blind_on() -> bool:
    """The `blind` setting (CRMARENA_TUI_BLIND, else config.toml), as the app reads it first."""
    from crmarena_tui.settings.config_file import quick_setting

    return bool(quick_setting("blind"))


def blind_refusal(what: str) -> UserError:
    """The refusal of `what` while blind (as `grade --show-gold` is refused), exit code 2."""
    return UserError(
        f"{what} is refused while the blind setting is on (a study must not see a gold "
        "answer); turn it off first: CRMARENA_TUI_BLIND=0, or blind = false in config.toml",
        code=ExitCode.USAGE,
    )


def run_list(args: argparse.Namespace) -> int:
    blind = blind_on()
    if blind and args.with_answers:
        raise blind_refusal("--with-answers")
    tasks = _selected(args)
    if args.format == "count":
        print(len(tasks))
    elif args.format == "json":
        rows = [t.row() for t in tasks]
        for row in rows:
            if not args.with_answers:  # the ground truth only when asked for by name
                row.pop("answer", None)
            if blind and row["interactive"]:  # the simulated customer reveals it in the chat
                row.pop("query", None)
        print(json.dumps(rows, ensure_ascii=False, indent=1))
    else:
        _print_table(args, tasks, blind)
    return 0


def _print_table(args: argparse.Namespace, tasks: list, blind: bool = False) -> None:
    """The task table; the query column keeps at least `QUERY_MIN` cells at any width (piped
    output is 80 columns wide): the task type and metric columns give way first."""
    from rich.console import Console
    from rich.table import Table

    from crmarena_tui.tasks.blind import shown_query

    console = Console()
    narrow = console.width < 120
    table = Table(
        title=f"{len(tasks)} tasks from {args.tasks}",
        title_justify="left",
        show_edge=not narrow,
        collapse_padding=narrow,
    )
    table.add_column("idx", no_wrap=True)
    table.add_column("task", no_wrap=True, overflow="ellipsis", max_width=16 if narrow else None)
    table.add_column("org", no_wrap=True)
    table.add_column("mode", no_wrap=True)
    table.add_column("metric", no_wrap=True, overflow="ellipsis", max_width=7 if narrow else None)
    if args.with_answers:
        table.add_column("answer", overflow="ellipsis", max_width=12 if narrow else 24)
    table.add_column("query", overflow="ellipsis", min_width=QUERY_MIN, ratio=1)
    for t in tasks:
        cells = [str(t.idx), t.task, t.org_type, "multi" if t.interactive else "single"]
        cells.append(t.reward_metric)
        if args.with_answers:
            cells.append(", ".join(t.gold))
        cells.append(shown_query(t) if blind else " ".join(t.query.split())[:90])
        table.add_row(*cells)
    console.print(table)


def run_export(args: argparse.Namespace) -> int:
    if blind_on():  # the file would hold every gold answer and every chat task's request
        raise blind_refusal("tasks export")
    check_out(args.out, force=args.force, inputs=[args.tasks])
    tasks = _selected(args)
    rows = [t.row() for t in tasks]
    for row in rows:
        if row.get("source") != "demo":  # demo rows keep it: they still run on the demo org
            row.pop("source", None)
    out: Path = args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix.lower() == ".jsonl":
        out.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
        )
    elif out.suffix.lower() == ".json":
        out.write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")
    else:
        raise UserError(
            f"unsupported output type {out.suffix!r}: use .json or .jsonl", code=ExitCode.USAGE
        )
    print(f"wrote {len(rows)} tasks to {out}")
    return 0


def run_stats(args: argparse.Namespace) -> int:
    from crmarena_tui.tasks.stats import shape, total

    tasks = _selected(args)
    if args.mode:
        tasks = [t for t in tasks if t.interactive == (args.mode == "interactive")]
    blind = blind_on()  # no gold answer and no chat task's request is read (tasks/stats.py)
    shapes = shape(tasks, blind)
    if args.format == "json":
        print(json.dumps([s.row(blind) for s in shapes], indent=1))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{len(tasks)} tasks from {args.tasks}", title_justify="left")
    columns = ("task", "n", "query", "periods") if blind else STATS_COLUMNS
    for col in columns:
        table.add_column(col, justify="left" if col in ("task", "periods") else "right")
    for s in [*shapes, total(shapes)] if shapes else []:
        periods = ", ".join(f"{k} {n}" for k, n in s.periods.most_common())
        cells = {
            "task": s.task,
            "n": str(s.count),
            "None": f"{s.none_share:.0%}",
            "multi": f"{s.multi_share:.0%}",
            "query": f"{s.mean_query:.0f}" if s.queries else "-",
            "answer": f"{s.mean_answer:.0f}" if s.answers else "-",
            "periods": periods or "-",
        }
        table.add_row(*(cells[c] for c in columns), end_section=s is shapes[-1])
    Console().print(table)
    if blind:
        print(
            "query: mean characters of the single-turn requests. The blind setting is on: the "
            "answers' figures (None, multi, answer length) and chat tasks' requests are left out"
        )
    else:
        print("None, multi: share of tasks; query, answer: mean characters (answers not None)")
    return 0


def run_types(args: argparse.Namespace) -> int:
    from crmarena_tui.tasks.catalog import TASK_TYPES

    if args.format == "json":
        print(
            json.dumps(
                [
                    {
                        "name": t.name,
                        "metric": t.metric,
                        "facing": t.facing,
                        "skill": t.skill,
                        "answer_kind": t.answer_kind,
                        "summary": t.summary,
                    }
                    for t in TASK_TYPES
                ],
                indent=1,
            )
        )
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title="CRMArena-Pro task types", title_justify="left")
    for col in ("task", "metric", "facing", "skill", "what it asks"):
        table.add_column(col)
    for t in TASK_TYPES:
        table.add_row(t.name, t.metric, t.facing, t.skill, t.summary)
    Console().print(table)
    return 0
