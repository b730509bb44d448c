"""The scratch pane's core: expressions (simpleeval), SQL over the session's result sets, the
Salesforce date helpers, and the `compute` events an Episode logs."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from crmarena_tui.scratch import sf_dates
from crmarena_tui.scratch.expression_evaluator import ExpressionEvaluator
from crmarena_tui.scratch.scratch import Scratch, is_sql
from crmarena_tui.session.episode import Episode, EpisodeError
from crmarena_tui.storage import Store
from crmarena_tui.storage.models import SessionSpec
from crmarena_tui.tasks.loaders import load_tasks
from tests.support.app_support import SAMPLE, FakeOrg

HANDLE = [  # (owner, created, closed): owner A's cases take 1 and 3 days, B's 0.5 days
    ("005A", "2024-03-01T10:00:00.000+0000", "2024-03-02T10:00:00.000+0000"),
    ("005A", "2024-03-01T00:00:00.000+0000", "2024-03-04T00:00:00.000+0000"),
    ("005B", "2024-03-05T08:00:00.000+0000", "2024-03-05T20:00:00.000+0000"),
]


def case_org() -> FakeOrg:
    org = FakeOrg()
    org.data["Case"] = [
        {
            "Id": f"500000000000{i:03d}AAA",
            "OwnerId": owner,
            "CreatedDate": created,
            "ClosedDate": closed,
            "Owner": {"attributes": {"type": "User"}, "Name": f"Agent {owner[-1]}"},
        }
        for i, (owner, created, closed) in enumerate(HANDLE)
    ]
    return org


def episode(tmp_path: Path, org: FakeOrg | None = None) -> Episode:
    task = next(t for t in load_tasks(str(SAMPLE)) if t.idx == 883)  # handle_time
    store = Store(tmp_path / "s.db")
    return Episode.start(
        store, SessionSpec(task, org or case_org(), store.participant("human", "ann"))
    )  # type: ignore[arg-type]


def test_salesforce_dates_in_every_spelling() -> None:
    a, b = "2024-03-01T10:00:00.000+0000", "2024-03-02T22:00:00Z"
    assert sf_dates.days_between(a, b) == 1.5
    assert sf_dates.hours_between(a, "2024-03-01T12:30:00.000+02:00") == 0.5
    assert sf_dates.days_between("2024-03-01", "2024-03-31") == 30.0
    assert sf_dates.days_between("2024-03-01 10:00:00", b) == 1.5
    assert sf_dates.days_between("not a date", b) is None and sf_dates.parse(None) is None
    assert sf_dates.sf_datetime("2024-03-01T23:30:00.000-0100") == "2024-03-02 00:30:00"
    assert sf_dates.sf_date(a) == "2024-03-01" and sf_dates.sf_month(a) == "2024-03"


def test_expressions_compute_arithmetic_and_date_differences() -> None:
    ev = ExpressionEvaluator(today=date(2024, 6, 1))
    assert ev.evaluate("(3 + 4) * 2 / 7").value == "2"
    assert ev.evaluate("mean([1, 2, 4])").value == "2.333333"
    assert ev.evaluate("median(1, 5, 2)").value == "2"
    assert ev.evaluate('date("2024-03-05") - date("2024-01-01")').value == "64 days"
    assert ev.evaluate('today - date("2024-05-30")').value == "2 days"
    assert ev.evaluate('days_between("2024-03-01T10:00:00.000+0000", "2024-03-02")').value == (
        "0.583333"
    )
    assert ev.evaluate("round(10 / 3, 2)").value == "3.33"


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os').system('true')",
        "().__class__.__bases__",
        "open('/etc/passwd')",
        "eval('1')",
        "9 ** 9 ** 9",
        "1 +",
        'date("yesterday")',
    ],
)
def test_expressions_refuse_anything_but_expressions(text: str) -> None:
    out = ExpressionEvaluator().evaluate(text)
    assert not out.ok and out.error and out.value == ""


def test_sql_runs_over_the_result_sets_as_r1_r2(tmp_path: Path) -> None:
    ep = episode(tmp_path)
    ep.execute("SELECT Id, OwnerId, Owner.Name, CreatedDate, ClosedDate FROM Case")
    ep.execute("SELEC nonsense")  # r2 failed: no table
    ep.execute("SELECT Id, Name FROM Account")
    out = ep.compute(
        "SELECT OwnerId, Owner_Name, AVG(days_between(CreatedDate, ClosedDate)) AS days "
        "FROM r1 GROUP BY OwnerId ORDER BY OwnerId"
    )
    assert out.ok, out.error
    assert out.columns == ["OwnerId", "Owner_Name", "days"]
    assert out.rows == [("005A", "Agent A", 2.0), ("005B", "Agent B", 0.5)]
    joined = ep.compute("SELECT COUNT(*) FROM r1, r3")
    assert joined.rows == [(3,)]
    missing = ep.compute("SELECT * FROM r2")
    assert missing.error and "r2 failed" in missing.error and "r1, r3" in missing.error
    assert ep.compute("SELECT median(hours_between(CreatedDate, ClosedDate)) FROM r1").rows == [
        (24.0,)
    ]
    assert (
        out.as_delimited() == "OwnerId\tOwner_Name\tdays\n005A\tAgent A\t2.0\n005B\tAgent B\t0.5\n"
    )
    assert out.as_delimited(",").splitlines()[1] == "005A,Agent A,2.0"


def test_only_reading_statements_run_and_a_runaway_one_is_stopped(tmp_path: Path) -> None:
    ep = episode(tmp_path)
    ep.execute("SELECT Id FROM Case")
    for statement in (
        "SELECT 1; DROP TABLE r1",
        "WITH x AS (SELECT 1) DELETE FROM r1",
        "SELECT * FROM r1 WHERE 1 = (SELECT 1 FROM pragma_table_info('r1'))",
    ):
        assert not ep.compute(statement).ok
    assert ep.compute("SELECT COUNT(*) FROM r1").rows == [(3,)]  # the table is intact
    attach = Scratch().tables.run(f"ATTACH '{tmp_path / 'x.db'}' AS x")
    assert attach.error and attach.error.startswith("NOT_ALLOWED")
    assert not (tmp_path / "x.db").exists()
    runaway = Scratch(timeout=0.2).tables.run(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT MAX(i) FROM n"
    )
    assert runaway.error and runaway.error.startswith("TIMEOUT")


def test_every_computation_is_a_compute_event_and_survives_a_reopen(tmp_path: Path) -> None:
    org = case_org()
    ep = episode(tmp_path, org)
    ep.execute("SELECT Id, CreatedDate, ClosedDate FROM Case")
    ep.compute("2 + 2")
    ep.compute("SELECT SUM(days_between(CreatedDate, ClosedDate)) AS total FROM r1")
    ep.compute("nope(")
    computes = [e for e in ep.events if e.kind == "compute"]
    assert [e.actor for e in computes] == ["human"] * 3
    assert computes[0].payload["value"] == "4" and computes[0].text == "2 + 2"
    assert computes[1].payload["columns"] == ["total"] and computes[1].payload["rows"] == [[4.5]]
    assert computes[1].payload["row_count"] == 1
    assert "error" in computes[2].payload

    again = Episode.open(ep.store, ep.session_id, org)  # type: ignore[arg-type]
    assert again.compute("SELECT COUNT(*) FROM r1").rows == [(3,)]  # r1 rebuilt from the log
    assert is_sql("  with x as (select 1) select * from x") and not is_sql("selection + 1")
    again.submit("005A")
    with pytest.raises(EpisodeError):
        again.compute("1 + 1")
    stored = json.loads(json.dumps(computes[1].payload))
    assert stored == computes[1].payload  # the payload is plain JSON
