"""`crmarena-tui sessions merge A.db B.db ... --out C.db`: sessions databases from several
machines (experts' laptops) combined into one, by session uuid (crmarena_tui/storage/merge.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from crmarena_tui.errors import ExitCode, UserError

ORDER = 65


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("sessions", help="merge sessions databases; Datasette metadata")
    ssub = parser.add_subparsers(dest="sessions_command", metavar="ACTION", required=True)
    merge = ssub.add_parser(
        "merge",
        help="combine sessions databases into one, by session uuid",
        description="Copy every session of the inputs into --out (created if missing), once per "
        "session uuid, with its events, grades, labels and notes, and the studies they belong "
        "to. Participants are matched by name. Merging again adds nothing. Two copies of one "
        "session that differ (events, grade or status) are listed by uuid and left out, never "
        "overwritten, unless --prefer says which copy to keep. Exits 1 when a session was left "
        "out. The merged sessions are indexed for search before it ends (progress on stderr).",
    )
    merge.add_argument("inputs", nargs="+", type=Path, metavar="DB", help="sessions databases")
    merge.add_argument("--out", type=Path, required=True, metavar="DB", help="the merged database")
    merge.add_argument(
        "--prefer",
        choices=("first", "newest", "ask"),
        help="keep one copy of a session whose copies differ: the first input's, the one with the "
        "newest event or grade, or ask for each (on a terminal). A copy already in --out is kept.",
    )
    merge.set_defaults(func=run_merge)
    meta = ssub.add_parser(
        "datasette-metadata",
        help="print Datasette metadata that hides the database's internal tables",
        description="Print, as JSON, metadata for `datasette DB --metadata FILE`: the full-text "
        "index, its bookkeeping, the leases and the schema version hidden from the database's "
        "page (still queryable), descriptions for the views. Keyed on the database's file name, "
        "as Datasette names it.",
    )
    meta.add_argument("--db", metavar="PATH", help="the sessions database (default: the app's)")
    meta.set_defaults(func=run_datasette_metadata)


def run_datasette_metadata(args: argparse.Namespace) -> int:
    import json

    from crmarena_tui.commands.common import db_path
    from crmarena_tui.storage.datasette_meta import metadata

    print(json.dumps(metadata(db_path(args)), indent=2))
    return ExitCode.OK


def ask_which(uuid: str, copies: list) -> int | None:
    """`--prefer ask`: show the copies of one session and read which to keep."""
    print(f"Session {uuid} differs between {len(copies)} copies:")
    for k, c in enumerate(copies, 1):
        reward = "ungraded" if c.reward is None else f"reward {c.reward:.2f}"
        last = c.last[:19].replace("T", " ") if c.last else "no time"
        print(f"  [{k}] {c.source}: {c.status}, {c.events} events, last {last}, {reward}")
    while True:
        try:
            reply = input(f"Keep which copy? [1-{len(copies)}, or enter to leave it out] ")
        except EOFError:
            return None
        reply = reply.strip()
        if not reply:
            return None
        if reply.isdigit() and 1 <= int(reply) <= len(copies):
            return int(reply) - 1
        print(f"  type a number from 1 to {len(copies)}, or press enter")


def run_merge(args: argparse.Namespace) -> int:
    import sys

    from crmarena_tui.storage.merge import merge_databases

    prefer = getattr(args, "prefer", None)
    if prefer == "ask" and not sys.stdin.isatty():
        raise UserError(
            "--prefer ask reads your choices from a terminal; use first or newest",
            code=ExitCode.USAGE,
        )
    result = merge_databases(
        args.inputs, args.out, prefer=prefer, choose=ask_which if prefer == "ask" else None
    )
    print("\n".join(result.lines()), flush=True)
    from crmarena_tui.commands.common import index_for_search
    from crmarena_tui.storage import Store

    with Store(args.out) as store:  # sessions an import left to the first search, indexed now
        index_for_search(store)
    return ExitCode.FAILED if result.conflicts else ExitCode.OK
