"""The task figures of the report's success rows as the command line prints them (issue 35,
`reports.task_units`): trials per task, the interval, the methods and choices in a line, and
pass@k / pass^k in a table of their own, with the tasks left out of a k said in words."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text


def trials_text(row: dict[str, Any]) -> str:
    """A row's trials per task: `5`, or `3–5` when its tasks have different counts."""
    low, high = row.get("trials") or (None, None)
    if low is None:
        return "—"
    return str(low) if low == high else f"{low}–{high}"


def rate_interval(pair: list[float] | None) -> str:
    return "—" if pair is None else f"[{pair[0]:.1%}, {pair[1]:.1%}]"


def _rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [*(report.get("overall") or []), *(report.get("by_task_type") or [])]


def units_lines(report: dict[str, Any]) -> list[RenderableType]:
    """What the success tables' n, k, success and interval are, the interval methods the rows
    used, the clustering, and the sessions left out of the rows."""
    rows = _rows(report)
    if not rows or "interval_method" not in rows[0]:
        return []
    methods = sorted({r["interval_method"] for r in rows})
    several = any(r["trials"][1] > 1 for r in rows)
    lines: list[RenderableType] = [
        Text(
            "n: graded attempts; k: trials per task (a task's graded attempts in the row). "
            + (
                "Success is the mean over tasks of each task's share of wins, its standard error "
                "taken across tasks. "
                if several
                else "Success: wins / tasks (one trial per task). "
            )
            + f"95% intervals: {'; '.join(methods)}.",
            style="dim",
        )
    ]
    cluster = (report.get("units") or {}).get("cluster")
    if cluster:
        overall = widest(report.get("overall") or [])
        said = ", ".join(
            f"{r['participant']} {_se(r['se'])} → {_se(r['cluster']['se'])}" for r in overall
        )
        lines.append(
            Text(
                f"Standard errors clustered by {cluster} (naive → clustered, overall): {said}.",
                style="cyan",
            )
        )
    excluded = sum(r.get("excluded", 0) for r in widest(report.get("overall") or []))
    if excluded:
        lines.append(
            Text(
                f"Each row's exclusions (infrastructure errors left out) are in the JSON "
                f"(`excluded`): {excluded} session(s) in all.",
                style="dim",
            )
        )
    return lines


def widest(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows over all splits when there are several splits, else every row."""
    every = [r for r in rows if r["split"] == "all"]
    return every or rows


def _se(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def pass_k_table(report: dict[str, Any]) -> list[RenderableType]:
    """pass@k and pass^k per participant, split and task type, for every k of the report, and a
    line per k naming the rows where tasks with fewer than k trials were left out."""
    ks = (report.get("units") or {}).get("k") or []
    rows = [r for r in _rows(report) if r.get("pass_k")]
    if not ks or not rows:
        return []
    table = Table(
        title="pass@k (at least one of k trials succeeds) and pass^k (all k do), mean over tasks",
        title_justify="left",
        expand=False,
    )
    for name in ("participant", "protocol", "split", "task type", "tasks"):
        table.add_column(name, justify="left" if name != "tasks" else "right", max_width=30)
    for k in ks:
        table.add_column(f"pass@{k}", justify="right")
        table.add_column(f"pass^{k}", justify="right")
    short: dict[int, list[tuple[dict[str, Any], int]]] = {}
    for r in rows:
        cells = []
        for figure in r["pass_k"]:
            cells += [_rate(figure["pass_at_k"]), _rate(figure["pass_hat_k"])]
            if figure["left_out"]:
                short.setdefault(figure["k"], []).append((r, figure["left_out"]))
        table.add_row(
            r["participant"], r["protocol"], r["split"], r["group"], str(r["tasks"]), *cells
        )
    parts: list[RenderableType] = [table]
    for k, where in sorted(short.items()):
        named = [
            f"{r['participant']} {r['split']} {n} of {r['tasks']}"
            for r, n in where
            if r["group"] == "all"
        ]
        more = len(where) - len(named)
        parts.append(
            Text(
                f"pass@{k} / pass^{k} leave out the tasks with fewer than {k} trials (k is "
                f"never lowered): {', '.join(named) or 'none overall'}"
                + (f"; and in {more} task-type row(s)." if more else "."),
                style="yellow",
            )
        )
    return parts
