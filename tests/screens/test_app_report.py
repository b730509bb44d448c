"""The report screen on a seeded database: the tables and the bar charts show the figures the
report computes; hidden-labels mode counts only the annotator's own labels."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import Static, TabbedContent

from crmarena_tui.screens.report_screen import ReportScreen
from crmarena_tui.widgets.report_charts import ReportChart, chart_series
from tests.support.app_support import SIZE, screen_text, wait_for_workers
from tests.support.app_trajectory_support import AGENT, push, research_app, seed


@pytest.fixture
def ids(tmp_path: Path) -> dict[str, int]:
    return seed(tmp_path / "sessions.db")


def _plain(renderable) -> str:
    console = Console(width=120, file=io.StringIO(), record=True)
    console.print(renderable)
    return console.export_text()


def _chart(app, name: str) -> ReportChart:
    return app.screen.query_one(f"#rp-chart-{name}", ReportChart)


async def _tab(pilot, app, tab: str) -> str:
    app.screen.query_one("#rp-tabs", TabbedContent).active = f"rp-tab-{tab}"
    await pilot.pause()
    return screen_text(app)


async def test_report_tables_and_charts_from_the_seeded_db(tmp_path: Path, ids) -> None:
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, ReportScreen())
        text = screen_text(app)
        assert "Report · 9 graded sessions" in text
        success = _chart(app, "success")
        assert dict(zip(success.labels, success.values[0], strict=True)) == {
            "ann": 33.3,
            "bob": 50.0,
            AGENT: 50.0,
        }
        assert "Success rate by participant (%)" in text and "█" in text  # the bars drawn
        skill = _chart(app, "skill")
        assert skill.names == ["ann", "bob", AGENT]
        assert skill.labels == ["database querying & num…", "workflow execution"]
        assert skill.values == [[50.0, 0.0], [100.0, 0.0], [50.0, 50.0]]
        tables = _plain(app.screen.query_one("#rp-tables-success", Static).content)
        assert "Success by participant and skill" in tables
        assert "│ ann " in tables and "33.3%" in tables and "100.0%" in tables
        text = await _tab(pilot, app, "time")
        time = _chart(app, "time")
        assert dict(zip(time.labels, time.values[0], strict=True)) == {
            "case routing": 75.0,
            "handle time": 95.0,
        }
        assert "Human active time per task" in text and "handle_time" in text
        assert "1 min 35 s" in text  # the median, in the unit the sessions list uses
        text = await _tab(pilot, app, "versus")
        versus = _chart(app, "versus")
        assert versus.labels == [f"ann v {AGENT}", f"bob v {AGENT}"]
        assert versus.values == [[1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]
        assert "human only" in text
        text = await _tab(pilot, app, "labels")
        labels = _chart(app, "labels")
        assert dict(zip(labels.labels, labels.values[0], strict=True)) == {
            "gave up": 1.0,  # one session, labelled so by two annotators: one item
            "unrecovered tool error": 1.0,
            "wrong field": 1.0,
            "wrong filter or date range": 1.0,
        }
        tables = _plain(app.screen.query_one("#rp-tables-labels", Static).content)
        assert "Annotator agreement (Cohen's kappa), per level" in tables and "0.333" in tables


async def test_the_report_counts_labels_by_annotator_and_level(tmp_path: Path, ids) -> None:
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, ReportScreen())
        await _tab(pilot, app, "labels")
        tables = _plain(app.screen.query_one("#rp-tables-labels", Static).content)
        by_annotator = tables.split("Labels by annotator and level")[1].split("Sessions labelled")[
            0
        ]
        rows = [
            [cell.strip() for cell in line.split("│")[1:-1]]
            for line in by_annotator.splitlines()
            if line.startswith("│")
        ]
        assert [r[:6] for r in rows] == [
            ["ann", "session", "gave up", "1", "1", "50%"],
            ["", "", "wrong filter or date range", "1", "1", "50%"],
            ["bob", "session", "gave up", "1", "1", "50%"],
            ["", "", "wrong field", "1", "1", "50%"],
            ["bob", "step", "unrecovered tool error", "1", "1", "100%"],
        ]
        labelled = tables.split("Sessions labelled, by annotator and level")[1]
        assert "│ bob       │ session │        2 │      2 │" in labelled
        assert "│ bob       │ step    │        1 │      1 │" in labelled
        assert "│ ann       │ session │        2 │      2 │" in labelled
        agreement = tables.split("per level")[1]
        assert "ann / bob" in agreement and "session" in agreement


async def test_hidden_labels_count_only_your_own(tmp_path: Path, ids, monkeypatch) -> None:
    monkeypatch.setenv("CRMARENA_TUI_HIDDEN_LABELS", "1")
    app = research_app(tmp_path, participant="ann")
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, ReportScreen())
        assert "only your labels" in screen_text(app)
        labels = _chart(app, "labels")
        assert dict(zip(labels.labels, labels.values[0], strict=True)) == {
            "gave up": 1.0,
            "wrong filter or date range": 1.0,
        }
        tables = _plain(app.screen.query_one("#rp-tables-labels", Static).content)
        assert "bob" not in tables.split("Annotator agreement")[0]  # kappa reveals no label
        text = await _tab(pilot, app, "labels")
        assert "unrecovered tool error" not in text and "wrong field " not in text


def test_empty_report_charts_say_so() -> None:
    title, labels, values, _ = chart_series("labels", {"labels": {}})
    assert labels == [] and values == [[]] and "labels" in title.lower()
    with pytest.raises(ValueError):
        chart_series("pie", {})


async def test_f9_opens_the_report_from_the_task_browser(tmp_path: Path, ids) -> None:
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        await pilot.press("f9")
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, ReportScreen)
        assert app.screen.report is not None and app.screen.report["graded_sessions"] == 9


async def test_the_report_keeps_one_org_type_and_mode(tmp_path: Path, ids) -> None:
    from crmarena_tui.reports.filters import ReportFilter
    from crmarena_tui.widgets.choice_chip import ChoiceChip

    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, ReportScreen())
        assert "Report · 9 graded sessions" in screen_text(app)
        app.screen.query_one("#rp-mode", ChoiceChip).value = "chat"
        await wait_for_workers(pilot, app)
        await pilot.pause()
        text = screen_text(app)
        assert "Report · 0 graded sessions · only chat" in text  # the seeded sessions are single
        app.screen.query_one("#rp-mode", ChoiceChip).value = "single"
        await wait_for_workers(pilot, app)
        await pilot.pause()
        assert "Report · 9 graded sessions · only single" in screen_text(app)
        await push(pilot, ReportScreen(only=ReportFilter(org_type="b2c")))
        assert app.screen.query_one("#rp-org-type", ChoiceChip).value == "b2c"
        assert "Report · 0 graded sessions · only b2c" in screen_text(app)


async def test_leaving_the_report_stops_its_computation(
    tmp_path: Path, ids, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio
    import threading

    from crmarena_tui.reports import summary

    reading, release, sections = threading.Event(), threading.Event(), []
    slow_reads = summary.report_groups
    real_groups = summary.groups_.groups_of

    def slow(*args):
        reading.set()
        release.wait(10)
        return slow_reads(*args)

    def groups_of(*args, **kwargs):
        sections.append("groups")
        return real_groups(*args, **kwargs)

    monkeypatch.setattr(summary.groups_, "groups_of", groups_of)
    monkeypatch.setattr(summary, "report_groups", slow)
    monkeypatch.setattr(summary.groups_, "overall", lambda *a: sections.append("overall") or [])
    from crmarena_tui.screens import report_screen

    finished, real_load = threading.Event(), report_screen.load_report

    def load_report(*args, **kwargs):
        try:
            return real_load(*args, **kwargs)
        finally:
            finished.set()

    monkeypatch.setattr(report_screen, "load_report", load_report)
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        app.push_screen(ReportScreen())
        await pilot.pause()
        assert reading.wait(5)
        await pilot.press("escape")  # left while the sessions are still being read
        await pilot.pause()
        assert not isinstance(app.screen, ReportScreen)
        release.set()
        await wait_for_workers(pilot, app)
        # the worker's thread returns from the read and stops
        assert await asyncio.to_thread(finished.wait, 10)
    assert sections == []  # nothing was computed after `escape`


async def test_the_focus_starts_on_the_tabs_not_the_org_filter(tmp_path: Path, ids) -> None:
    from crmarena_tui.widgets.choice_chip import ChoiceChip

    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, ReportScreen())
        await pilot.press("right")
        await pilot.pause()
        assert app.screen.query_one("#rp-tabs", TabbedContent).active == "rp-tab-time"
        assert not app.screen.query_one("#rp-org-type", ChoiceChip).value  # still every org
        assert "Report · 9 graded sessions" in screen_text(app)  # (no filter: not reloaded)
