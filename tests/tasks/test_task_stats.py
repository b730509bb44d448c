"""`crmarena-tui tasks stats`: the shape of a task set per type, read from real rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.tasks.stats import period_kinds


@pytest.mark.parametrize(
    ("query", "kinds"),
    [
        ("Which states had the quickest case closures in November 2021?", ["month"]),
        ("the quickest case closures in the past four weeks?", ["past weeks"]),
        ("the least average handling time over the last 2 months", ["past months"]),
        ("Who achieved the highest rate over the last 6 quarters?", ["past quarters"]),
        ("the most sales in the last quarter", ["past quarters"]),
        ("Who recorded the most sales in the fourth quarter of 2021?", ["quarter"]),
        ("In Spring 2020, which agent", ["season"]),
        ("During the fall of 2020, which agent", ["season"]),
        ("in Q3 2022 compared with Q2 2022", ["quarter"]),
        ("the year 2021 and in 2020", ["year"]),
        ("the lab kit I purchased last week", ["days ago"]),
        ("the design program that I purchased five days back", ["days ago"]),
        ("the router I bought two weeks ago", ["days ago"]),
        ("Which agent ought to be allocated to this lead?", []),
        (
            "Is there a month in the past 10 months where May 2021 stands out?",
            ["month", "past months"],
        ),
    ],
)
def test_period_kinds(query: str, kinds: list[str]) -> None:
    assert period_kinds(query) == kinds


def test_stats_of_the_real_sample_rows(sample_rows_path: Path, capsys) -> None:
    assert main(["tasks", "stats", "--tasks", str(sample_rows_path), "--format", "json"]) == 0
    rows = {r["task"]: r for r in json.loads(capsys.readouterr().out)}
    assert len(rows) == 22 and {r["count"] for r in rows.values()} == {2}
    assert list(rows)[0] == "handle_time"  # catalogue order
    assert rows["activity_priority"]["multi_share"] == 1.0
    assert rows["activity_priority"]["mean_answer_chars"] == 88.0  # 4 and 5 Ids joined by ", "
    assert rows["best_region_identification"]["none_share"] == 0.5
    assert rows["best_region_identification"]["mean_answer_chars"] == 2.0  # "OR"
    assert rows["policy_violation_identification"]["none_share"] == 1.0
    assert rows["case_routing"]["mean_query_chars"] == 583.5
    assert rows["sales_cycle_understanding"]["periods"] == {"season": 2}
    assert rows["best_region_identification"]["periods"] == {"month": 1, "past weeks": 1}
    assert rows["lead_routing"]["periods"] == {}


def test_stats_table_filters_and_totals(sample_rows_path: Path, capsys) -> None:
    assert main(["tasks", "stats", "--tasks", str(sample_rows_path), "--mode", "single"]) == 0
    out = capsys.readouterr().out
    assert "44 tasks" in out and "knowledge_qa" in out and "all" in out and "34%" in out
    assert main(["tasks", "stats", "--tasks", str(sample_rows_path), "--mode", "interactive"]) == 0
    assert "0 tasks" in capsys.readouterr().out
    assert main(["tasks", "stats", "--tasks", str(sample_rows_path), "--org-type", "b2c"]) == 0
    assert "0 tasks" in capsys.readouterr().out


def test_stats_of_a_missing_file_is_a_clear_error(tmp_path: Path, capsys) -> None:
    assert main(["tasks", "stats", "--tasks", str(tmp_path / "none.json")]) == 1
    assert "no such task file" in capsys.readouterr().err


def test_stats_while_blind_read_no_gold_and_no_chat_request(
    sample_rows_path: Path, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = json.loads(sample_rows_path.read_text())
    routing = [r for r in rows if r["task"] == "case_routing"]
    chat = {**routing[0], "idx": 9001, "query": "x" * 5000, "interactive": True}
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps([*rows, chat]))
    argv = ["tasks", "stats", "--tasks", str(path)]
    monkeypatch.setenv("CRMARENA_TUI_BLIND", "1")
    assert main([*argv, "--format", "json"]) == 0
    shapes = {r["task"]: r for r in json.loads(capsys.readouterr().out)}
    assert all(
        k not in r
        for r in shapes.values()
        for k in ("none_share", "multi_share", "mean_answer_chars")
    )
    routed = shapes["case_routing"]  # the chat task counted, its request not read
    assert (routed["count"], routed["requests_read"], routed["mean_query_chars"]) == (3, 2, 583.5)
    assert main(argv) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if "periods" in line)
    assert "None" not in header and "multi" not in header and "answer" not in header
    assert "blind setting is on" in out
    monkeypatch.setenv("CRMARENA_TUI_BLIND", "0")  # off: the answers' figures are back
    assert main([*argv, "--format", "json"]) == 0
    shapes = {r["task"]: r for r in json.loads(capsys.readouterr().out)}
    assert shapes["best_region_identification"]["none_share"] == 0.5
    assert shapes["case_routing"]["mean_query_chars"] == round((2 * 583.5 + 5000) / 3, 1)
