"""`crmarena-tui query`: run one SOQL or SOSL statement against an org and print the answer."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from typing import Any

from crmarena_tui.commands.common import add_format, add_org
from crmarena_tui.errors import UserError, redact

ORDER = 45


def _date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from None


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "query",
        help="run one SOQL or SOSL statement against an org",
        description="Run one SOQL statement (or SOSL, when it starts with FIND) against an org and "
        "print the Salesforce-shaped answer. Errors print `CODE: message` on stderr (exit 1).",
    )
    parser.add_argument(
        "text", metavar="SOQL_OR_SOSL", help="the statement (a ```code fence``` is unwrapped)"
    )
    add_org(parser)
    add_format(parser)
    parser.add_argument(
        "--org-today",
        "--today",
        dest="today",
        type=_date,
        default=None,
        metavar="YYYY-MM-DD",
        help="the date TODAY, LAST_N_DAYS:n ... count from (default: the `org_today` setting, "
        "else the org's own date); a live org counts from its own clock",
    )
    parser.set_defaults(func=run)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return f"{value:.1f}"
    return str(value)


def flatten(record: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """`{"Owner": {"Name": "X"}}` -> `{"Owner.Name": "X"}`; a child subquery becomes its size."""
    out: dict[str, Any] = {}
    for key, value in record.items():
        if key == "attributes":
            continue
        name = prefix + key
        if isinstance(value, dict) and "records" in value and "totalSize" in value:
            out[name] = f"{value['totalSize']} records"
        elif isinstance(value, dict):
            out.update(flatten(value, name + "."))
        else:
            out[name] = value
    return out


def _tables(records: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Records grouped by type, in order of first appearance (SOSL mixes objects)."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for rec in records:
        groups.setdefault(rec.get("attributes", {}).get("type", ""), []).append(flatten(rec))
    return list(groups.items())


def print_table(result: Any) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if result.count_only:
        console.print(f"COUNT(): {result.total_size}")
        return
    groups = _tables(result.records)
    for type_name, rows in groups:
        columns: list[str] = []
        for row in rows:
            columns.extend(k for k in row if k not in columns)
        table = Table(title=type_name if len(groups) > 1 else None, show_lines=False)
        for col in columns:
            table.add_column(col, overflow="fold")
        for row in rows:
            table.add_row(*(_cell(row.get(c)) for c in columns))
        console.print(table)
    n = len(result.records)
    console.print(f"{n} record{'s' if n != 1 else ''}")


class StatementFailed(UserError):
    """The org's own error for the statement, printed as Salesforce words it (`CODE: message`,
    the caret lines of a malformed query kept), with no `error: ` before it."""

    def shown(self) -> str:
        return redact(str(self))


def run(args: argparse.Namespace) -> int:
    from crmarena_tui.orgs.base import execute
    from crmarena_tui.orgs.strictness import lenient_wanted
    from crmarena_tui.session.org_resolve import open_org
    from crmarena_tui.settings.config import load_settings

    try:
        settings = load_settings()
        lenient = lenient_wanted(args.lenient, settings)
        org = open_org(args.org, today=args.today or settings.org_today, lenient=lenient)
    except UserError:
        raise
    except (OSError, ValueError) as exc:
        raise UserError(str(exc)) from exc
    try:
        result = execute(org, args.text)
    finally:
        close = getattr(org, "close", None)
        if callable(close):
            close()
    if result.error:
        raise StatementFailed(result.error)
    if result.warning:  # values an import left as text, which this statement leans on
        print(result.warning, file=sys.stderr)
    if args.format == "json":
        print(json.dumps(result.to_response(), indent=2, ensure_ascii=False))
    else:
        print_table(result)
    return 0
