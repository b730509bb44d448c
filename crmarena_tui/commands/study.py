"""`crmarena-tui study create|list|status|close|export|import|report`: baseline studies, in which
several experts each work an assigned, balanced share of the tasks (crmarena_tui/studies/)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from crmarena_tui.commands._out import add_force, check_out
from crmarena_tui.commands.common import (
    add_db,
    add_format,
    add_org,
    add_tasks,
    db_path,
    load_source,
    usage_errors,
)
from crmarena_tui.errors import ExitCode, UserError

if TYPE_CHECKING:
    from crmarena_tui.storage import Store

ORDER = 30


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "study",
        help="baseline studies: assign tasks to several experts, follow progress, report",
        description="A study hands each task to K different participants, balanced across "
        "participants and task types, each participant's queue in a seeded order. Participants "
        "work it with `play --study NAME --as WHO` (or on one shared host, `serve --study NAME`).",
    )
    ssub = parser.add_subparsers(dest="study_command", metavar="ACTION", required=True)

    create = ssub.add_parser(
        "create",
        help="write a study: tasks, participants, K per task, seed, time limit",
        description="Load the tasks as `play` does, keep the chosen types, optionally sample N of "
        "them (evenly across task types, with the seed), give each task to K different "
        "participants and print each participant's number of tasks and join code.",
    )
    create.add_argument("name", metavar="NAME", help="the study's name (unique in the database)")
    add_tasks(create)
    add_org(create)
    create.add_argument("--task", metavar="TYPE,...", help="only tasks of these types")
    create.add_argument("--sample", type=int, metavar="N", help="pick N of the selected tasks")
    create.add_argument(
        "--per-task", type=int, required=True, metavar="K", help="participants per task"
    )
    create.add_argument(
        "--participants", required=True, metavar="A,B,C", help="participant names, comma-separated"
    )
    create.add_argument("--seed", type=int, default=0, help="seed of the plan (default: 0)")
    create.add_argument(
        "--time-limit",
        type=float,
        metavar="MIN",
        help="minutes of active time allowed per task (default: no limit)",
    )
    create.add_argument(
        "--show-grade",
        choices=("after-submit", "never"),
        default="after-submit",
        help="whether a participant sees their grade after submitting (default: %(default)s)",
    )
    power = create.add_argument_group(
        "power (printed after the plan: the smallest difference from an agent's rate the study "
        "can detect, at 80%% power and α = 0.05)"
    )
    power.add_argument(
        "--agent-rate",
        type=float,
        metavar="RATE",
        help="the agent's success rate to size against, a share (0.58); default: the agents' "
        "latest graded attempts on the study's tasks in this database, else 0.5",
    )
    power.add_argument(
        "--discordance",
        type=float,
        metavar="SHARE",
        help="expected share of (expert, task) pairs where expert and agent disagree, for the "
        "paired figure (default: expert and agent independent on a task)",
    )
    power.add_argument(
        "--agent-tasks",
        type=int,
        metavar="N",
        help="tasks the agent ran, for the independent figure (default: the study's tasks)",
    )
    add_db(create)
    create.set_defaults(func=run_create)

    lst = ssub.add_parser("list", help="the studies of the database")
    add_db(lst)
    lst.set_defaults(func=run_list)

    status = ssub.add_parser(
        "status", help="per participant: done, in progress, left, active time; completion"
    )
    status.add_argument("name", metavar="NAME")
    add_db(status)
    add_format(status)
    status.set_defaults(func=run_status)

    close = ssub.add_parser("close", help="close a study: nobody can join it any more")
    close.add_argument("name", metavar="NAME")
    add_db(close)
    close.set_defaults(func=run_close)

    export = ssub.add_parser(
        "export",
        help="write a study's plan (participants, join codes, queues) to a .json file",
        description="The file carries the study to other machines: `study import FILE` on each "
        "expert's laptop, then they work offline; `sessions merge` brings their databases back "
        "together.",
    )
    export.add_argument("name", metavar="NAME")
    export.add_argument("--out", type=Path, required=True, metavar="FILE.json")
    add_force(export)
    add_db(export)
    export.set_defaults(func=run_export)

    imp = ssub.add_parser(
        "import",
        help="write a study exported with `study export` into this database",
        description="Importing the same file again changes nothing; a different study under a "
        "name the database already has is refused.",
    )
    imp.add_argument("file", type=Path, metavar="FILE.json")
    add_db(imp)
    imp.set_defaults(func=run_import)

    report = ssub.add_parser(
        "report",
        help="the human baseline per task type with 95%% intervals, time, agreement, agents",
        description="Per task type: human accuracy with a 95% interval (Wilson for exact-match "
        "metrics, percentile bootstrap for mean F1), median active time with its IQR, agreement "
        "between the experts who did the same task (share where all agree; Fleiss' kappa, "
        "Scott's pi for K = 2, whatever order the experts are listed in), and each agent that ran the same tasks. Counts the study's "
        "submitted attempts (not forks or take-overs).",
    )
    report.add_argument("name", metavar="NAME")
    add_format(report)
    report.add_argument(
        "--fuzzy-threshold",
        type=float,
        default=0.5,
        metavar="F1",
        help="F1 at or above which a fuzzy_match answer counts as correct, for agreement "
        "(default: 0.5)",
    )
    add_db(report)
    report.set_defaults(func=run_report)


def _open(args: argparse.Namespace, *, must_exist: bool = True) -> Store:
    from crmarena_tui.storage import Store

    path = db_path(args)
    if must_exist and not path.exists():
        raise UserError(f"no sessions database at {path} (pass --db, or create a study first)")
    return Store(path)


def _names(text: str) -> list[str]:
    return [part.strip() for part in text.split(",")]


def _sizing(args: argparse.Namespace, store: Store, tasks: list[tuple[str, int]]) -> dict:
    """The study's power figures (`studies.sizing`); options they cannot take are refused."""
    from crmarena_tui.studies.sizing import choose_agent_rate, sizing

    if args.agent_rate is not None and not 0.0 <= args.agent_rate <= 1.0:
        raise UserError(
            f"--agent-rate is a share between 0 and 1 (got {args.agent_rate:g})",
            code=ExitCode.USAGE,
        )
    if args.agent_tasks is not None and args.agent_tasks < 1:
        raise UserError("--agent-tasks is at least 1", code=ExitCode.USAGE)
    rate = choose_agent_rate(args.agent_rate, store, tasks)
    try:
        return sizing(
            len(tasks),
            args.per_task,
            rate,
            discordance=args.discordance,
            agent_tasks=args.agent_tasks,
        )
    except ValueError as exc:
        raise UserError(f"--discordance: {exc}", code=ExitCode.USAGE) from None


