"""Values an import left as stored are named wherever they matter: in `org info`, and in a warning
on a session's first query that filters, groups or sorts on a field holding them, shown to the
human (a notification) and to a workbench agent (a line after the records), recorded as an event
under `upstream` without touching what the model sees (issue 25, part 6)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.orgs.local import LocalOrg
from crmarena_tui.orgs.observation_text import observation_text
from crmarena_tui.orgs.snapshot_import import import_snapshot
from crmarena_tui.orgs.unconverted import WARNING_PREFIX
from crmarena_tui.scratch.result_tables import result_sets
from crmarena_tui.session.episode import Episode
from crmarena_tui.storage import Store
from crmarena_tui.storage.models import SessionSpec
from tests.support.agents_llm_support import make_task

FILTERED = "SELECT Id FROM Case WHERE CreatedDate != null"
DROPPED = "SELECT Id FROM Case WHERE CreatedDate > 2021-01-01T00:00:00Z"
LEANING = [
    FILTERED,
    DROPPED,
    "SELECT CALENDAR_MONTH(CreatedDate), COUNT(Id) FROM Case GROUP BY CALENDAR_MONTH(CreatedDate)",
    "SELECT Id, Subject FROM Case ORDER BY CreatedDate DESC",
    "SELECT Id FROM User WHERE Id IN (SELECT OwnerId FROM Case WHERE CreatedDate > 2021-01-01T00:00:00Z)",
    "SELECT Name, (SELECT Id FROM Cases ORDER BY CreatedDate) FROM Account",
]
NOT_LEANING = [
    "SELECT Id, Subject, CreatedDate, Owner.Name FROM Case",
    "SELECT Id FROM Case WHERE Subject LIKE 'Hinge%' ORDER BY Id",
    "SELECT Name FROM User ORDER BY Name",
]


@pytest.fixture(scope="module")
def org_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small b2b snapshot: User without Name, Case.CreatedDate written MM/DD or DD/MM with
    every day at 12 or below (ambiguous), imported."""
    folder = tmp_path_factory.mktemp("unconverted")
    snap = folder / "crmarenapro_b2b_data.db"
    conn = sqlite3.connect(snap)
    with conn:
        conn.execute('CREATE TABLE "User" (Id, FirstName, LastName)')
        conn.executemany(
            'INSERT INTO "User" VALUES (?, ?, ?)',
            [("005000000000001AAA", "Ana", "Ruiz"), ("005000000000002AAA", "", "Ng")],
        )
        conn.execute('CREATE TABLE "Account" (Id, Name)')
        conn.execute('INSERT INTO "Account" VALUES (?, ?)', ("001000000000001AAA", "Acme"))
        conn.execute('CREATE TABLE "Case" (Id, Subject, CreatedDate, OwnerId, AccountId)')
        conn.executemany(
            'INSERT INTO "Case" VALUES (?, ?, ?, ?, ?)',
            [
                (
                    f"500000000000{i:03d}AAA",
                    f"Hinge {i}",
                    f"0{i}/0{i + 1}/2021 10:0{i} AM",
                    owner,
                    acc,
                )
                for i, owner, acc in [
                    (1, "005000000000001AAA", "001000000000001AAA"),
                    (2, "005000000000002AAA", "001000000000001AAA"),
                    (3, "005000000000002AAA", None),
                ]
            ],
        )
    conn.close()
    out = folder / "org.db"
    report = import_snapshot(snap, out)
    assert [p.field for p in report.object("Case").problems] == ["CreatedDate"]
    return out


