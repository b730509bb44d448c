"""Reports leave runs that died on an infrastructure error out of success rates, count them
apart, and say when rewards come from more than one grading protocol."""

from __future__ import annotations

import json
from pathlib import Path

from crmarena_tui.cli import main
from crmarena_tui.graders import grade
from crmarena_tui.reports.summary import build_report
from crmarena_tui.storage import Store
from crmarena_tui.storage.upstream import UpstreamImporter
from crmarena_tui.tasks.model import Task
from tests.support.spec_support import session_spec
from tests.support.upstream_results_support import failed_item, react_item, write

RUN = "results_gpt-4o_react_case_routing_interactive-False.json"


def _seed(tmp_path: Path) -> Path:
    """One win, one run killed by a rate limit, one evaluation crash (an ordinary failure)."""
    items = [
        react_item(1483),
        failed_item(1487, "litellm.RateLimitError: Rate limit reached for gpt-4o"),
        failed_item(1491, "list index out of range"),
    ]
    write(tmp_path, f"runs/{RUN}", items)
    db = tmp_path / "s.db"
    with Store(db) as store:
        UpstreamImporter(store).import_paths([tmp_path / "runs"])
    return db


def test_infrastructure_errors_are_left_out_by_default_and_counted_apart(tmp_path: Path) -> None:
    with Store(_seed(tmp_path)) as store:
        report = build_report(store)
        counted = build_report(store, with_infrastructure_errors=True)
    (row,) = report["overall"]
    assert (row["attempts"], row["wins"], row["success_rate"]) == (2, 1, 0.5)
    assert report["infrastructure_errors"] == {
        "counted_in_success": False,
        "total": 1,
        "by_participant": [{"participant": "gpt-4o/react", "sessions": 1}],
    }
    (row,) = counted["overall"]
    assert (row["attempts"], row["wins"]) == (3, 1)
    assert counted["infrastructure_errors"]["counted_in_success"] is True


def test_the_report_command_says_what_it_left_out(tmp_path: Path, capsys) -> None:
    db = _seed(tmp_path)
    assert main(["report", "--db", str(db)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "1 session(s) ended on an infrastructure error and are left out" in out
    assert (
        main(["report", "--db", str(db), "--format", "json", "--with-infrastructure-errors"]) == 0
    )
    payload = json.loads(capsys.readouterr().out)
    assert payload["overall"][0]["attempts"] == 3
    assert payload["infrastructure_errors"]["counted_in_success"] is True


def test_a_report_mixing_grading_protocols_says_so(tmp_path: Path, capsys) -> None:
    db = _seed(tmp_path)  # imported grades are upstream grades
    task = Task(idx=9, task="case_routing", query="q", answer=["x"], reward_metric="exact_match")
    with Store(db) as store:
        ana = store.participant("human", "ana")
        session = store.create_session(session_spec(ana, task, "demo", "demo:b2b"))
        store.add_grade(session.id, grade(task, "x", protocol="workbench"))
        assert build_report(store)["protocols"] == {"upstream": 2, "workbench": 1}
    assert main(["report", "--db", str(db)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "more than one grading protocol: upstream 2, workbench 1" in out


def test_exports_carry_the_protocol_and_the_infrastructure_error(tmp_path: Path) -> None:
    from crmarena_tui.storage.exporter import export_sessions

    out = tmp_path / "sessions.jsonl"
    with Store(_seed(tmp_path)) as store:
        assert export_sessions(store, "jsonl", out) == 3
    rows = {r["task_idx"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert {r["protocol"] for r in rows.values()} == {"upstream"}
    assert "RateLimitError" in rows[1487]["infrastructure_error"]
    assert rows[1483]["infrastructure_error"] is None and rows[1491]["infrastructure_error"] is None
