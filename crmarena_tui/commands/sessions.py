"""`crmarena-tui sessions merge A.db B.db ... --out C.db`: sessions databases from several
machines (experts' laptops) combined into one, by session uuid (crmarena_tui/storage/merge.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from crmarena_tui.commands.common import fail

ORDER = 65


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("sessions", help="merge sessions databases from several machines")
    ssub = parser.add_subparsers(dest="sessions_command", metavar="ACTION", required=True)
    merge = ssub.add_parser(
        "merge",
        help="combine sessions databases into one, by session uuid",
        description="Copy every session of the inputs into --out (created if missing), once per "
        "session uuid, with its events, grades, labels and notes, and the studies they belong "
        "to. Participants are matched by name. Merging again adds nothing. Two copies of one "
        "session that differ (events, grade or status) are listed by uuid and left out, never "
        "overwritten. Exits 1 when a session was left out.",
    )
    merge.add_argument("inputs", nargs="+", type=Path, metavar="DB", help="sessions databases")
    merge.add_argument("--out", type=Path, required=True, metavar="DB", help="the merged database")
    merge.set_defaults(func=run_merge)


def run_merge(args: argparse.Namespace) -> int:
    from crmarena_tui.storage import StorageError
    from crmarena_tui.storage.merge import merge_databases

    try:
        result = merge_databases(args.inputs, args.out)
    except StorageError as exc:
        return fail(f"error: {exc}")
    print("\n".join(result.lines()))
    return 1 if result.conflicts else 0
