"""`crmarena-tui org info [ORG]`: where an org came from, its metadata and its record counts.

For an imported snapshot the counts stand beside the counts the benchmark documents for that org
(docs: reference section 6, B2B only), with the difference.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from crmarena_tui.errors import UserError

HIDDEN_META = ("counts", "import_report")


def org_path(spec: str | None) -> Path:
    """The file an org spec names, without building or fetching anything."""
    from crmarena_tui.orgs.upstream import ORG_TYPES, UPSTREAM_PREFIX
    from crmarena_tui.session.org_resolve import OrgSpecError, org_kind
    from crmarena_tui.settings import locations

    kind = org_kind(spec)
    if spec is None or spec == "demo":
        return locations.demo_org_path("b2b")
    if kind == "demo":
        return locations.demo_org_path(spec.split(":", 1)[1])
    if kind == "upstream":
        which = spec[len(UPSTREAM_PREFIX) :]
        if which not in ORG_TYPES:
            raise OrgSpecError(f"unknown org {spec!r}: use upstream:b2b, upstream:b2c or :original")
        path = locations.upstream_org_path(which)
        if not path.is_file():
            raise OrgSpecError(f"{spec} has not been fetched: run `crmarena-tui org fetch {which}`")
        return path
    if kind == "salesforce":
        raise OrgSpecError(
            "org info describes org files; for a live org, freeze it first with "
            f"`crmarena-tui org snapshot {spec} --out FILE.db`"
        )
    return Path(spec).expanduser()


def _build_demo_org(spec: str | None) -> None:
    """Build the demo org `spec` names when it is not built yet (progress on stderr); refused
    (`UserError`) when that fails."""
    import sys

    from crmarena_tui.demo.generator import ensure_demo_org
    from crmarena_tui.session.org_resolve import org_kind

    if org_kind(spec) != "demo":
        return
    org_type = spec.split(":", 1)[1] if spec and ":" in spec else "b2b"
    if org_type not in ("b2b", "b2c"):
        raise UserError(f"unknown org {spec!r}: use demo:b2b or demo:b2c")

    def progress(fraction: float, label: str) -> None:
        print(f"  {fraction:4.0%}  {label}", file=sys.stderr, flush=True)

    try:
        ensure_demo_org(org_type, progress=progress)
    except OSError as exc:
        raise UserError(f"cannot build the {org_type} demo org: {exc}") from exc


def documented(meta: dict[str, str]) -> dict[str, int] | None:
    """The benchmark's documented counts for an imported org of a documented type."""
    from crmarena_tui.orgs.upstream import DOCUMENTED_COUNTS

    if meta.get("kind") not in ("upstream-snapshot", "salesforce-snapshot"):
        return None
    return DOCUMENTED_COUNTS.get(meta.get("org_type", ""))


def run(args: argparse.Namespace, count: Callable[[Path], dict[str, int]]) -> int:
    from crmarena_tui.demo.generator import org_meta

    spec = getattr(args, "org_option", None) or args.org
    path = org_path(spec)
    _build_demo_org(spec)  # `demo:<type>` is built on first use, as `--org` builds it
    meta = org_meta(path)
    if not meta:
        raise UserError(
            f"{path} is not an org file (build one with `crmarena-tui org build`, or "
            "import a snapshot with `crmarena-tui org import`)"
        )
    report = _report_totals(meta.get("import_report"))
    shown = {k: v for k, v in meta.items() if k not in HIDDEN_META}
    counts = count(path)
    docs = documented(meta)
    if args.format == "json":
        data: dict[str, Any] = {"path": str(path), "meta": shown, "counts": counts}
        if docs is not None:
            data["documented_counts"] = docs
        if report is not None:
            data["import"] = {k: v for k, v in report.items() if k != "unconverted_lines"}
        print(json.dumps(data, indent=1))
        return 0
    print(f"{path}")
    for key, value in sorted(shown.items()):
        print(f"  {key}: {value}")
    if report is not None:
        _print_report(report)
    width = max((len(n) for n in counts), default=6)
    if docs is None:
        for name, n in sorted(counts.items()):
            print(f"  {name:<{width}}  {n:>7,}")
        return 0
    print(f"  {'object':<{width}}  {'records':>7}  {'documented':>10}  {'difference':>10}")
    for name in sorted(set(counts) | set(docs)):
        have, want = counts.get(name), docs.get(name)
        diff = "" if have is None or want is None else f"{have - want:+,}"
        print(
            f"  {name:<{width}}  {_n(have):>7}  {_n(want):>10}  {diff:>10}"
            + ("  (missing)" if have is None else "")
        )
    return 0


def _print_report(report: dict[str, Any]) -> None:
    print(
        f"  import: {report['rows_kept']:,} of {report['rows_read']:,} rows kept, "
        f"{report['values_not_coerced']:,} values not coerced, "
        f"{len(report['missing_objects'])} benchmark objects missing"
    )
    if report["composed"]:
        print(
            "  composed (Salesforce computes them; the snapshot has no such column): "
            + ", ".join(report["composed"])
        )
    if report["nulled"]:
        shown = ", ".join(f"{k} {v:,}" for k, v in report["nulled"].items())
        print(f"  text null words read as null: {shown}")
    for line in report["unconverted_lines"]:
        print(f"  not converted: {line}")


def _n(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def _report_totals(text: str | None) -> dict[str, Any] | None:
    if not text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    totals = dict(data.get("totals") or {})
    totals["missing_objects"] = list(data.get("missing_objects") or [])
    totals["source"] = data.get("source")
    totals.update(_details(data))
    return totals


def _details(data: dict[str, Any]) -> dict[str, Any]:
    """Every field the import composed, nulled words in, or left values in as stored."""
    from crmarena_tui.orgs.import_report import ImportReport, unconverted_lines

    try:
        report = ImportReport.from_dict(data)
    except (TypeError, ValueError, KeyError):  # a report of another importer version
        return {"composed": [], "nulled": {}, "unconverted": [], "unconverted_lines": []}
    unconverted = [
        {"object": name, **{k: getattr(p, k) for k in ("field", "type", "count", "examples")}}
        | {"reason": p.reason}
        for name, p in report.unconverted()
    ]
    nulled = {f"{o.name}.{f}": n for o in report.objects for f, n in o.nulled.items()}
    return {
        "composed": report.composed(),
        "nulled": nulled,
        "unconverted": unconverted,
        "unconverted_lines": unconverted_lines(report),
    }
