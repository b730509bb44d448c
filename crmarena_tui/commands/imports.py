"""`crmarena-tui import FILE_OR_DIR...`: read upstream CRMArena result files into the sessions database."""

from __future__ import annotations

import argparse
from pathlib import Path

from crmarena_tui.commands.common import add_db, db_path, index_for_search, note
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
        "at once.",
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
    add_db(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from crmarena_tui.storage import Store
    from crmarena_tui.storage.upstream import UpstreamImporter
    from crmarena_tui.storage.upstream_read import ReaderStopped

    missing = [str(p) for p in args.paths if not p.exists()]
    if missing:
        raise UserError(f"no such file or folder: {', '.join(missing)}")
    try:
        with Store(db_path(args)) as store:
            store.check_damage()  # before any write, whatever the file's size
            importer = UpstreamImporter(
                store, org_type=args.org_type, task_source=args.task_source, index=True
            )
            summary = importer.import_paths(args.paths)
            for error in summary.refused:  # each left out, and the rest imported
                note(f"refused {error}")
            if summary.files == 0:
                raise UserError("no .json files found")
            print("\n".join(summary.lines()), flush=True)
            index_for_search(store)  # now, not at the first search (storage/search_index.py)
    except ReaderStopped as exc:  # (a sessions database's own faults: StorageError, from cli.main)
        raise UserError(str(exc)) from exc
    return ExitCode.FAILED if summary.refused else ExitCode.OK