def test_a_query_leaning_on_unconverted_values_carries_a_warning(org_file: Path) -> None:
    with LocalOrg(org_file) as org:
        owners = org.query("SELECT Id, Owner.Name FROM Case ORDER BY Id")
        assert [r["Owner"]["Name"] for r in owners.records] == ["Ana Ruiz", "Ng", "Ng"]
        for soql in LEANING:
            result = org.query(soql)
            assert result.ok, (soql, result.error)
            assert result.warning and result.warning.startswith(WARNING_PREFIX), soql
            assert "Case.CreatedDate holds 3 datetime values" in result.warning
        for soql in NOT_LEANING:
            result = org.query(soql)
            assert result.ok and result.warning is None, soql
        found = org.search(
            "FIND {Hinge} RETURNING Case(Id WHERE CreatedDate > 2021-01-01T00:00:00Z)"
        )
        assert found.ok and found.warning and "Case.CreatedDate" in found.warning
        assert org.search("FIND {Hinge} RETURNING Case(Id, Subject)").warning is None
        assert org.query(DROPPED).total_size == 0  # why it warns: 2021 values drop out
        months = org.query(LEANING[2]).records
        assert [(r["expr0"], r["expr1"]) for r in months] == [(0, 3)]  # why it warns: month 0


def test_the_query_command_prints_the_warning_on_stderr(
    org_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["query", "--org", str(org_file), "--format", "json", FILTERED]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["totalSize"] == 3 and err.startswith(WARNING_PREFIX)
    assert main(["query", "--org", str(org_file), NOT_LEANING[0]]) == 0
    assert capsys.readouterr().err == ""


def test_org_info_lists_the_unconverted_fields_and_the_composed_names(
    org_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["org", "info", str(org_file)]) == 0
    text = capsys.readouterr().out
    assert "not converted: Case.CreatedDate (datetime): 3 value(s) kept as stored" in text
    assert "ambiguous, every value fits both DD/MM and MM/DD" in text
    assert "composed (Salesforce computes them; the snapshot has no such column): User.Name" in text
    assert main(["org", "info", str(org_file), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)["import"]
    (field,) = data["unconverted"]
    assert (field["object"], field["field"], field["count"]) == ("Case", "CreatedDate", 3)
    assert field["examples"][0] == "01/02/2021 10:01 AM" and "ambiguous" in field["reason"]
    assert data["composed"] == ["User.Name"]


def test_a_session_is_warned_once_and_the_log_keeps_it(org_file: Path, tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store, LocalOrg(org_file) as org:
        me = store.participant("human", "ann")
        episode = Episode.start(store, SessionSpec(make_task(), org, me))
        assert episode.execute(NOT_LEANING[0]).warning is None
        first = episode.execute(FILTERED)
        assert first.ok and first.warning and "Case.CreatedDate" in first.warning
        assert episode.execute(LEANING[3]).warning is None  # once per session
        warned = [e for e in episode.events if e.kind == "system"]
        assert [e.payload["event"] for e in warned] == ["data_warning"]
        assert warned[0].payload["text"] == first.warning
        sets = result_sets(episode.events)
        assert [len(s.records or []) for s in sets] == [3, 3, 3]  # the warning is not data
        again = Episode.open(store, episode.session_id, org)
        assert again.execute(FILTERED).warning is None


@pytest.mark.parametrize("protocol", ["upstream", "workbench"])
def test_an_agent_sees_the_warning_only_where_the_protocol_allows(
    org_file: Path, tmp_path: Path, protocol: str
) -> None:
    with Store(tmp_path / "s.db") as store, LocalOrg(org_file) as org:
        me = store.participant("agent", "bot")
        episode = Episode.start(store, SessionSpec(make_task(), org, me, protocol=protocol))  # type: ignore[arg-type]
        result = episode.execute(FILTERED, actor="agent")
        shown = observation_text(result, protocol)
        stored = next(e for e in episode.events if e.kind == "observation").text
        assert stored == shown
        assert any(e.payload.get("event") == "data_warning" for e in episode.events)
        if protocol == "upstream":
            assert WARNING_PREFIX not in shown and shown.startswith("[{'Id': '500")
        else:
            records, warning = shown.split("\n")
            assert json.loads(records)[0]["Id"].startswith("500") and warning == result.warning
