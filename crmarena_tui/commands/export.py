"""`crmarena-tui export`: every session, one row each, as JSON Lines, CSV or Parquet."""

from __future__ import annotations

import argparse
from pathlib import Path

from crmarena_tui.commands.common import add_db, db_path, fail

ORDER = 70


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "export",
        help="write every session (task, participant, answer, grade, times, events, "
        "labels) to a .jsonl, .csv or .parquet file",
    )
    parser.add_argument(
        "--format",
        choices=("jsonl", "csv", "parquet"),
        default=None,
        help="output format (default: from the --out suffix)",
    )
    parser.add_argument("--out", type=Path, required=True, help="output file")
    add_db(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from crmarena_tui.storage import StorageError, Store
    from crmarena_tui.storage.exporter import FORMATS, export_sessions

    fmt = args.format or args.out.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        return fail(
            "error: pass --format jsonl|csv|parquet (or an --out file ending in one of them)"
        )
    path = db_path(args)
    if not path.exists():
        return fail(
            f"error: no sessions database at {path} (pass --db, or play, run or import first)"
        )
    try:
        with Store(path) as store:
            count = export_sessions(store, fmt, args.out)
    except (StorageError, OSError) as exc:
        return fail(f"error: {exc}")
    print(f"wrote {count} session(s) to {args.out} ({fmt})")
    return 0
