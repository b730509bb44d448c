"""Arguments shared by several subcommands, and small output helpers."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_db(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        type=Path,
        default=None,
        help="sessions database (default: $CRMARENA_TUI_DB or $XDG_DATA_HOME/crmarena-tui/sessions.db)",
    )


def add_tasks(parser: argparse.ArgumentParser, default: str = "demo") -> None:
    parser.add_argument(
        "--tasks",
        default=default,
        metavar="SRC",
        help="task source: demo (built in, 8,560 tasks), demo:small (its first 12 per type and "
        "org type), hf:b2b, hf:b2c, hf:b2b_interactive, hf:b2c_interactive, hf:original, or a "
        ".json/.jsonl/.parquet file (default: %(default)s)",
    )


def add_org(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--org",
        default=None,
        metavar="ORG",
        help="demo (the built-in org matching each task), demo:b2b, demo:b2c, salesforce:b2b, "
        "salesforce:b2c, salesforce:original, or the path of an org .db file",
    )


def add_format(
    parser: argparse.ArgumentParser, choices: tuple[str, ...] = ("table", "json")
) -> None:
    parser.add_argument("--format", choices=choices, default=choices[0], help="output format")


def db_path(args: argparse.Namespace) -> Path:
    from crmarena_tui import locations

    return Path(args.db).expanduser() if getattr(args, "db", None) else locations.default_db_path()


def fail(message: str, code: int = 1) -> int:
    """Print `message` on stderr and return the exit code."""
    print(message, file=sys.stderr)
    return code
