"""The compare screen's paired statistics (no textual here): which two sides its sessions come
from, and the figures `report --versus A B` prints for them: each side's grading protocols and
the tasks it leaves out and why, its table's rows (the difference, its SE, t and bootstrap
intervals, the correlation, the discordant counts, McNemar's p) for every task type and for this
task's type (as lines where the table would not fit), F1 where fuzzy, and a warning under 10
pairs.

The sides are the compared sessions' configurations (`storage.configuration`, what the report's
rows and `--versus` name) when there are two; three sessions of three participants, humans and
agents among them, compare the groups `humans` and `agents`. The figures are `build_report`'s own
`paired` section (`reports.summary`, `reports.paired`), computed with the report's defaults, so
they equal what `crmarena-tui report --versus A B` prints for the same database; they are
formatted by the report's own helpers (`reports.render_costs`).

Too few pairs is said in words: McNemar's exact test on n discordant tasks (one side won, the
other lost) cannot fall below p = 0.05 until n reaches `MIN_DISCORDANT` (6: the smallest p on 5 is
2/32 = 0.0625).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from crmarena_tui.reports.paired import GROUPS, mcnemar_exact
from crmarena_tui.reports.render_costs import (
    correlation_text,
    few_pairs_text,
    interval_text,
    p_value_text,
    se_text,
    sides_text,
)

if TYPE_CHECKING:
    from crmarena_tui.storage import Store

LEVEL = 0.05
NATURAL = 1000  # a width any table fits in: to measure the table's own width
MIN_DISCORDANT = next(n for n in range(1, 64) if mcnemar_exact(0, n) < LEVEL)
COLUMNS = (
    "task type",
    "tasks",
    "A",
    "B",
    "A − B",
    "SE",
    "t interval",
    "bootstrap",
    "r",
    "A only",
    "B only",
    "both",
    "neither",
    "split",
    "McNemar p",
)
GROUP_OF = {kind: group for group, kind in GROUPS.items()}  # human -> humans, agent -> agents


def sides_of(people: Sequence[tuple[str, str]]) -> tuple[str, str] | str:
    """The two sides of the compared sessions, from each session's (configuration, participant
    kind) in column order; else the sentence saying why there are none."""
    names = list(dict.fromkeys(name for name, _ in people))
    if len(names) == 2:
        return names[0], names[1]
    if len(names) == 1:
        return f"No paired statistics: every session here is {names[0]}'s (two sides are needed)."
    kinds = list(dict.fromkeys(kind for _, kind in people))
    if len(kinds) == 2 and all(k in GROUP_OF for k in kinds):
        return GROUP_OF[kinds[0]], GROUP_OF[kinds[1]]
    return (
        f"No paired statistics: {len(names)} participants of one kind; "
        "`crmarena-tui report --versus A B` pairs any two."
    )


def load_paired(
    store: Store, a: str, b: str, cancelled: Callable[[], bool] = lambda: False
) -> dict[str, Any]:
    """Blocking: the `paired` section of `report --versus a b` (`ReportCancelled` when
    `cancelled` says True). Two participants keep the report to their sessions, which changes no
    paired figure (each side's sessions are among them) and spares reading the others'."""
    from crmarena_tui.reports.filters import NO_FILTER, ReportFilter
    from crmarena_tui.reports.summary import build_report

    groups = a in GROUPS or b in GROUPS
    only = NO_FILTER if groups else ReportFilter(participants=(a, b))
    return build_report(store, versus=(a, b), only=only, cancelled=cancelled)["paired"]


def _f1(row: dict[str, Any]) -> str:
    f1 = row["f1"]
    return (
        f"F1, {row['scope']} ({f1['tasks']} fuzzy tasks): A {f1['a_mean_f1']:.3f}, "
        f"B {f1['b_mean_f1']:.3f}, A − B {f1['difference']:+.3f} "
        f"{interval_text(f1['interval'], percent=False)}"
    )


def _table(rows: list[dict[str, Any]]) -> Table:
    """The rows of `report --versus`'s table, as it formats them, without its borders."""
    table = Table(box=None, padding=(0, 1, 0, 0), show_edge=False, header_style="bold")
    for name in COLUMNS:
        table.add_column(name, justify="left" if name == "task type" else "right", no_wrap=True)
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
    return table


def _lines(rows: list[dict[str, Any]]) -> Text:
    """The table's figures as two lines a row, for a width the table does not fit in."""
    lines = []
    for r in rows:
        lines.append(
            f"{r['scope']} ({r['tasks']} tasks): A {r['a_success']:.1%}, B {r['b_success']:.1%}, "
            f"A − B {r['difference']:+.1%} (SE {se_text(r.get('se'))}) t "
            f"{interval_text(r.get('t_interval'))}, bootstrap {interval_text(r['interval'])}, "
            f"r {correlation_text(r.get('correlation'))}"
        )
        lines.append(
            f"  McNemar p {p_value_text(r['mcnemar_p'])} · A only {r['a_only']}, B only "
            f"{r['b_only']}, both {r['both']}, neither {r['neither']}, split {r['split']}"
        )
    return Text("\n".join(lines))


@dataclass(frozen=True, slots=True)
class Figures:
    """The rows as `report --versus`'s table where it fits, else as lines (never cut short)."""

    rows: list[dict[str, Any]]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        table = _table(self.rows)
        natural = Measurement.get(console, options.update_width(NATURAL), table).maximum
        fits = natural <= options.max_width
        yield table if fits else _lines(self.rows)


def too_few(rows: Sequence[dict[str, Any]]) -> str | None:
    """The sentence naming the rows with too few pairs to test, or None when every row has
    enough."""
    few = [
        r for r in rows if r["mcnemar_p"] is not None and r["a_only"] + r["b_only"] < MIN_DISCORDANT
    ]
    if not few:
        return None
    counts = ", ".join(f"{r['scope']} {r['a_only'] + r['b_only']} of {r['tasks']}" for r in few)
    return (
        f"Too few pairs to test: {counts} tasks won by one side alone; McNemar's exact test "
        f"needs {MIN_DISCORDANT} before p can fall below {LEVEL:g}."
    )


def paired_view(paired: dict[str, Any] | None, task_type: str) -> RenderableType:
    """The paired figures: the sides, every task type and this task's type (success, the
    difference with its 95% interval, McNemar's p and the pairs' counts), F1 where fuzzy, and a
    plain sentence when there are too few pairs."""
    if not paired:
        return Text("")
    a, b = paired["a"], paired["b"]
    head = Group(
        Text.assemble(
            ("Paired", "bold"),
            f" · A {a}, B {b} · {paired['shared_tasks']} tasks both graded "
            f"(A {paired['a_tasks']}, B {paired['b_tasks']}) · as report --versus {a} {b}",
        ),
        Text(sides_text(paired), style="dim"),
    )
    overall = paired["overall"]
    if overall is None:
        return Group(
            head,
            Text(
                "Too few pairs: no task has a graded attempt of both sides, nothing to pair.",
                style="bold yellow",
            ),
        )
    rows = [overall]
    mine = next((r for r in paired["by_task_type"] if r["scope"] == task_type), None)
    if mine is not None and len(paired["by_task_type"]) > 1:
        rows.append(mine)
    parts: list[RenderableType] = [head, Figures(rows)]
    fuzzy = [r for r in rows if r["f1"]]
    if len(fuzzy) == 2 and fuzzy[0]["f1"]["tasks"] == fuzzy[1]["f1"]["tasks"]:
        fuzzy = fuzzy[1:]  # every fuzzy task is of this type: one line says it
    parts.extend(Text(_f1(r), style="dim") for r in fuzzy)
    for warning in (few_pairs_text(paired), too_few(rows)):
        if warning:
            parts.append(Text(warning, style="bold yellow"))
    return Group(*parts)
