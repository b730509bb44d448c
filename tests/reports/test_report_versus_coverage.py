"""`report --versus A B` on sides that did not cover the same tasks (issue 35): the tasks paired,
and what is left out on each side and why, the same rule on both; trial means; and the paper's
table as markdown and LaTeX."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from crmarena_tui.cli import main
from crmarena_tui.storage import Store
from tests.support.trials_support import add_trials


def _out(db: Path, *args: str) -> str:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["report", "--db", str(db), *args]) == 0
    return buffer.getvalue()


def _paired(db: Path, *args: str) -> dict[str, Any]:
    return json.loads(_out(db, "--format", "json", *args))["paired"]


@pytest.fixture
def uneven(tmp_path: Path) -> Path:
    """gpt on tasks 0-13 and 30 (ungraded there); o1 on 3-11 graded, 12 ungraded, 13 ended on
    a rate limit, 0 abandoned, and 20, which gpt never ran."""
    db = tmp_path / "u.db"
    with Store(db) as store:
        add_trials(store, "gpt", {i: [i % 3 != 0] for i in range(14)})
        add_trials(store, "gpt", {30: [None]})
        add_trials(store, "o1", {i: [i % 2] for i in range(3, 12)})
        add_trials(store, "o1", {12: [None], 20: [0]})
        add_trials(store, "o1", {13: [1]}, settings={"infrastructure_error": "rate limit"})
        o1 = next(p for p in store.participants() if p.name == "o1/react")
        from tests.support.spec_support import session_spec
        from tests.support.trials_support import task

        store.create_session(
            session_spec(o1, task(0), settings={"strategy": "react"}), status="abandoned"
        )
    return db


def test_versus_on_unequal_coverage_counts_what_each_side_leaves_out(uneven: Path) -> None:
    paired = _paired(uneven, "--versus", "gpt/react", "o1/react")
    # seen: 0-13, 20 and 30 (16 tasks); paired: 3-11 (9)
    assert (paired["tasks_seen"], paired["shared_tasks"]) == (16, 9)
    assert paired["left_out"] == {
        # gpt: 20 not run, 30 not graded
        "a": {"not run": 1, "not graded": 1, "failed run": 0},
        # o1: 1, 2 and 30 not run; 12 not graded; 0 abandoned and 13 a rate limit
        "b": {"not run": 3, "not graded": 1, "failed run": 2},
    }
    assert paired["few_pairs"] is True
    for side in ("a", "b"):  # every task seen is graded on a side or left out there, once
        assert paired[f"{side}_tasks"] + sum(paired["left_out"][side].values()) == 16
    text = _out(uneven, "--versus", "gpt/react", "o1/react")
    assert (
        "A graded under workbench · B graded under workbench. Of 16 tasks either side attempted, "
        "9 paired; left out: A 2 (1 not run, 1 not graded); B 6 (3 not run, 1 not graded, 2 "
        "failed run)." in " ".join(text.split())
    )
    assert "Only 9 paired task(s): under 10 pairs" in " ".join(text.split())


def test_infrastructure_errors_counted_pair_the_task_instead(uneven: Path) -> None:
    paired = _paired(uneven, "--versus", "gpt/react", "o1/react", "--with-infrastructure-errors")
    assert paired["shared_tasks"] == 10
    assert paired["left_out"]["b"] == {"not run": 3, "not graded": 1, "failed run": 1}


def test_with_trials_the_pairs_are_trial_means_and_mcnemar_is_not_given(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    with Store(db) as store:
        add_trials(store, "gpt", {i: [1, 1, i % 2] for i in range(12)})
        add_trials(store, "o1", {i: [0, 1, 0] for i in range(12)})
    overall = _paired(db, "--versus", "gpt/react", "o1/react")["overall"]
    # gpt: 1 on even tasks... task means 2/3 (even idx) and 1 (odd); o1: 1/3 on every task
    assert overall["a_success"] == pytest.approx((6 * 2 / 3 + 6) / 12)
    assert overall["b_success"] == pytest.approx(1 / 3)
    # differences 1/3 and 2/3, six each: mean 1/2, squares about it 12 * (1/6)^2 = 1/3,
    # sample variance 1/33, SE = sqrt(1/33/12)
    assert overall["se"] == pytest.approx((1 / 33 / 12) ** 0.5)
    assert overall["correlation"] is None  # o1's scores do not vary
    assert overall["mcnemar_p"] is None and overall["split"] == 12
    text = " ".join(_out(db, "--versus", "gpt/react", "o1/react").split())
    assert "n/a" in text


def test_the_versus_table_names_each_sides_protocol(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    with Store(db) as store:
        add_trials(store, "gpt", {i: [1] for i in range(4)}, protocol="upstream")
        add_trials(store, "o1", {i: [0] for i in range(4)})
    paired = _paired(db, "--versus", "gpt/react", "o1/react")
    assert (paired["a_protocols"], paired["b_protocols"]) == (["upstream"], ["workbench"])
    text = " ".join(_out(db, "--versus", "gpt/react", "o1/react").split())
    assert "A graded under upstream · B graded under workbench." in text


def test_the_paper_table_in_markdown_and_latex(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Store(db) as store:
        add_trials(store, "gpt", {i: [1, 0] for i in range(4)})
        add_trials(store, "gpt", {i: [1, 1] for i in range(4)}, interactive=True)
        add_trials(store, "gpt", {i: [0, 0] for i in range(4)}, org_type="b2c")
    markdown = _out(db, "--format", "markdown")
    lines = markdown.splitlines()
    assert lines[0] == (
        "| configuration | protocol | B2B single-turn | B2B multi-turn | B2C single-turn | "
        "all splits |"
    )
    assert lines[2].startswith("| gpt/react | workbench | 50.0 [50.0, 50.0] (n=4, k=2) | ")
    # every trial won (or lost): Wilson's interval on the 4 tasks, not a zero-width t interval
    assert "| 100.0 [51.0, 100.0] (n=4, k=2) | 0.0 [0.0, 49.0] (n=4, k=2) |" in lines[2]
    assert "t on task means (3 df)" in markdown and "n tasks, k trials per task" in markdown
    latex = _out(db, "--format", "latex")
    assert "\\begin{tabular}{llrrrr}" in latex and "\\toprule" in latex
    assert "95\\% interval" in latex and "fuzzy\\_match" in latex
    assert "gpt/react & workbench & 50.0 [50.0, 50.0] (n=4, k=2) &" in latex


@pytest.mark.parametrize("counted", [False, True])
def test_the_exclusions_read_from_the_reports_table_are_those_of_every_session(
    uneven: Path, counted: bool
) -> None:
    """The report reads the graded sessions' columns from its own table and scans only the
    ungraded ones; the per-session path scans them all: the same counts."""
    from crmarena_tui.reports import summary
    from tests.support.report_support import python_report

    options: dict[str, Any] = {
        "versus": ("gpt/react", "o1/react"),
        "with_infrastructure_errors": counted,
    }
    with Store(uneven) as store:
        new = summary.build_report(store, **options)["paired"]
        old = python_report(store, **options)["paired"]
    assert (new["tasks_seen"], new["left_out"]) == (old["tasks_seen"], old["left_out"])


def test_a_judge_on_the_rows_becomes_a_column_of_the_paper_table(tmp_path: Path) -> None:
    """The grading provenance (issue 34) names each row's judge; the table then shows it."""
    from crmarena_tui.reports import summary
    from crmarena_tui.reports.paper_table import paper_table

    db = tmp_path / "j.db"
    with Store(db) as store:
        add_trials(store, "gpt", {i: [1, 0] for i in range(4)})
        report = summary.build_report(store)
    assert "judge" not in paper_table(report, "markdown").splitlines()[0]
    for row in report["overall"]:
        row["judge"] = "offline extractor"
    lines = paper_table(report, "markdown").splitlines()
    assert lines[0] == "| configuration | protocol | judge | B2B single-turn |"
    assert lines[2].startswith("| gpt/react | workbench | offline extractor | 50.0 [")
    assert "\\begin{tabular}{lllr}" in paper_table(report, "latex")


def test_the_success_table_shows_trials_and_the_interval(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    with Store(db) as store:
        add_trials(store, "gpt", {i: [int(i < 3)] for i in range(10)})  # 3 of 10
    text = _out(db)
    assert "95% interval" in text
    # Wilson 95% for 3 of 10: [0.1078, 0.6032]
    assert "│   30.0% │ [10.8%, 60.3%] │" in text
    assert "95% intervals: Wilson score." in " ".join(text.split())
