"""Terminal bar charts of the report (textual-plotext), one chart per widget.

Each chart reads the report as `reports.summary.build_report` returns it. `series` keeps what was
drawn (labels and values), so what a chart shows can be checked without reading its pixels.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Literal

from rich.text import Text
from textual_plotext import PlotextPlot

CHARTS = ("success", "skill", "time", "versus", "labels")
COLORS = ("blue", "orange", "green", "magenta", "cyan", "red")  # the first series', in order
# Then 256-colour codes (plotext takes them, rich as `color(N)`), so that every configuration
# has a bar and a legend entry of its own colour: none is left out of a chart.
MORE_COLORS = (226, 201, 46, 33, 208, 129, 118, 214, 51, 160, 99, 190, 37, 205, 142, 69)


def color_of(series: int) -> str | int:
    """The colour of the `series`-th series (from 0): a plotext name or a 256-colour code (past
    `len(COLORS) + len(MORE_COLORS)` series, the codes repeat)."""
    if series < len(COLORS):
        return COLORS[series]
    return MORE_COLORS[(series - len(COLORS)) % len(MORE_COLORS)]


def _rich(color: str | int) -> str:
    if isinstance(color, int):
        return f"color({color})"
    return color.replace("orange", "dark_orange")


OUTCOME_NAMES = (
    ("human_only", "human only"),
    ("agent_only", "agent only"),
    ("both", "both"),
    ("neither", "neither"),
)


def _short(text: str, width: int = 18) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _whole(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows over all splits (`split` "all"), or every row when the report has one split."""
    return [r for r in rows if r.get("split", "all") == "all"] or rows


def chart_series(
    chart: str, report: dict[str, Any]
) -> tuple[str, list[str], list[list[float]], list[str]]:
    """(title, bar labels, one value list per series, series names) of a chart; no bars when
    the report has nothing for it."""
    if chart == "success":
        rows = _whole(report.get("overall") or [])
        mixed = len({r.get("protocol") for r in rows}) > 1
        return (
            "Success rate by participant (%)",
            [
                _short(r["participant"], 40) + (f" ({r.get('protocol')})" if mixed else "")
                for r in rows
            ],
            [[round(r["success_rate"] * 100, 1) for r in rows]],
            [],
        )
    if chart == "skill":
        table: dict[str, dict[str, float]] = defaultdict(dict)
        for r in _whole(report.get("by_skill") or []):
            table[r["participant"]][r["group"]] = round(r["success_rate"] * 100, 1)
        people = sorted(table)  # every configuration: `color_of` has a colour for each
        skills = sorted({g for p in people for g in table[p]})
        return (
            "Success rate by skill (%)",
            [_short(s, 24) for s in skills],
            [[table[p].get(s, 0.0) for s in skills] for p in people],
            people,
        )
    if chart == "time":
        rows = [r for r in report.get("human_time") or [] if r["task_type"] != "all"]
        return (
            "Human active time per task type: median (s)",
            [_short(r["task_type"].replace("_", " "), 24) for r in rows],
            [[r["median_s"] for r in rows]],
            [],
        )
    if chart == "versus":
        rows = report.get("human_vs_agent") or []
        labels = [_short(f"{r['human']} v {r['agent']}", 24) for r in rows]
        return (
            "Human against agent on shared tasks (tasks)",
            labels,
            [[float(r[key]) for r in rows] for key, _ in OUTCOME_NAMES],
            [name for _, name in OUTCOME_NAMES],
        )
    if chart == "labels":
        totals: dict[str, int] = defaultdict(int)
        for row in (report.get("labels") or {}).get("by_participant") or []:
            totals[row["label"]] += row["items"]
        ordered = sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))
        return (
            "Failure labels (labelled steps and sessions, any annotator)",
            [_short(k, 28) for k, _ in ordered],
            [[float(v) for _, v in ordered]],
            [],
        )
    raise ValueError(f"unknown chart {chart!r}; expected one of {', '.join(CHARTS)}")


def legend(names: list[str]) -> Text:
    """The series names in their bars' colours, for a line under a chart."""
    text = Text()
    for n, name in enumerate(names):
        text.append("■ ", style=_rich(color_of(n)))
        text.append(f"{name}   ")
    return text


class ReportChart(PlotextPlot):
    """One chart of the report: `chart` is one of `CHARTS`."""

    DEFAULT_CSS = """
    ReportChart { height: 14; width: 1fr; margin-bottom: 1; }
    """

    def __init__(self, chart: str, report: dict[str, Any], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.chart = chart
        self.chart_title, self.labels, self.values, self.names = chart_series(chart, report)
        self._draw()

    def _draw(self) -> None:
        plt = self.plt
        plt.clear_figure()
        plt.title(self.chart_title if self.labels else f"{self.chart_title}: no data yet")
        if not self.labels:
            return
        if self.chart in ("skill", "versus") and len(self.values) > 1:
            draw = plt.multiple_bar if self.chart == "skill" else plt.stacked_bar
            orientation: Literal["vertical", "horizontal"] = (
                "vertical" if self.chart == "skill" else "horizontal"
            )
            # No legend inside the plot (plotext draws it over the bars): `legend()` gives the
            # series names and colours for a line of their own under the chart.
            colors = [color_of(n) for n in range(len(self.values))]
            # (textual-plotext's stub takes one colour; plotext takes one per series)
            draw(self.labels, self.values, color=colors, orientation=orientation)  # type: ignore[arg-type]
        else:
            plt.bar(self.labels, self.values[0], orientation="horizontal", width=0.4)
        if self.chart in ("success", "skill"):
            if self.chart == "success":
                plt.xlim(0, 100)
            else:
                plt.ylim(0, 100)
