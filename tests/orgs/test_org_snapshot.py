"""`org snapshot salesforce:<type>` against a fake Salesforce (the `responses` HTTP layer) whose data
is the demo org's: every object described and queried for every field, pages followed, resumable
per object, and the result imported into the same org format (no difference from the demo org)."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
import responses

from crmarena_tui.cli import main
from crmarena_tui.demo.generator import ensure_demo_org
from crmarena_tui.orgs.local import LocalOrg
from crmarena_tui.orgs.snapshot_salesforce import SKIPPED_TYPES
from tests.fakes.salesforce import FakeSalesforce, error_body

SYSTEM = {
    "IsDeleted": False,
    "SystemModstamp": "2024-05-06T07:08:09.000+0000",
    "LastModifiedDate": "2024-05-06T07:08:09.000+0000",
}
SELECT = re.compile(r"^SELECT (.+) FROM (\w+)$")


class LiveDemo:
    """The demo org behind the fake: answers `SELECT <fields> FROM <object>` as Salesforce would,
    system fields included; `broken` objects answer a server error."""

    def __init__(self, fake: FakeSalesforce) -> None:
        self.org = LocalOrg(ensure_demo_org("b2b"))
        self.fake = fake
        self.broken: set[str] = set()
        fake.add_describes(self.org.describe())
        fake.answer_from(self.answer)

    def soql(self, name: str) -> str:
        fields = [f["name"] for f in self.fake.describes[name]["fields"]]
        return f"SELECT {', '.join(fields)} FROM {name}"

    def records(self, soql: str) -> list[dict]:
        fields, name = SELECT.match(soql).groups()  # type: ignore[union-attr]
        wanted = [f for f in fields.split(", ") if f not in SYSTEM]
        result = self.org.query(f"SELECT {', '.join(wanted)} FROM {name}")
        assert result.ok, result.error
        return [{**r, **SYSTEM} for r in result.records]

    def answer(self, soql: str) -> tuple[int, object]:
        name = SELECT.match(soql).group(2)  # type: ignore[union-attr]
        if name in self.broken:
            return 503, error_body("SERVER_UNAVAILABLE", "the org is under maintenance")
        records = self.records(soql)
        return 200, {"totalSize": len(records), "done": True, "records": records}


@pytest.fixture
def live(monkeypatch: pytest.MonkeyPatch) -> Iterator[LiveDemo]:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        fake = FakeSalesforce(mock)
        for key, value in fake.env().items():
            monkeypatch.setenv(key, value)
        demo = LiveDemo(fake)
        yield demo
        demo.org.close()


def objects_queried(fake: FakeSalesforce) -> list[str]:
    return [SELECT.match(q).group(2) for q in fake.queries_seen]  # type: ignore[union-attr]


def test_a_live_org_is_frozen_into_the_org_format(
    live: LiveDemo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task_soql = live.soql("Task")
    live.fake.add_query(task_soql, live.records(task_soql), page_size=1000)  # 6 pages
    out = tmp_path / "b2b-frozen.db"
    code = main(["org", "snapshot", "salesforce:b2b", "--out", str(out), "--today", "2025-11-03"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "[27/27] UserTerritory2Association: 184 records" in captured.err
    tasks = live.org.query("SELECT COUNT() FROM Task").total_size  # the demo org's, served live
    assert f"Task: {tasks:,} records" in captured.err
    assert "Imported salesforce:b2b (b2b)" in captured.out
    assert sum("/query/01gFAKE" in line for line in live.fake.log) == 5
    assert not out.with_name(out.name + ".partial").exists()
    with LocalOrg(out) as org:
        assert org.meta["kind"] == "salesforce-snapshot" and org.meta["source"] == "salesforce:b2b"
        assert org.query("SELECT COUNT() FROM Task").total_size == tasks
        flags = org.query("SELECT IsDeleted, SystemModstamp FROM Case LIMIT 1").records[0]
        assert (flags["IsDeleted"], flags["SystemModstamp"]) == (False, SYSTEM["SystemModstamp"])
        assert org.describe().objects["Case"].field("IsDeleted").type == "boolean"
        first = org.query("SELECT CaseNumber FROM Case ORDER BY CaseNumber LIMIT 1").records[0]
        assert first["CaseNumber"] == "00001001"  # text of digits stays text, zeros and all
    assert main(["org", "verify", "demo:b2b", str(out), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["differences"] == 0


def test_a_failed_snapshot_resumes_with_the_next_object(
    live: LiveDemo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "frozen.db"
    live.broken.add("Case")
    assert main(["org", "snapshot", "salesforce:b2b", "--out", str(out), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "stopped at Case (SERVER_UNAVAILABLE: the org is under maintenance)" in err
    assert "9 of 27 objects are written" in err and "run the same command again" in err
    assert "Traceback" not in err and not out.exists()
    staging = out.with_name(out.name + ".partial")
    conn = sqlite3.connect(staging)
    written = [r[0] for r in conn.execute("SELECT name FROM _snapshot_objects ORDER BY rowid")]
    conn.close()
    assert written[:2] == ["User", "Account"] and len(written) == 9
    first_run = objects_queried(live.fake)
    assert first_run[-1] == "Case"

    live.broken.clear()
    assert main(["org", "snapshot", "salesforce:b2b", "--out", str(out), "--quiet"]) == 0
    second_run = objects_queried(live.fake)[len(first_run) :]
    assert second_run[0] == "Case" and not set(second_run) & set(written)
    with LocalOrg(out) as org:
        assert org.query("SELECT COUNT() FROM Case").total_size == 153
        assert org.query("SELECT COUNT() FROM User").total_size == 212


def test_snapshot_needs_a_live_org_and_its_credentials(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["org", "snapshot", "upstream:b2b", "--out", str(tmp_path / "x.db")]) == 2
    assert "takes a live org" in capsys.readouterr().err
    assert main(["org", "snapshot", "salesforce:b2c", "--out", str(tmp_path / "x.db")]) == 1
    err = capsys.readouterr().err
    assert "MISSING_CREDENTIALS" in err and "SALESFORCE_B2C_USERNAME" in err
    assert "Traceback" not in err


def test_compound_and_binary_fields_are_left_out() -> None:
    assert {"address", "location", "base64"} <= SKIPPED_TYPES