def run_create(args: argparse.Namespace) -> int:
    from crmarena_tui.studies import assign, db
    from crmarena_tui.studies.sizing import sizing_text
    from crmarena_tui.studies.text import table
    from crmarena_tui.tasks.catalog import BY_NAME

    types = [t.strip() for t in args.task.split(",") if t.strip()] if args.task else []
    unknown = [t for t in types if t not in BY_NAME]
    if unknown:
        raise UserError(
            f"unknown task type {', '.join(unknown)}; see `crmarena-tui tasks types`",
            code=ExitCode.USAGE,
        )
    names = _names(args.participants)
    with usage_errors():  # (the core's StudyError, for what the options ask)
        assign.check_participants(names, args.per_task)
        db.check_terms(args.name, args.show_grade, args.time_limit)
    tasks = load_source(args)
    typed = list(
        {t.key: ((t.source, t.idx), t.task) for t in tasks if not types or t.task in types}.values()
    )
    if not typed:
        raise UserError(f"no tasks of {args.tasks} match --task {args.task}")
    store = _open(args, must_exist=False)
    with store:
        if args.sample is not None:
            with usage_errors():
                typed = assign.sample(typed, args.sample, args.seed)
        queues = assign.plan(typed, names, args.per_task, args.seed)
        power = _sizing(args, store, [key for key, _type in typed])
        study = db.create_study(
            store,
            args.name,
            tasks=args.tasks,
            org=args.org,
            per_task=args.per_task,
            seed=args.seed,
            queues=queues,
            task_types=dict(typed),
            time_limit_minutes=args.time_limit,
            show_grade=args.show_grade,
        )
        codes = db.participants(store, study)
    print(
        f"Study {study.name!r} created: {len(typed)} tasks from {study.tasks}, each for "
        f"{study.per_task} of {len(names)} participants, seed {study.seed}"
        + (f", {study.time_limit_minutes:g} min per task" if study.time_limit_minutes else "")
        + (", grades never shown" if study.show_grade == "never" else "")
        + "."
    )
    print(
        table(
            ["participant", "tasks", "join code"], [[n, str(len(queues[n])), c] for n, c in codes]
        )
    )
    print("\n".join(sizing_text(power)))
    where = f" --db {args.db}" if args.db else ""
    print(
        f"Start: crmarena-tui play --study {study.name} --as {names[0]}{where} (on each expert's "
        f"machine), or crmarena-tui serve --study {study.name}{where} (one shared host)."
    )
    return 0


