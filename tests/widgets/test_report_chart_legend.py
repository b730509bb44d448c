"""The report screen's skill chart draws every configuration, each with its own colour, and
its legend names every one (issue 40, item 7: the chart and legend stopped at six)."""

from __future__ import annotations

from crmarena_tui.widgets.report_charts import ReportChart, chart_series, color_of, legend

PEOPLE = [f"model-{n}/react" for n in range(9)]
REPORT = {
    "by_skill": [
        {"participant": who, "group": group, "success_rate": 0.1 * n, "split": "all"}
        for n, who in enumerate(PEOPLE)
        for group in ("textual", "database")
    ]
}


def test_every_configuration_is_a_series_with_a_legend_entry() -> None:
    _title, labels, values, names = chart_series("skill", REPORT)
    assert names == PEOPLE and len(values) == 9 and labels == ["database", "textual"]
    shown = legend(names)
    assert all(who in shown.plain for who in PEOPLE)
    colours = {span.style for span in shown.spans}
    assert len(colours) == 9  # each its own colour, as its bars
    assert len({color_of(n) for n in range(9)}) == 9


def test_the_chart_draws_nine_series() -> None:
    chart = ReportChart("skill", REPORT)
    assert chart.names == PEOPLE and len(chart.values) == 9
