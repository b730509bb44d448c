"""`crmarena-tui org fetch` and `org snapshot`: bring a real org onto this machine, then import it."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from crmarena_tui.commands._out import add_force, check_out
from crmarena_tui.errors import ExitCode, UserError

FETCH_EPILOG = """\
By default the file comes from upstream's repository,
https://github.com/SalesforceAIResearch/CRMArena/raw/main/local_data/<file>, and goes to the orgs
folder's downloads/; an interrupted download resumes where it stopped when run again. Then the
snapshot is imported as `upstream:<type>`, exactly as `org import` does.

examples:
  crmarena-tui org fetch b2b
  crmarena-tui org fetch b2c --from ~/Downloads/crmarenapro_b2c_data.db
  crmarena-tui org fetch original --from https://mirror.example.org/crmarena_data.db
"""

SNAPSHOT_EPILOG = """\
Needs the org's credentials in the environment (see "A real Salesforce org" in docs/orgs.md).
Every benchmark object is described, then queried for all its fields; objects already written stay
written, so running the same command again after a failure continues with the next object. The
result is imported into FILE.db as `org import` does (the raw copy stays in FILE.db.partial until
then).

example:
  crmarena-tui org snapshot salesforce:b2b --out b2b-2026-05-01.db
"""


def register(
    osub: argparse._SubParsersAction,
    add_import_options: Callable[..., None],
) -> None:
    fetch = osub.add_parser(
        "fetch",
        help="download upstream's snapshot of a real org and import it as upstream:<type>",
        description="Download (or take from --from) upstream's SQLite snapshot of a real "
        "CRMArena(-Pro) org and import it, so `--org upstream:<type>` and real tasks work offline.",
        epilog=FETCH_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    fetch.add_argument("org_type", choices=("b2b", "b2c", "original"), metavar="b2b|b2c|original")
    fetch.add_argument(
        "--from",
        dest="source",
        default=None,
        metavar="URL_OR_PATH",
        help="another download address, or the path of a snapshot file downloaded by hand",
    )
    add_import_options(fetch, out=False)
    fetch.set_defaults(func=run_fetch)

    snap = osub.add_parser(
        "snapshot",
        help="freeze a live Salesforce org into an org file (resumable per object)",
        description="Describe every benchmark object of a live org and query all its fields, "
        "then write the same org format `org import` writes.",
        epilog=SNAPSHOT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    snap.add_argument("org", metavar="salesforce:b2b|b2c|original", help="the live org")
    snap.add_argument("--out", type=Path, required=True, metavar="FILE.db", help="the org file")
    add_force(snap)
    add_import_options(snap, out=False)
    snap.set_defaults(func=run_snapshot)


class ByteProgress:
    """Download progress on stderr: a bar on a terminal, a line every 10% otherwise."""

    def __init__(self, label: str, quiet: bool = False) -> None:
        self.label = label
        self.quiet = quiet
        self.bar: Any = None
        self.task: Any = None
        self.shown = -1
        if not quiet and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                DownloadColumn,
                Progress,
                TextColumn,
                TransferSpeedColumn,
            )

            self.bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                DownloadColumn(),
                TransferSpeedColumn(),
                console=Console(stderr=True),
            )
            self.task = self.bar.add_task(label, total=None)
            self.bar.start()

    def __call__(self, done: int, total: int | None) -> None:
        if self.quiet:
            return
        if self.bar is not None:
            self.bar.update(self.task, completed=done, total=total)
            return
        step = int(done * 10 / total) if total else -1
        if step > self.shown or (total is None and self.shown < 0):
            self.shown = max(step, 0)
            of = f" of {total / 1e6:.1f} MB ({done / total:.0%})" if total else ""
            print(f"  {self.label}: {done / 1e6:.1f} MB{of}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def run_fetch(args: argparse.Namespace) -> int:
    from crmarena_tui.commands.org import import_and_report
    from crmarena_tui.orgs.fetch import fetch_snapshot, is_url
    from crmarena_tui.orgs.upstream import FILE_NAMES

    downloading = args.source is None or is_url(args.source)
    progress = ByteProgress(FILE_NAMES[args.org_type], quiet=args.quiet or not downloading)
    started = time.perf_counter()
    try:
        path, origin = fetch_snapshot(args.org_type, args.source, progress=progress)
    finally:
        progress.close()
    if downloading and not args.quiet:
        size = path.stat().st_size / 1e6
        took = time.perf_counter() - started
        print(f"Downloaded {origin} to {path} ({size:.1f} MB, {took:.1f} s)", file=sys.stderr)
    return import_and_report(args, path, args.org_type, origin=origin)


def run_snapshot(args: argparse.Namespace) -> int:
    from crmarena_tui.commands.org import import_and_report
    from crmarena_tui.orgs.salesforce_auth import SalesforceApiError
    from crmarena_tui.orgs.snapshot_salesforce import SnapshotStopped, snapshot_org
    from crmarena_tui.session.org_resolve import SALESFORCE_PREFIX

    if not args.org.startswith(SALESFORCE_PREFIX) or args.org[len(SALESFORCE_PREFIX) :] not in (
        "b2b",
        "b2c",
        "original",
    ):
        raise UserError(
            "org snapshot takes a live org: salesforce:b2b, :b2c or :original", code=ExitCode.USAGE
        )
    org_type = args.org[len(SALESFORCE_PREFIX) :]
    check_out(args.out, force=args.force, writes_sqlite=True)
    out = Path(args.out).expanduser()
    staging = out.with_name(out.name + ".partial")

    def progress(done: int, total: int, label: str) -> None:
        if not args.quiet and args.format != "json":
            print(f"  [{done}/{total}] {label}", file=sys.stderr, flush=True)

    try:
        snapshot_org(org_type, staging, progress=progress)
    except SnapshotStopped as exc:
        raise UserError(str(exc)) from exc
    except SalesforceApiError as exc:
        raise UserError(f"{exc}; run the same command again to continue") from exc
    args.out = out
    import_and_report(args, staging, org_type, origin=args.org)  # (a failure raises)
    _mark_snapshot(out, args.org)
    staging.unlink(missing_ok=True)
    return 0


def _mark_snapshot(path: Path, origin: str) -> None:
    import sqlite3

    from crmarena_tui.orgs.schema import write_meta

    conn = sqlite3.connect(path)
    try:
        with conn:
            write_meta(conn, {"kind": "salesforce-snapshot", "source": origin})
    finally:
        conn.close()
