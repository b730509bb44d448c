"""The one check every `--out` passes before anything is written (`export`, `study export`,
`tasks export`, `org build`, `org import`, `org snapshot`).

An output never replaces the command's own input, never replaces a sessions database (an
SQLite file holding a `sessions` table, found by its header bytes and then its tables), never
replaces another SQLite file unless the command writes SQLite itself (an org file) and `--force`
says so, never replaces a device, a pipe or a socket, or a link to one (an output is written
aside and renamed over its path: `--out /dev/null --force` would put a file in its place),
and never replaces any other existing file without `--force`. A refusal is one line
and exit code 2 (`errors.OutputRefused`), before any work starts.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from crmarena_tui.errors import OutputRefused

SQLITE_HEADER = b"SQLite format 3\x00"


def add_force(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace an --out file that already exists (never an input of the command, and "
        "never a sessions database)",
    )


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a.expanduser().resolve() == b.expanduser().resolve()


def is_sqlite(path: Path) -> bool:
    """Whether `path` is a file that starts with SQLite's header."""
    try:
        with open(path, "rb") as fh:
            return fh.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def holds_sessions(path: Path) -> bool:
    """Whether the SQLite file at `path` has a `sessions` table (a sessions database); a file
    that cannot be read is taken to be one (refusing is the safe mistake)."""
    from crmarena_tui.settings.sqlite_readonly import open_readonly

    try:
        conn = open_readonly(path)
        try:
            row = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sessions'"
            ).fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return True
    return row is not None


def check_out(
    out: Path,
    *,
    force: bool,
    inputs: Iterable[Path | str | None] = (),
    writes_sqlite: bool = False,
) -> None:
    """Raise `OutputRefused` (one line, exit 2) when writing `out` would destroy something; see
    the module's docstring for the rule. `inputs`: the files the command reads (None and names
    that are not files are skipped)."""
    out = Path(out).expanduser()
    for given in inputs:
        if given is None:
            continue
        source = Path(given).expanduser()
        if source.exists() and out.exists() and _same(out, source):
            raise OutputRefused(
                f"--out {out} is also the command's input {source}: choose another file"
            )
    if not out.exists() and not out.is_symlink():
        return
    if out.is_dir():
        raise OutputRefused(f"--out {out} is a folder: name a file")
    if out.exists() and not out.is_file():  # an output is written aside, then renamed over it
        raise OutputRefused(
            f"--out {out} is not a plain file (a device, pipe or socket), which an output never"
            " replaces: name a plain file"
        )
    if is_sqlite(out):
        if holds_sessions(out):
            raise OutputRefused(
                f"--out {out} is a sessions database, which an output never replaces: "
                "choose another file"
            )
        if not writes_sqlite:
            raise OutputRefused(
                f"--out {out} is an SQLite database, which this output never replaces: "
                "choose another file"
            )
    if not force:
        raise OutputRefused(f"--out {out} already exists: pass --force to replace it")