def run_list(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from crmarena_tui.studies import db
    from crmarena_tui.studies.text import table

    store = _open(args)
    with store:
        studies = db.list_studies(store)
        rows = []
        for s in studies:
            people = db.participants(store, s)
            tasks = {key for _who, _pos, key, _type in db.assignments(store, s)}
            created = datetime.fromtimestamp(s.created_at, UTC).strftime("%Y-%m-%d %H:%M")
            rows.append(
                [
                    s.name,
                    s.status,
                    str(len(tasks)),
                    str(s.per_task),
                    str(len(people)),
                    s.tasks,
                    created,
                ]
            )
    if not rows:
        print(f"No studies in {db_path(args)} (create one with `crmarena-tui study create`).")
        return 0
    print(table(["study", "status", "tasks", "K", "participants", "source", "created (UTC)"], rows))
    return 0


def run_status(args: argparse.Namespace) -> int:
    import json

    from crmarena_tui.studies import db
    from crmarena_tui.studies.joins import refusals_line
    from crmarena_tui.studies.progress import completion, format_seconds, study_progress
    from crmarena_tui.studies.text import table

    store = _open(args)
    with store:
        study = db.get_study(store, args.name)
        rows = study_progress(store, study)
        refusals = refusals_line(store, study)
    share = completion(rows)
    if args.format == "json":
        out = {"study": study.name, "status": study.status, "completion": round(share, 4)}
        print(json.dumps({**out, "participants": [r.row() for r in rows]}, indent=1))
        return 0
    assigned = sum(r.assigned for r in rows)
    print(
        f"Study {study.name!r} ({study.status}{': no more joining' if not study.is_open else ''}):"
        f" {len(rows)} participants, {assigned} assignments ({study.per_task} per task)"
    )
    body = [
        [
            r.participant,
            str(r.done),
            str(r.in_progress),
            str(r.left),
            format_seconds(r.active_seconds),
        ]
        for r in rows
    ]
    print(table(["participant", "done", "in progress", "left", "active time"], body))
    print(f"Completion: {sum(r.done for r in rows)} of {assigned} done ({share:.1%})")
    if refusals:  # (the join screen's log: studies/joins.py)
        print(refusals)
    return 0


def run_close(args: argparse.Namespace) -> int:
    from crmarena_tui.studies import db

    store = _open(args)
    with store:
        study = db.close_study(store, args.name)
    print(f"Study {study.name!r} is closed: nobody can join it; its sessions are kept.")
    return 0


def run_export(args: argparse.Namespace) -> int:
    from crmarena_tui.studies.transfer import export_study

    check_out(args.out, force=args.force, inputs=[db_path(args)])
    store = _open(args)
    with store:
        try:
            study = export_study(store, args.name, args.out)
        except OSError as exc:  # (a study's own refusal: StudyError, from cli.main)
            raise UserError(str(exc)) from exc
    print(f"Wrote study {study.name!r} to {args.out}.")
    print(
        f"On each laptop: crmarena-tui study import {args.out.name} (then play --study "
        f"{study.name} --as NAME)"
    )
    if not study.tasks.startswith(("demo", "hf:")):
        print(
            f"note: its tasks come from the file {study.tasks}: copy it to the same path on "
            "each laptop, since sessions name their tasks by that path"
        )
    return 0


def run_import(args: argparse.Namespace) -> int:
    from crmarena_tui.studies.transfer import import_study

    if not args.file.exists():
        raise UserError(f"no such file: {args.file}")
    store = _open(args, must_exist=False)
    with store:
        study, added = import_study(store, args.file)
    if added:
        print(f"Imported study {study.name!r} into {db_path(args)}.")
    else:
        print(f"Study {study.name!r} is already in {db_path(args)}; nothing changed.")
    return 0


def run_report(args: argparse.Namespace) -> int:
    import json

    from crmarena_tui.studies import db
    from crmarena_tui.studies.report import build_study_report
    from crmarena_tui.studies.text import render_study_report

    if not 0.0 <= args.fuzzy_threshold <= 1.0:
        raise UserError("--fuzzy-threshold must be between 0 and 1", code=ExitCode.USAGE)
    store = _open(args)
    with store:
        report = build_study_report(store, db.get_study(store, args.name), args.fuzzy_threshold)
    if args.format == "json":
        print(json.dumps(report, indent=1, ensure_ascii=False))
    else:
        print(render_study_report(report))
    return 0
