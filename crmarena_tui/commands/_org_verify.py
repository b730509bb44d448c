"""`crmarena-tui org verify ORG_A ORG_B`: the same queries on two orgs, every difference reported."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path

from crmarena_tui.commands.common import db_path
from crmarena_tui.errors import ExitCode, UserError


def read_queries(path: Path) -> list[str]:
    """Queries from a file: a JSON list of strings, or one query per line (blank lines and
    lines starting with # skipped)."""
    text = path.read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        data = json.loads(text)
        if not isinstance(data, list) or not all(isinstance(q, str) for q in data):
            raise ValueError(f"{path}: expected a JSON list of query strings")
        return data
    return [line.strip() for line in text.splitlines() if line.strip() and line[0] != "#"]


def run(args: argparse.Namespace) -> int:
    from crmarena_tui.commands.org import parse_day
    from crmarena_tui.orgs.base import execute
    from crmarena_tui.orgs.verify import verify
    from crmarena_tui.orgs.verify_corpus import CorpusQuery, builtin_corpus
    from crmarena_tui.session.org_resolve import open_org
    from crmarena_tui.storage.session_queries import session_queries

    try:
        today = parse_day(args.today)
        org_a = open_org(args.org_a)
    except (ValueError, OSError) as exc:
        raise UserError(f"ORG_A: {exc}", code=ExitCode.USAGE) from exc
    try:
        org_b = open_org(args.org_b, org_type=org_a.org_type)
    except (ValueError, OSError) as exc:
        org_a.close()
        raise UserError(f"ORG_B: {exc}", code=ExitCode.USAGE) from exc
    try:
        day = today or getattr(org_a, "default_today", None) or date.today()
        if args.queries is not None:
            try:
                texts = read_queries(Path(args.queries).expanduser())
            except (OSError, ValueError) as exc:
                raise UserError(f"--queries: {exc}", code=ExitCode.USAGE) from exc
            corpus = [CorpusQuery(q, "file") for q in texts]
        else:

            def sample(soql: str) -> list[str]:
                result = execute(org_a, soql)
                return [str(v) for r in result.records for k, v in r.items() if k != "attributes"]

            corpus = builtin_corpus(org_a.describe(), sample)
            try:
                stored = session_queries(db_path(args), org_a.org_type)
            except ValueError as exc:
                raise UserError(f"--db: {exc}", code=ExitCode.USAGE) from exc
            corpus += [CorpusQuery(text, "sessions", when) for text, when in stored]
        report = verify(org_a, org_b, corpus, today=day)  # type: ignore[arg-type]
    finally:
        org_a.close()
        org_b.close()
    if args.format == "json":
        print(json.dumps(report.to_dict(), indent=1, ensure_ascii=False))
    else:
        _print(report)
    return ExitCode.FAILED if report.differences else ExitCode.OK


def _print(report: object) -> None:
    from rich.console import Console
    from rich.table import Table

    data = report.to_dict()  # type: ignore[attr-defined]
    console = Console(soft_wrap=True)
    sources = ", ".join(f"{n} {s}" for s, n in sorted(data["by_source"].items()))
    console.print(
        f"{data['org_a']} vs {data['org_b']}: {data['queries']} queries ({sources}), "
        f"{data['differences']} differences, {data['seconds']:.1f} s",
        markup=False,
        highlight=False,
    )
    if not data["items"]:
        return
    table = Table(show_lines=True)
    for col in ("query", "what", "ORG_A", "ORG_B"):
        table.add_column(col, overflow="fold")
    for item in data["items"]:
        table.add_row(item["query"], item["what"], item["a"], item["b"])
    console.print(table)
    print(f"{data['differences']} differences", file=sys.stderr)
