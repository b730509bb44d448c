"""The `crmarena-tui` command line.

Each subcommand lives in `crmarena_tui/commands/<name>.py` with `register(subparsers)` and a
`run(args) -> int` it sets as the parser's `func`. Command modules import nothing heavy at module
level (no textual, datasets, litellm, simple_salesforce, pyarrow), so `--help` stays fast.

`main` is the one error path of every command: a command raises an expected failure
(`errors.UserError`, which the core's expected errors share) and `main` prints it as one line,
`error: ...`, and exits with its `errors.ExitCode` (FAILED 1; USAGE 2 for a bad option, setting or
refusal such as an `--out` refused); anything else prints one line naming a crash log that holds
the traceback (`settings/crash_log.py`) and exits 70 (CRASH). No command prints its own error.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import pkgutil
import sqlite3
import sys
from collections.abc import Iterator

from crmarena_tui import __version__
from crmarena_tui.errors import ExitCode, UserError, one_line
from crmarena_tui.settings.config_file import check_config
from crmarena_tui.settings.crash_log import crash
from crmarena_tui.terminal_text import SafeStream, plain_text

DESCRIPTION = (
    "A terminal workbench for the CRMArena-Pro benchmark. With no command, opens the app on the "
    "built-in demo org and demo tasks."
)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with `only`, just that command (starting the app need not import
    every other command's module: it saves a tenth of the app's start-up)."""
    from crmarena_tui import commands

    parser = argparse.ArgumentParser(prog="crmarena-tui", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"crmarena-tui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    names = [only] if only else [info.name for info in pkgutil.iter_modules(commands.__path__)]
    modules = []
    for name in names:
        if name.startswith("_") or name == "common":
            continue
        modules.append(importlib.import_module(f"crmarena_tui.commands.{name}"))
    for module in sorted(modules, key=lambda m: getattr(m, "ORDER", 100)):
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")):
        argv = ["play", *argv]  # `crmarena-tui --as ana` is `crmarena-tui play --as ana`
    try:
        parser = build_parser(only="play" if argv[0] == "play" else None)
        args = parser.parse_args(argv)  # (a bad option: argparse's line and SystemExit 2)
        check_config()  # a broken config file stops every command alike, before any work
        if argv[0] in RAW_STDOUT:
            return int(args.func(args) or 0)
        with safe_stdout():  # no control code of imported data reaches the terminal
            return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        return ExitCode.OK
    except (sqlite3.DatabaseError, OSError) as exc:
        line = storage_line(exc, argv)
        if line is None:
            return crash(exc, ["crmarena-tui", *argv])
        print(f"error: {plain_text(line)}", file=sys.stderr)
        return ExitCode.FAILED
    except UserError as exc:
        print(plain_text(exc.shown()), file=sys.stderr)
        return exc.exit_code
    except Exception as exc:  # noqa: BLE001 - a bug: one line on the terminal, the rest in a log
        return crash(exc, ["crmarena-tui", *argv])


# Commands whose stdout is the app's terminal or a protocol: written as they write it
RAW_STDOUT = frozenset({"play", "serve", "view", "mcp"})


@contextlib.contextmanager
def safe_stdout() -> Iterator[None]:
    """Every write to stdout through `terminal_text.SafeStream` while a command runs."""
    before = sys.stdout
    sys.stdout = SafeStream(before)
    try:
        yield
    finally:
        sys.stdout = before


def storage_line(exc: BaseException, argv: list[str]) -> str | None:
    """A full disk, a read-only or damaged database met mid-command, in one line naming the
    file (the one the error names, else the sessions database the command opened, as `--db` or
    the settings name it) and what to do; None for any other error (a bug)."""
    from crmarena_tui.errors import storage_fault
    from crmarena_tui.storage.errors import damage_advice

    fault = storage_fault(exc)
    if fault is None:
        return None
    named = getattr(exc, "filename", None)
    path: object = named if named else _sessions_db(argv)
    if fault == "the database is damaged":
        return one_line(f"{path} is damaged ({exc}): {damage_advice(path)}", 2000)
    what = {
        "the disk is full": "free some space and run the command again (what was written "
        "before is kept)",
    }.get(fault, "make it writable, or pass another file")
    return one_line(f"cannot write {path}: {fault} ({exc}); {what}", 2000)


def _sessions_db(argv: list[str]) -> object:
    try:
        from crmarena_tui.commands.common import db_path

        parser = build_parser()  # (every command: a module is not always named as its command)
        return db_path(parser.parse_known_args(argv)[0])
    except (Exception, SystemExit):  # noqa: BLE001 - naming the file is a courtesy
        return "the sessions database"


if __name__ == "__main__":
    raise SystemExit(main())
