"""The report's efficiency and paired-statistics sections as rich tables (`reports.render` puts
them in the report)."""

from __future__ import annotations

from typing import Any, Literal

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

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


def p_value_text(value: float | None) -> str:
    """A p-value as the report prints it ("n/a" where the test does not apply: trials)."""
    if value is None:
        return "n/a"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def se_text(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def correlation_text(value: float | None) -> str:
    return "—" if value is None else f"{value:+.2f}"


def sides_text(paired: dict[str, Any]) -> str:
    """Each side's grading protocols, and what each leaves out and why (`paired_left_out`)."""
    protocols = " · ".join(
        f"{side} graded under {', '.join(paired.get(f'{side.lower()}_protocols') or ['—'])}"
        for side in ("A", "B")
    )
    left = paired.get("left_out")
    if left is None:
        return protocols
    each = []
    for side in ("a", "b"):
        reasons = ", ".join(f"{n} {why}" for why, n in left[side].items() if n) or "none"
        each.append(f"{side.upper()} {sum(left[side].values())} ({reasons})")
    return (
        f"{protocols}. Of {paired['tasks_seen']} tasks either side attempted, "
        f"{paired['shared_tasks']} paired; left out: {'; '.join(each)}."
    )


def few_pairs_text(paired: dict[str, Any]) -> str | None:
    if not paired.get("few_pairs"):
        return None
    return (
        f"Only {paired['shared_tasks']} paired task(s): under 10 pairs the difference, its "
        "interval and the test say little."
    )


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
        f"{a} (A) against {b} (B) on the {paired['shared_tasks']} tasks both graded "
        f"(A {paired['a_tasks']} tasks, B {paired['b_tasks']}): mean per-task difference A − B "
        "(trial means), its standard error"
        + (f" clustered by {paired['cluster']}" if paired.get("cluster") else "")
        + f" and t interval; 95% paired bootstrap interval ({paired['resamples']:,} resamples, "
        f"seed {paired['seed']}); r: correlation of the sides' task scores; McNemar's exact "
        "test on wins (one trial per task)"
    )
    table = _table(
        title,
        [
            ("task type", "left"),
            ("tasks", "right"),
            ("A", "right"),
            ("B", "right"),
            ("A − B", "right"),
            ("SE", "right"),
            ("t interval", "right"),
            ("bootstrap", "right"),
            ("r", "right"),
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
            se_text(r.get("se")),
            interval_text(r.get("t_interval")),
            interval_text(r["interval"]),
            correlation_text(r.get("correlation")),
            str(r["a_only"]),
            str(r["b_only"]),
            str(r["both"]),
            str(r["neither"]),
            str(r["split"]),
            p_value_text(r["mcnemar_p"]),
        )
    parts: list[RenderableType] = [Text(sides_text(paired), style="cyan"), table]
    warning = few_pairs_text(paired)
    if warning:
        parts.append(Text(warning, style="bold yellow"))
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
