"""`crmarena-tui import FILE_OR_DIR...`: read upstream CRMArena result files, and trajectory files
of other harnesses (`interchange/`: recognised by content), into the sessions database."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from crmarena_tui.commands.common import (
    add_db,
    db_path,
    index_for_search,
    load_command_settings,
    note,
)
from crmarena_tui.errors import ExitCode, UserError

ORDER = 60


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "import",
        help="import upstream result files (results_<model>_<strategy>_<task>...json)",
        description="Read upstream CRMArena(-Pro) result files into the sessions database: one agent "
        "session per item, with its trajectory as events and its reward and metrics kept as an "
        "imported (upstream-protocol) grade. Folders are searched recursively for *.json. Both "
        "upstream layouts are read: results/{org}[_interactive]/{strategy}_{provider}"
        "[_privacy_aware]/results_{model}_{strategy}_{task}.json and "
        "results_{model}_{strategy}_{task}_interactive-{True|False}.json; org and mode come from "
        "the folders or the name, else from the rows. Aided and privacy-aware runs become their "
        "own participants. Runs that died on an infrastructure error (rate limit, timeout, org "
        "outage) are marked, and reports leave them out of success rates. Importing the same file "
        "again changes nothing; a malformed or truncated file is refused whole, naming the file. "
        "Each file is written in one transaction. The summary names each model and setting, its "
        "session count and the task source its sessions were filed under. Each file's sessions "
        "are indexed for search in the transaction that writes them, so the first search answers "
        "at once (--search-index later leaves them to the first search). Trajectory files of "
        "other harnesses are recognised by their content and imported too: ATIF trajectories "
        "(one per file) and Inspect eval logs (.eval, .json); each entry becomes a session of its "
        "configuration, matched to its task by idx or query text in --task-source (default: the "
        "source the file names, else hf:b2b), its own grade kept, else its final answer graded "
        "here under --protocol.",
    )
    parser.add_argument(
        "paths",
        nargs="+",
        type=Path,
        metavar="FILE_OR_DIR",
        help="result files or folders holding them",
    )
    parser.add_argument(
        "--org-type",
        choices=("b2b", "b2c", "original"),
        default=None,
        help="the org the runs used (default: a b2b/b2c/original folder, with or without "
        "_interactive, on the path, else b2b)",
    )
    parser.add_argument(
        "--task-source",
        metavar="SRC",
        default=None,
        help="task source to file the sessions under (default: hf:<org> or "
        "hf:<org>_interactive, the split whose idx upstream's task_id is)",
    )
    parser.add_argument(
        "--protocol",
        choices=("upstream", "workbench"),
        default=None,
        help="grading protocol for imported trajectories that have a final answer and no grade "
        "(default: the `protocol` setting, else upstream); their own grades are kept",
    )
    parser.add_argument(
        "--search-index",
        choices=("now", "later"),
        default="now",
        help="when the imported sessions' steps are indexed for `search`: now, as they are "
        "written, so the first search answers at once; or later, by the first search (which "
        "indexes every session waiting first, a progress line on stderr): a quicker import, "
        "for sessions you may never search, the index being most of an import's CPU "
        "(default: %(default)s)",
    )
    add_db(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from crmarena_tui.storage import Store

    missing = [str(p) for p in args.paths if not p.exists()]
    if missing:
        raise UserError(f"no such file or folder: {', '.join(missing)}")
    from crmarena_tui.interchange.importer import find_files, recognise

    trajectories, results = recognise(find_files(args.paths))
    with Store(db_path(args)) as store:
        store.check_damage()  # before any write, whatever the file's size
        with store.in_bulk():
            refused = _import_trajectories(store, trajectories, args) if trajectories else 0
            failed = _import_results(store, results, args, alone=not trajectories)
            if _now(args):
                index_for_search(store)  # now, not at the first search (search_index.py)
            else:
                _left_to_search(store)
    return ExitCode.FAILED if failed or refused else ExitCode.OK


def _now(args: argparse.Namespace) -> bool:
    """Index as the sessions are written (`now`), or have the bulk writer record them as pending
    in the same transaction for the first search (`later`: storage/bulk.py)."""
    return bool(args.search_index == "now")


def _left_to_search(store: Any) -> None:
    """Say how many sessions the first search will index before it answers (`later`), so that
    its wait is not a surprise; those of an earlier import or a live session left pending are
    counted too, being indexed by the same search."""
    from crmarena_tui.storage import search_index

    waiting = search_index.pending(store)
    if waiting:
        note(
            f"note: {waiting:,} session(s) left to the first search to index (--search-index later)"
        )


def _import_results(
    store: Any, results: list[Path], args: argparse.Namespace, *, alone: bool
) -> int:
    """Import upstream result files (`storage/upstream.py`, imported only when there are some;
    `alone`: no trajectory files were found either); the number of files refused."""
    if not results and not alone:
        return 0
    from crmarena_tui.storage.upstream import UpstreamImporter
    from crmarena_tui.storage.upstream_read import ReaderStopped

    importer = UpstreamImporter(
        store, org_type=args.org_type, task_source=args.task_source, index=_now(args)
    )
    try:
        summary = importer.import_paths(results)
    except ReaderStopped as exc:  # (a sessions database's own faults: StorageError, cli.main)
        raise UserError(str(exc)) from exc
    for error in summary.refused:  # each left out, and the rest imported
        note(f"refused {error}")
    if summary.files == 0 and alone:
        raise UserError("no .json files found")
    if summary.files:
        print("\n".join(summary.lines()), flush=True)
    return len(summary.refused)


def _import_trajectories(store: Any, files: list[Any], args: argparse.Namespace) -> int:
    """Import other harnesses' trajectory files (`interchange/`), then grade the sessions that
    came with a final answer and no grade; the number of files refused."""
    from crmarena_tui.interchange.importer import import_trajectories
    from crmarena_tui.interchange.task_match import TaskMatcher
    from crmarena_tui.interchange.writer import TrajectoryWriter
    from crmarena_tui.session.episode import EpisodeError
    from crmarena_tui.session.service import SessionService

    service = SessionService(load_command_settings(protocol=args.protocol))
    source = args.task_source or (f"hf:{args.org_type}" if args.org_type else None)
    writer = TrajectoryWriter(
        store, tasks=TaskMatcher(source), protocol=service.protocol, index=_now(args)
    )
    summary = import_trajectories(files, writer)
    for error in summary.refused:  # each left out, and the rest imported
        note(f"refused {error}")
    print("\n".join(summary.lines()), flush=True)
    graded = 0
    for session_id in summary.ungraded:
        try:
            service.regrade(store, session_id)
        except EpisodeError as exc:  # (a session with no answer: nothing to grade)
            note(f"not graded: {exc}")
            continue
        graded += 1
    if graded:
        print(f"graded {graded:,} imported session(s) under {service.protocol}", flush=True)
    return len(summary.refused)
