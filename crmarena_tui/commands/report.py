"""`crmarena-tui report`: success by configuration, split, task type and skill (the task as the
unit: trials, intervals, pass@k and pass^k); human time; human vs agent; labels and annotator
agreement; filters on org type, mode, participant, task source and protocol; the paper's table as
markdown or LaTeX."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING

from crmarena_tui.commands.common import add_db, add_format, db_path
from crmarena_tui.errors import ExitCode, UserError

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store

ORDER = 80


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "report",
        help="success rates, human time, human vs agent, labels, annotator agreement",
        description="Summarise the sessions database. A win is reward >= 1 (exact_match, "
        "privacy_rejection) or token F1 >= the fuzzy threshold (fuzzy_match).",
    )
    add_db(parser)
    add_format(parser, ("table", "json", "markdown", "latex"))
    parser.add_argument(
        "--fuzzy-threshold",
        type=float,
        default=0.5,
        metavar="F1",
        help="F1 at or above which a fuzzy_match answer counts as a win (default: 0.5)",
    )
    parser.add_argument(
        "--with-infrastructure-errors",
        action="store_true",
        help="count sessions that ended on an infrastructure error (rate limit, timeout, org "
        "outage) as failures; by default they are left out of the figures and counted apart",
    )
    parser.add_argument(
        "--no-label-as-category",
        action="store_true",
        help='label agreement counts "no label" as a category, over every item either '
        "annotator labelled in the sessions both reviewed (default: the items both labelled); "
        "agreement on whether there is a failure always does",
    )
    parser.add_argument(
        "--versus",
        nargs=2,
        metavar=("A", "B"),
        help="A against B on the tasks both attempted: McNemar's exact test on wins and paired "
        "bootstrap intervals for the difference in success (and in F1 on fuzzy tasks), overall "
        "and per task type; A and B are configurations, names, configuration prefixes, humans "
        "or agents",
    )
    power = parser.add_argument_group("power (--mde)")
    power.add_argument(
        "--mde",
        action="store_true",
        help="per configuration and split, the smallest difference in success rate a "
        "comparison on its tasks could detect at 80%% power and α = 0.05 (paired, on the same "
        "tasks, and independent), with the assumptions",
    )
    power.add_argument(
        "--experts",
        type=int,
        default=1,
        metavar="K",
        help="--mde: the other side's attempts per task, e.g. K experts (default: 1)",
    )
    power.add_argument(
        "--discordance",
        type=float,
        metavar="SHARE",
        help="--mde: expected share of tasks where the two sides disagree (default: the sides "
        "independent on a task)",
    )
    parser.add_argument(
        "--sensitivity",
        action="store_true",
        help="grade every stored answer again offline under both protocols (no model calls, "
        "a judge's stored readings reused, nothing written) and count per configuration the "
        "grades that would change, and why",
    )
    units = parser.add_argument_group("the task as the unit (docs/statistics.md)")
    units.add_argument(
        "--k",
        metavar="K,K",
        help="pass@k and pass^k for these k (e.g. 1,2,4); a task with fewer than k trials is "
        "left out of that k and counted (default: 1 and the smallest trial count when tasks "
        "have several trials, none with one)",
    )
    units.add_argument(
        "--cluster",
        nargs="?",
        const="type",
        default=None,
        metavar="BY",
        help="clustered standard errors and intervals, tasks grouped by type (the default when "
        "BY is left out), task_source or org_ref; none: not clustered (the default)",
    )
    units.add_argument(
        "--interval",
        choices=("wilson", "clopper-pearson", "beta"),
        default="wilson",
        help="the 95%% interval of a row with one trial per task: Wilson's score interval "
        "(default), Clopper-Pearson's exact interval, or the Beta(c+1, n-c+1) posterior under "
        "a uniform prior; rows with several trials get the task mean +- t * SE",
    )
    only = parser.add_argument_group("which sessions (every section of the report)")
    only.add_argument("--org-type", choices=("b2b", "b2c", "original"), help="one org type")
    only.add_argument(
        "--mode", choices=("single", "chat"), help="single-turn sessions, or chats (multi-turn)"
    )
    only.add_argument(
        "--participant",
        action="append",
        default=[],
        metavar="NAME",
        help="a configuration (gpt-4o/react/aided), a participant's name, or a leading part "
        "of a configuration (gpt-4o: all its strategies); repeat for more",
    )
    only.add_argument(
        "--task-source",
        action="append",
        default=[],
        metavar="SRC",
        help="sessions on tasks of this source (hf:b2b, demo, a file); repeat for more",
    )
    only.add_argument(
        "--protocol",
        choices=("upstream", "workbench"),
        help="rewards of this grading protocol (the rows' protocol; for ungraded sessions, "
        "the protocol they ran under)",
    )
    only.add_argument(
        "--search",
        default="",
        metavar="QUERY",
        help="the sessions this search finds (the syntax of crmarena-tui search)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from crmarena_tui.reports.filters import ReportFilter
    from crmarena_tui.reports.summary import build_report
    from crmarena_tui.reports.task_units import CLUSTERS
    from crmarena_tui.storage import Store

    if not 0.0 <= args.fuzzy_threshold <= 1.0:
        raise UserError("--fuzzy-threshold must be between 0 and 1", code=ExitCode.USAGE)
    if args.experts < 1 or not 0.0 <= (args.discordance or 0.0) <= 1.0:
        raise UserError(
            "--experts is at least 1 and --discordance a share between 0 and 1", code=ExitCode.USAGE
        )
    cluster = None if args.cluster in (None, "none") else args.cluster
    if cluster is not None and cluster not in CLUSTERS:
        raise UserError(
            f"--cluster {cluster}: cluster by type, task_source, org_ref or none",
            code=ExitCode.USAGE,
        )
    ks = None
    if args.k is not None:
        try:
            ks = tuple(dict.fromkeys(int(k) for k in args.k.split(",") if k.strip()))
        except ValueError:
            ks = ()
        if not ks or min(ks) < 1:
            raise UserError(
                f"--k {args.k}: whole numbers of 1 or more, comma-separated", code=ExitCode.USAGE
            )
    path = db_path(args)
    if not path.exists():
        raise UserError(f"no sessions database at {path} (pass --db, or play, run or import first)")
    only = ReportFilter(
        org_type=args.org_type,
        mode=args.mode,
        participants=tuple(args.participant),
        task_sources=tuple(args.task_source),
        protocol=args.protocol,
    )
    with Store(path) as store, _searched(store, args.search) as searched:
        if only.participants:  # a name that names nothing: say so, with the closest ones
            from crmarena_tui.storage.participant_names import check_named
            from crmarena_tui.storage.search import configurations

            check_named(only.participants, configurations(store).values(), "--participant")
        if searched:
            only = replace(only, search=args.search.strip())
        report = build_report(
            store,
            args.fuzzy_threshold,
            with_infrastructure_errors=args.with_infrastructure_errors,
            no_label_as_category=args.no_label_as_category,
            versus=tuple(args.versus) if getattr(args, "versus", None) else None,
            only=only,
            interval=args.interval,
            cluster=cluster,
            ks=ks,
        )
        if args.sensitivity:
            from crmarena_tui.reports.sensitivity import sensitivity

            report["sensitivity"] = sensitivity(
                store,
                only=only,
                fuzzy_threshold=args.fuzzy_threshold,
                with_infrastructure_errors=args.with_infrastructure_errors,
            )
        from crmarena_tui.reports.themes_section import themes_section

        themed = themes_section(store)
        if themed is not None:
            report["themes"] = themed
    if args.mde:
        from crmarena_tui.reports.power_rows import mde_section

        report["power"] = mde_section(report, experts=args.experts, discordance=args.discordance)
    if args.format == "json":
        print(json.dumps(report, indent=1, ensure_ascii=False))
        return 0
    if args.format in ("markdown", "latex"):
        from crmarena_tui.reports.paper_table import paper_table

        print(paper_table(report, args.format))
        return 0
    from rich.console import Console

    from crmarena_tui.reports.render import render_report

    console = Console()
    if not console.is_terminal:  # piped or redirected: no terminal width to fit, keep rows whole
        console = Console(width=160)
    console.print(render_report(report))
    if args.mde:
        from crmarena_tui.reports.power_rows import mde_table

        console.print(mde_table(report["power"]) or "No rows to size: --mde has nothing to show.")
    if args.sensitivity:
        from crmarena_tui.reports.render_sensitivity import sensitivity_table

        console.print(sensitivity_table(report["sensitivity"]))
    if report.get("themes"):
        from crmarena_tui.reports.themes_section import themes_table

        console.print(themes_table(report["themes"]))
    return 0


@contextmanager
def _searched(store: Store, text: str) -> Iterator[bool]:
    """The store reads only the sessions the search `text` finds (no search: every one)."""
    if not text.strip():
        yield False
        return
    from crmarena_tui.commands.search import indexing
    from crmarena_tui.storage.search import SearchSyntaxError, session_ids
    from crmarena_tui.storage.search_sessions import only_sessions

    try:
        found = session_ids(store, text, progress=indexing)
    except SearchSyntaxError as exc:
        raise UserError(f"--search: {exc}", code=ExitCode.USAGE) from None
    with only_sessions(store, found):
        yield True
