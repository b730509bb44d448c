"""`crmarena-tui org build|info|import|fetch|snapshot|verify`: make, describe and check org files."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from crmarena_tui.commands._out import add_force, check_out
from crmarena_tui.commands.common import add_db
from crmarena_tui.errors import ExitCode, UserError

ORDER = 40
TYPES = ("b2b", "b2c", "original")

IMPORT_EPILOG = """\
The snapshot is opened read-only and never written. Tables and columns are matched to the
benchmark's schema case-insensitively; every value is coerced to its field's type (values that
cannot be are kept as stored and listed). Without --out the org becomes `upstream:<type>`.

examples:
  crmarena-tui org import ~/Downloads/crmarenapro_b2b_data.db
  crmarena-tui org import snap.db --org-type b2c --out my-b2c.db --format json
"""


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "org", help="build, import, fetch, snapshot, describe or compare org files"
    )
    osub = parser.add_subparsers(dest="org_command", metavar="ACTION", required=True)

    build = osub.add_parser("build", help="build a deterministic demo org (SQLite file)")
    build.add_argument("--seed", type=int, default=0, help="random seed (default: %(default)s)")
    build.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="record-count multiplier; 1.0 is about the real org's size (default: %(default)s)",
    )
    build.add_argument(
        "--org-type", choices=("b2b", "b2c"), default="b2b", help="which business (default: b2b)"
    )
    build.add_argument(
        "--out",
        type=Path,
        default=None,
        help="output file (default: the cached demo org of that type)",
    )
    build.add_argument("--quiet", action="store_true", help="no progress on stderr")
    add_force(build)
    build.set_defaults(func=run_build)

    info = osub.add_parser(
        "info", help="show an org's origin, metadata and record counts (and the documented ones)"
    )
    info.add_argument(
        "org",
        nargs="?",
        default=None,
        metavar="ORG",
        help="an org file, demo:b2b|b2c or upstream:b2b|b2c|original (default: the b2b demo org)",
    )
    info.add_argument(
        "--org",
        dest="org_option",
        default=None,
        metavar="ORG",
        help="the same as the ORG argument, as other commands spell it",
    )
    info.add_argument("--format", choices=("table", "json"), default="table", help="output format")
    info.set_defaults(func=run_info)

    imp = osub.add_parser(
        "import",
        help="turn an upstream SQLite snapshot into an org file, with an import report",
        description="Import a snapshot of a CRMArena(-Pro) org (one table per object) into this "
        "project's org format: the benchmark's schema and field descriptions, typed values, "
        "indexes for the query engine.",
        epilog=IMPORT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    imp.add_argument("snapshot", type=Path, metavar="SNAPSHOT.db", help="the snapshot file")
    _add_import_options(imp)
    imp.set_defaults(func=run_import)

    from crmarena_tui.commands import _org_remote

    _org_remote.register(osub, _add_import_options)
    _register_verify(osub)


def _add_import_options(parser: argparse.ArgumentParser, out: bool = True) -> None:
    """--out (when `out`), --org-type (for `import` only), --today, --format, --quiet."""
    if out:
        parser.add_argument(
            "--out",
            type=Path,
            default=None,
            metavar="ORG.db",
            help="the org file to write (default: the orgs folder's upstream-<type>.db, "
            "which --org upstream:<type> opens)",
        )
        add_force(parser)
    if out:
        parser.add_argument(
            "--org-type",
            choices=TYPES,
            default=None,
            help="which org the snapshot is of (default: guessed from the file name)",
        )
    parser.add_argument(
        "--today",
        default=None,
        metavar="YYYY-MM-DD",
        help="the day TODAY means in date literals for tasks that state no date of their own "
        "(default: the real date, as on a live org)",
    )
    parser.add_argument(
        "--format", choices=("table", "json"), default="table", help="import report format"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


def _register_verify(osub: argparse._SubParsersAction) -> None:
    verify = osub.add_parser(
        "verify",
        help="run a corpus of queries on two orgs and report every difference",
        description="Run the same queries on ORG_A and ORG_B and report every difference in "
        "records, totalSize and errors. The default corpus touches every object and every SOQL "
        "and SOSL feature the engine supports, plus every query in the sessions database for "
        "the org type. Exit code 0 when there is no difference, 1 otherwise.",
    )
    verify.add_argument(
        "org_a", metavar="ORG_A", help="an org: file, demo:, upstream:, salesforce:"
    )
    verify.add_argument("org_b", metavar="ORG_B", help="the org to compare it with")
    verify.add_argument(
        "--queries",
        type=Path,
        default=None,
        metavar="FILE",
        help="queries to run instead of the default corpus: one per line, or a JSON list",
    )
    verify.add_argument(
        "--today",
        default=None,
        metavar="YYYY-MM-DD",
        help="the day date literals count from (default: ORG_A's, else the real date)",
    )
    add_db(verify)
    verify.add_argument("--format", choices=("table", "json"), default="table")
    verify.set_defaults(func=run_verify)


def run_verify(args: argparse.Namespace) -> int:
    from crmarena_tui.commands._org_verify import run

    return run(args)


def parse_day(text: str | None) -> object:
    """A date from YYYY-MM-DD (None stays None); a ValueError names the problem."""
    from datetime import date

    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"--today: not a date (YYYY-MM-DD): {text!r}") from None


def _counts(path: Path) -> dict[str, int]:
    from crmarena_tui.orgs.schema import read_schema
    from crmarena_tui.settings.sqlite_readonly import open_readonly

    conn = open_readonly(path)
    try:
        schema = read_schema(conn)
        return {
            name: conn.execute(f'SELECT COUNT(*) FROM "{name}"').fetchone()[0]
            for name in schema.objects
        }
    finally:
        conn.close()


def run_build(args: argparse.Namespace) -> int:
    import time

    from crmarena_tui.demo.generator import build_org
    from crmarena_tui.settings import locations

    if args.scale <= 0:
        raise UserError("--scale must be positive", code=ExitCode.USAGE)
    if args.out:
        check_out(args.out, force=args.force, writes_sqlite=True)
    out = Path(args.out).expanduser() if args.out else locations.demo_org_path(args.org_type)

    def progress(fraction: float, label: str) -> None:
        print(f"  {fraction:4.0%}  {label}", file=sys.stderr, flush=True)

    start = time.perf_counter()
    try:
        path = build_org(
            out,
            org_type=args.org_type,
            seed=args.seed,
            scale=args.scale,
            progress=None if args.quiet else progress,
        )
    except OSError as exc:
        raise UserError(f"cannot write {out}: {exc}") from exc
    seconds = time.perf_counter() - start
    counts = _counts(path)
    print(f"Wrote {args.org_type} demo org (seed {args.seed}, scale {args.scale:g}) to {path}")
    print(f"{sum(counts.values()):,} records, {path.stat().st_size / 1e6:.1f} MB, {seconds:.1f} s")
    width = max(len(n) for n in counts)
    for name, n in sorted(counts.items()):
        print(f"  {name:<{width}}  {n:>7,}")
    return 0


def run_import(args: argparse.Namespace) -> int:
    from crmarena_tui.orgs.upstream import guess_org_type

    if args.out:
        check_out(args.out, force=args.force, inputs=[args.snapshot], writes_sqlite=True)
    org_type = args.org_type or guess_org_type(args.snapshot)
    return import_and_report(args, Path(args.snapshot).expanduser(), org_type, origin=None)


def import_and_report(
    args: argparse.Namespace, snapshot: Path, org_type: str | None, origin: str | None
) -> int:
    """Import `snapshot` as `args` ask (--out, --today, --format, --quiet) and print the report."""
    from crmarena_tui.orgs.import_report import render
    from crmarena_tui.orgs.snapshot_import import import_snapshot
    from crmarena_tui.settings import locations

    out = getattr(args, "out", None)
    if out is None and org_type is None:
        raise UserError(
            f"cannot tell the org type from the file name {snapshot.name!r}: pass "
            "--org-type b2b, b2c or original",
            code=ExitCode.USAGE,
        )
    target = Path(out).expanduser() if out else locations.upstream_org_path(str(org_type))
    try:
        today = parse_day(args.today)
    except ValueError as exc:
        raise UserError(str(exc), code=ExitCode.USAGE) from None

    def progress(fraction: float, label: str) -> None:
        print(f"  {fraction:4.0%}  {label}", file=sys.stderr, flush=True)

    try:
        report = import_snapshot(
            snapshot,
            target,
            org_type=org_type,
            today=today,  # type: ignore[arg-type]
            origin=origin,
            progress=None if args.quiet or args.format == "json" else progress,
        )
    except OSError as exc:  # (a snapshot it cannot read: SnapshotError, from cli.main)
        raise UserError(f"cannot write {target}: {exc}") from exc
    if args.format == "json":
        print(json.dumps(report.to_dict(), indent=1, ensure_ascii=False))
    else:
        render(report)
    return 0


def run_info(args: argparse.Namespace) -> int:
    from crmarena_tui.commands._org_info import run

    return run(args, _counts)
