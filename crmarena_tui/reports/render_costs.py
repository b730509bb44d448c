"""The report's efficiency and paired-statistics sections as rich tables (`reports.render` puts
them in the report)."""

from __future__ import annotations

from typing import Any, Literal

from rich.console import RenderableType
from rich.table import Table

from crmarena_tui.reports.units import format_duration

Justify = Literal["left", "right"]


def _table(title: str, columns: list[tuple[str, Justify]]) -> Table:
    table = Table(title=title, title_justify="left", expand=False)
    for name, justify in columns:
        table.add_column(name, justify=justify, max_width=30 if justify == "left" else None)
    return table


def _money(value: float | None) -> str:
    return "—" if value is None else f"${value:,.4f}" if value < 1 else f"${value:,.2f}"


def _number(value: float | None, digits: int = 0) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def efficiency_table(rows: list[dict[str, Any]]) -> RenderableType | None:
    if not rows:
        return None
    table = _table(
        "Cost, tokens and time by participant and task type (— where nothing was recorded)",
        [
            ("participant", "left"),
            ("task type", "left"),
            ("tasks", "right"),
            ("solved", "right"),
            ("cost", "right"),
            ("per solved task", "right"),
            ("model calls", "right"),
            ("tokens per call", "right"),
            ("median time", "right"),
        ],
    )
    for r in rows:
        seconds = r["median_seconds_per_task"]
        who, model = r["participant"], r.get("model")
        table.add_row(
            f"{who} ({model})" if model and model not in who else who,
            r["task_type"],
            str(r["tasks"]),
            str(r["solved"]),
            _money(r["cost"]),
            _money(r["cost_per_solved_task"]),
            _number(r["model_calls"]),
            _number(r["tokens_per_call"]),
            "—" if seconds is None else format_duration(seconds),
        )
    return table


def p_value_text(value: float) -> str:
    """A p-value as the report prints it."""
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def interval_text(pair: list[float] | None, percent: bool = True) -> str:
    """A bootstrap interval as the report prints it: signed percentages, or signed F1."""
    if pair is None:
        return "—"
    low, high = pair
    return f"[{low:+.1%}, {high:+.1%}]" if percent else f"[{low:+.3f}, {high:+.3f}]"


def paired_tables(paired: dict[str, Any] | None) -> list[RenderableType]:
    if not paired:
        return []
    a, b = paired["a"], paired["b"]
    title = (
        f"{a} (A) against {b} (B) on the {paired['shared_tasks']} tasks both attempted "
        f"(A {paired['a_tasks']} tasks, B {paired['b_tasks']}): McNemar's exact test on wins, "
        f"95% paired bootstrap interval of A − B ({paired['resamples']:,} resamples, "
        f"seed {paired['seed']})"
    )
    table = _table(
        title,
        [
            ("task type", "left"),
            ("tasks", "right"),
            ("A", "right"),
            ("B", "right"),
            ("A − B", "right"),
            ("interval", "right"),
            ("A only", "right"),
            ("B only", "right"),
            ("both", "right"),
            ("neither", "right"),
            ("split", "right"),
            ("McNemar p", "right"),
        ],
    )
    rows = ([paired["overall"]] if paired["overall"] else []) + paired["by_task_type"]
    for r in rows:
        table.add_row(
            r["scope"],
            str(r["tasks"]),
            f"{r['a_success']:.1%}",
            f"{r['b_success']:.1%}",
            f"{r['difference']:+.1%}",
            interval_text(r["interval"]),
            str(r["a_only"]),
            str(r["b_only"]),
            str(r["both"]),
            str(r["neither"]),
            str(r["split"]),
            p_value_text(r["mcnemar_p"]),
        )
    parts: list[RenderableType] = [table]
    fuzzy = [r for r in rows if r["f1"]]
    if fuzzy:
        f1 = _table(
            "Mean F1 on fuzzy tasks: A − B with its 95% paired bootstrap interval",
            [
                ("task type", "left"),
                ("tasks", "right"),
                ("A F1", "right"),
                ("B F1", "right"),
                ("A − B", "right"),
                ("interval", "right"),
            ],
        )
        for r in fuzzy:
            x = r["f1"]
            f1.add_row(
                r["scope"],
                str(x["tasks"]),
                f"{x['a_mean_f1']:.3f}",
                f"{x['b_mean_f1']:.3f}",
                f"{x['difference']:+.3f}",
                interval_text(x["interval"], percent=False),
            )
        parts.append(f1)
    return parts
