"""`crmarena-tui org build|info`: build a demo org file, or describe an org file."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from crmarena_tui.commands.common import fail

ORDER = 40


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("org", help="build a demo org or describe an org file")
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
    build.set_defaults(func=run_build)

    info = osub.add_parser("info", help="show an org file's metadata and record counts")
    info.add_argument(
        "path",
        type=Path,
        nargs="?",
        default=None,
        help="org file (default: the cached b2b demo org)",
    )
    info.add_argument("--format", choices=("table", "json"), default="table", help="output format")
    info.set_defaults(func=run_info)


def _counts(path: Path) -> dict[str, int]:
    import sqlite3

    from crmarena_tui.orgs.schema import read_schema

    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
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

    from crmarena_tui import locations
    from crmarena_tui.demo.generator import build_org

    if args.scale <= 0:
        return fail("error: --scale must be positive")
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
        return fail(f"error: cannot write {out}: {exc}")
    seconds = time.perf_counter() - start
    counts = _counts(path)
    print(f"Wrote {args.org_type} demo org (seed {args.seed}, scale {args.scale:g}) to {path}")
    print(f"{sum(counts.values()):,} records, {path.stat().st_size / 1e6:.1f} MB, {seconds:.1f} s")
    width = max(len(n) for n in counts)
    for name, n in sorted(counts.items()):
        print(f"  {name:<{width}}  {n:>7,}")
    return 0


def run_info(args: argparse.Namespace) -> int:
    from crmarena_tui import locations
    from crmarena_tui.demo.generator import org_meta

    path = Path(args.path).expanduser() if args.path else locations.demo_org_path("b2b")
    meta = org_meta(path)
    if not meta:
        return fail(f"error: {path} is not an org file (build one with `crmarena-tui org build`)")
    meta.pop("counts", None)
    counts = _counts(path)
    if args.format == "json":
        print(json.dumps({"path": str(path), "meta": meta, "counts": counts}, indent=1))
        return 0
    print(f"{path}")
    for key, value in sorted(meta.items()):
        print(f"  {key}: {value}")
    width = max(len(n) for n in counts)
    for name, n in sorted(counts.items()):
        print(f"  {name:<{width}}  {n:>7,}")
    return 0
