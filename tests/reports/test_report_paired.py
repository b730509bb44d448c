"""Paired statistics (issue 30): McNemar's exact test and a paired bootstrap interval, checked
against hand-worked tables, and `report --versus A B` on a database; the efficiency section
(cost per solved task, tokens per model call, time per task)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from crmarena_tui.reports.paired import mcnemar_exact, paired_bootstrap
from crmarena_tui.storage import Store
from tests.support.study_support import cli, work, write_tasks


@pytest.mark.parametrize(
    ("b", "c", "p"),
    [
        (0, 0, 1.0),  # no discordant task: nothing to test
        (1, 6, 2 * (1 + 7) / 2**7),  # n = 7: P(X <= 1) = (C(7,0) + C(7,1)) / 128; p = 0.125
        (6, 1, 0.125),  # symmetric
        (0, 5, 2 / 2**5),  # 0.0625
        (2, 10, 2 * (1 + 12 + 66) / 2**12),  # 0.0386: below 0.05
        (3, 3, 1.0),  # twice the tail 42/64 is capped at 1
        (0, 1, 1.0),
    ],
)
def test_mcnemar_exact_matches_the_binomial_tables(b: int, c: int, p: float) -> None:
    assert math.isclose(mcnemar_exact(b, c), p)


def test_the_bootstrap_interval_of_a_constant_difference_is_that_difference() -> None:
    assert paired_bootstrap([0.5] * 30, seed=3) == (0.5, 0.5)
    assert paired_bootstrap([], seed=3) is None


def test_the_bootstrap_interval_by_hand() -> None:
    """Two tasks, differences 1 and 0: a resample's mean is 0, 0.5 or 1 with chances 1/4, 1/2,
    1/4, so of 2,000 resamples the 2.5th percentile is 0 and the 97.5th is 1. Four tasks, three
    wins for A: the mean is 0 with chance 1/256 (< 2.5%), at most 0.25 with chance 13/256 (> 2.5%),
    so the lower end is 0.25; all four drawn as wins has chance 81/256, so the upper end is 1."""
    assert paired_bootstrap([1.0, 0.0], seed=0) == (0.0, 1.0)
    assert paired_bootstrap([1.0, 1.0, 1.0, 0.0], seed=0) == (0.25, 1.0)


def test_the_interval_is_seeded_and_narrows_with_more_tasks() -> None:
    diffs = [1.0] * 12 + [0.0] * 6 + [-1.0] * 2
    first = paired_bootstrap(diffs, seed=11)
    assert first == paired_bootstrap(diffs, seed=11)
    assert first is not None and first[0] <= 0.5 <= first[1]
    wide = paired_bootstrap(diffs, seed=11)
    narrow = paired_bootstrap(diffs * 10, seed=11)
    assert wide is not None and narrow is not None
    assert narrow[1] - narrow[0] < wide[1] - wide[0]


def _database(tmp_path: Path) -> Path:
    """Two agents on 12 tasks (4 of each of three types): A wins 10, B wins 4; A alone 7 of
    them, B alone 1, both 3, neither 1. A reports usage (tokens and cost), B none."""
    tasks = write_tasks(tmp_path / "tasks.json")
    path = tmp_path / "sessions.db"
    a_wins = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0]
    b_wins = [1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0]
    with Store(path) as store:
        for k, task in enumerate(tasks):
            a = work(store, "model-a", task, study_id=None, reward=a_wins[k], kind="agent",
                     model="openai/a", seconds=10.0 + k)  # fmt: skip
            for _ in range(2):  # two model calls per session
                store.append_event(
                    a.id,
                    "agent",
                    "usage",
                    {
                        "prompt_tokens": 90,
                        "completion_tokens": 10,
                        "total_tokens": 100,
                        "cost": 0.01,
                    },  # fmt: skip
                )
            work(store, "model-b", task, study_id=None, reward=b_wins[k], kind="agent",
                 model="openai/b", seconds=30.0)  # fmt: skip
    return path


def test_report_versus_counts_the_discordant_tasks_and_tests_them(tmp_path: Path) -> None:
    path = _database(tmp_path)
    code, out, err = cli(
        "report", "--db", str(path), "--format", "json", "--versus", "model-a", "model-b"
    )
    assert code == 0, err
    paired = json.loads(out)["paired"]
    overall = paired["overall"]
    assert paired["shared_tasks"] == overall["tasks"] == 12
    assert (overall["a_only"], overall["b_only"], overall["both"], overall["neither"]) == (
        7, 1, 3, 1,
    )  # fmt: skip
    assert math.isclose(overall["mcnemar_p"], 2 * (1 + 8) / 2**8)  # 0.0703
    assert math.isclose(overall["difference"], 10 / 12 - 4 / 12)
    low, high = overall["interval"]
    assert low <= overall["difference"] <= high
    assert [r["scope"] for r in paired["by_task_type"]] == [
        "case_routing", "handle_time", "transfer_count",
    ]  # fmt: skip
    assert sum(r["tasks"] for r in paired["by_task_type"]) == 12

    code, text, _ = cli("report", "--db", str(path), "--versus", "model-a", "model-b")
    assert code == 0
    assert "McNemar" in text and "0.070" in text and "+50.0%" in text


def test_report_versus_a_side_nobody_matches_compares_nothing(tmp_path: Path) -> None:
    path = _database(tmp_path)
    code, out, _ = cli("report", "--db", str(path), "--format", "json", "--versus", "x", "model-b")
    paired = json.loads(out)["paired"]
    assert code == 0 and paired["shared_tasks"] == 0 and paired["overall"] is None


def test_a_side_naming_a_configuration_is_that_configuration_alone(tmp_path: Path) -> None:
    """gpt-4o/react against gpt-4o/react/aided: each won two of four tasks the other lost. The
    plain configuration is not also the leading part of the aided one; a true leading part
    (gpt-4o, no configuration of that name) still gathers both."""
    tasks = write_tasks(tmp_path / "tasks.json", per_type=4, types=("handle_time",))
    path = tmp_path / "sessions.db"
    with Store(path) as store:
        for task, react, aided in zip(tasks, [1, 1, 0, 0], [0, 0, 1, 1], strict=True):
            for who, reward in (("gpt-4o/react", react), ("gpt-4o/react/aided", aided)):
                work(store, who, task, study_id=None, reward=reward, kind="agent", model="gpt-4o")

    def overall(a: str, b: str) -> dict:
        code, out, _ = cli("report", "--db", str(path), "--format", "json", "--versus", a, b)
        assert code == 0
        return json.loads(out)["paired"]["overall"]

    row = overall("gpt-4o/react", "gpt-4o/react/aided")
    assert (row["a_only"], row["b_only"], row["split"], row["mcnemar_p"]) == (2, 2, 0, 1.0)
    assert (row["a_success"], row["b_success"]) == (0.5, 0.5)
    row = overall("gpt-4o", "gpt-4o/react/aided")  # both configurations on side A: split 1-1
    assert (row["a_only"], row["b_only"], row["split"]) == (0, 0, 4)


def test_efficiency_gives_cost_per_solved_task_tokens_per_call_and_time(tmp_path: Path) -> None:
    path = _database(tmp_path)
    code, out, _ = cli("report", "--db", str(path), "--format", "json")
    rows = {(r["participant"], r["task_type"]): r for r in json.loads(out)["efficiency"]}
    a = next(r for (who, t), r in rows.items() if "model-a" in who and t == "all task types")
    assert a["tasks"] == 12 and a["solved"] == 10
    assert math.isclose(a["cost"], 12 * 2 * 0.01)
    assert math.isclose(a["cost_per_solved_task"], 0.24 / 10)
    assert a["model_calls"] == 24 and a["tokens_per_call"] == 100
    assert a["median_seconds_per_task"] == 15.5  # 10..21 s
    b = next(r for (who, t), r in rows.items() if "model-b" in who and t == "all task types")
    assert b["cost"] is None and b["tokens_per_call"] is None and b["model_calls"] is None
    assert b["median_seconds_per_task"] == 30.0
    code, text, _ = cli("report", "--db", str(path))
    assert "per solved task" in text and "$0.0240" in text


async def test_the_report_screen_shows_cost_and_time_in_its_own_tab(tmp_path: Path) -> None:
    from textual.widgets import Static, TabbedContent

    from crmarena_tui.screens.report_screen import ReportScreen
    from tests.support.app_support import screen_text
    from tests.support.app_trajectory_support import push, research_app

    _database(tmp_path)
    app = research_app(tmp_path)
    async with app.run_test(size=(160, 50)) as pilot:
        await push(pilot, ReportScreen())
        success = str(app.screen.query_one("#rp-tables-success", Static).content)
        assert "per solved task" not in success  # each tab shows its own tables
        app.screen.query_one("#rp-tabs", TabbedContent).active = "rp-tab-costs"
        await pilot.pause()
        text = screen_text(app)
        assert "Cost, tokens and time" in text and "$0.0240" in text
