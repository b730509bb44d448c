"""`crmarena-tui export`: every session, one row each, as JSON Lines, CSV or Parquet; or as
trajectories of other harnesses' formats (`_export_trajectories`, one path): `--format atif`, a
folder of ATIF files; `--format inspect`, a folder of Inspect eval logs (`interchange/`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from crmarena_tui.commands._out import add_force, check_out
from crmarena_tui.commands.common import add_db, db_path
from crmarena_tui.errors import ExitCode, UserError

ORDER = 70


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "export",
        help="write every session (task, participant, answer, grade, times, events, "
        "labels) to a .jsonl, .csv or .parquet file",
    )
    parser.add_argument(
        "--format",
        choices=("jsonl", "csv", "parquet", "atif", "inspect"),
        default=None,
        help="output format (default: from the --out suffix); atif: one ATIF trajectory file "
        "per session (steps with tool calls and observations, the final answer, grade, "
        "metrics, labels and notes) in the folder --out, for Harbor, Inspect Scout and other "
        "ATIF readers; inspect: one Inspect eval log (.eval) per configuration in the folder "
        "--out, each session a sample, for inspect view; `crmarena-tui import` reads either back",
    )
    parser.add_argument(
        "--out",
        type=Path,
        required=True,
        help="output file (with --format atif or inspect: a folder)",
    )
    add_force(parser)
    parser.add_argument(
        "--where",
        default="",
        metavar="TEXT",
        help="only the sessions the sessions list's filter keeps for TEXT (every word found in "
        "the session's participant, model, task type, status, kind, source, org, date, "
        "protocol, #id or #idx); TEXT starting with ? is a search, as --search",
    )
    parser.add_argument(
        "--search",
        default="",
        metavar="QUERY",
        help="only the sessions this search finds (the syntax of crmarena-tui search)",
    )
    parser.add_argument(
        "--events",
        action="store_true",
        help="one row per event of the selected sessions (session id, configuration, task, "
        "step, kind, actor, text, error code, object, time, tokens) instead of one per session",
    )
    parser.add_argument(
        "--themes",
        action="store_true",
        help="one row per reason or note the newest themes pass (scan --themes) grouped: "
        "theme, configuration, session, step and its link, source, text",
    )
    add_db(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from crmarena_tui.commands.tasks import blind_on, blind_refusal
    from crmarena_tui.storage import Store
    from crmarena_tui.storage.exporter import FORMATS, export_sessions

    if blind_on():  # every row holds its task's gold answer and its participant's answer
        raise blind_refusal("export")
    fmt = args.format or args.out.suffix.lower().lstrip(".")
    if fmt in TRAJECTORY_FORMATS:
        return _export_trajectories(args, fmt)
    if fmt not in FORMATS:
        raise UserError(
            "pass --format jsonl|csv|parquet (or an --out file ending in one of them)",
            code=ExitCode.USAGE,
        )
    path, where, searched = _selection(args)
    check_out(args.out, force=args.force, inputs=[path])
    if args.themes:
        from crmarena_tui.commands._export_themes import write_themes

        with Store(path) as store:
            count = write_themes(store, fmt, args.out)
        print(f"wrote {count} theme row(s) to {args.out} ({fmt})")
        return 0
    from crmarena_tui.reports.session_rows import where_filter

    try:
        with Store(path) as store:
            keep = _keep(store, where_filter(where), searched)
            total = store.read("SELECT COUNT(*) FROM sessions")[0][0]
            with SessionProgress(total) as progress:
                count = export_sessions(
                    store, fmt, args.out, keep=keep, progress=progress, events=args.events
                )
    except OSError as exc:  # (a sessions database's own faults: StorageError, from cli.main)
        raise UserError(_named(exc, args.out)) from exc
    print(f"wrote {count} {'event' if args.events else 'session'}(s) to {args.out} ({fmt})")
    return 0


TRAJECTORY_FORMATS = ("atif", "inspect")  # (a folder of files: `interchange/`)


def _export_trajectories(args: argparse.Namespace, fmt: str) -> int:
    """`--format atif` (one trajectory file per session) or `--format inspect` (one Inspect eval
    log per configuration): the selected sessions as files in the folder `--out`."""
    from crmarena_tui.reports.session_rows import where_filter
    from crmarena_tui.storage import Store

    if args.events:
        raise UserError(f"--events makes a table: not with --format {fmt}", code=ExitCode.USAGE)
    path, where, searched = _selection(args)
    out = args.out.expanduser()
    write = _folder_writer(fmt, out, force=args.force)
    try:
        with Store(path) as store:
            keep = _keep(store, where_filter(where), searched)
            total = store.read("SELECT COUNT(*) FROM sessions")[0][0]
            with SessionProgress(total) as progress:
                said = write(store, keep, progress)
    except OSError as exc:
        raise UserError(_named(exc, out)) from exc
    print(said)
    return 0


def _folder_writer(fmt: str, out: Path, *, force: bool) -> Any:
    """The writer of `fmt` into the folder `out`, once `out` is checked (refused: a file, or a
    folder holding an earlier export, unless `force`): (store, keep, progress) -> what to say."""
    if fmt == "inspect":
        from crmarena_tui.interchange.inspect_export import check_folder, export_inspect

        check_folder(out, force=force)

        def inspect(store: Any, keep: Any, progress: Any) -> str:
            count, files = export_inspect(store, out, keep=keep)
            names = "".join(f"\n  {file.name}" for file in files)
            return f"wrote {count} session(s) to {len(files)} Inspect log(s) in {out}{names}"

        return inspect
    from crmarena_tui.errors import OutputRefused
    from crmarena_tui.interchange.atif_export import export_atif

    if out.exists() and not out.is_dir():
        raise OutputRefused(f"--out {out} is not a folder: --format {fmt} writes a folder")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise OutputRefused(f"--out {out} is a folder with files in it: pass --force to add to it")

    def atif(store: Any, keep: Any, progress: Any) -> str:
        count = export_atif(store, out, keep=keep, progress=progress)
        return f"wrote {count} trajectory file(s) to {out} ({fmt})"

    return atif


def _selection(args: argparse.Namespace) -> tuple[Path, str, str]:
    """The sessions database (which must exist), the filter text and the search of `--where` and
    `--search` (`--where '?QUERY'` is the sessions list's `?`: a search)."""
    path = db_path(args)
    if not path.exists():
        raise UserError(f"no sessions database at {path} (pass --db, or play, run or import first)")
    where, searched = args.where, args.search
    if where.lstrip().startswith("?"):
        if searched:
            raise UserError("give the search once: --search QUERY or --where '?QUERY'")
        where, searched = "", where.lstrip()[1:]
    return path, where, searched


def _named(exc: Exception, out: Path) -> str:
    """`exc`'s text, naming the output when a write to it failed without saying where (a full
    disk, a read-only file system)."""
    from crmarena_tui.errors import storage_fault

    fault = storage_fault(exc)
    if fault is None or getattr(exc, "filename", None):
        return str(exc)
    return f"cannot write {out}: {fault} ({exc}); nothing was written there"


def _keep(store: Any, where: Any, searched: str) -> Any:
    """The test of a session `--where` and `--search` make (None: every session)."""
    if not searched.strip():
        return where
    from crmarena_tui.commands.search import indexing
    from crmarena_tui.storage.search import SearchSyntaxError, session_ids

    try:
        found = session_ids(store, searched, progress=indexing)
    except SearchSyntaxError as exc:
        raise UserError(f"--search: {exc}", code=ExitCode.USAGE) from None
    if where is None:
        return lambda row, person: row.id in found
    return lambda row, person: row.id in found and where(row, person)


class SessionProgress:
    """A progress bar of the sessions read, on stderr, on a terminal only (nothing otherwise)."""

    def __init__(self, total: int) -> None:
        self.bar: Any = None
        self.task: Any = None
        if sys.stderr.isatty() and total:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
            )

            self.bar = Progress(
                TextColumn("[bold]export"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self.task = self.bar.add_task("export", total=total)

    def __enter__(self) -> SessionProgress:
        if self.bar is not None:
            self.bar.start()
        return self

    def __call__(self, done: int) -> None:
        if self.bar is not None:
            self.bar.update(self.task, completed=done)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()
