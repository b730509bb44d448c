"""`org import` of a snapshot that stores less than Salesforce shows: no `Name` on User, Contact
and Lead (Salesforce composes it), datetimes in locale forms (`DD/MM/YYYY HH:MM:SS a. m.`,
`MM/DD/YYYY HH:MM AM`, epoch milliseconds), text null words. The import derives what it can,
reads each slash column in one order, and names what it left as stored (issue 25, part 6)."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.demo.generator import ensure_demo_org
from crmarena_tui.orgs.local import LocalOrg
from tests.support.snapshot_support import snapshot_of_demo

MONTHS = (
    "SELECT CALENDAR_MONTH(CreatedDate) m, COUNT(Id) n FROM Case "
    "GROUP BY CALENDAR_MONTH(CreatedDate) ORDER BY CALENDAR_MONTH(CreatedDate)"
)


def _spanish(iso: str) -> str:
    moment = datetime.strptime(iso[:19], "%Y-%m-%dT%H:%M:%S")
    meridiem = "a. m." if moment.hour < 12 else "p. m."
    return f"{moment:%d/%m/%Y} {moment.hour % 12 or 12}:{moment:%M:%S} {meridiem}"


def _rewrite(conn: sqlite3.Connection, table: str, column: str, how) -> None:
    rows = conn.execute(f'SELECT rowid, "{column}" FROM "{table}" WHERE "{column}" != \'\'')
    conn.executemany(
        f'UPDATE "{table}" SET "{column}" = ? WHERE rowid = ?',
        [(how(value), rowid) for rowid, value in rows.fetchall()],
    )


def _locale_snapshot(folder: Path) -> Path:
    """The b2b demo org as a dump without Name on User/Contact/Lead and with locale dates."""
    snap = snapshot_of_demo(folder, "b2b")
    conn = sqlite3.connect(snap)
    with conn:
        for table in ("User", "Contact", "Lead"):
            conn.execute(f'ALTER TABLE "{table}" DROP COLUMN "Name"')
        _rewrite(conn, "Case", "CreatedDate", _spanish)
        us = "%m/%d/%Y %I:%M %p"
        _rewrite(conn, "Lead", "CreatedDate", lambda v: f"{datetime.fromisoformat(v[:19]):{us}}")
        ms = lambda v: str(int(datetime.fromisoformat(v[:23] + "+00:00").timestamp() * 1000))  # noqa: E731
        _rewrite(conn, "Opportunity", "CreatedDate", ms)
        # every day at 12 or below: each value fits DD/MM and MM/DD alike
        _rewrite(
            conn,
            "Event",
            "StartDateTime",
            lambda v: f"{v[5:7]}/{min(int(v[8:10]), 12):02d}/{v[:4]} 10:00 AM",
        )
        conn.execute("UPDATE \"Case\" SET ClosedDate = 'None' WHERE rowid <= 3")
        conn.execute("UPDATE \"Opportunity\" SET Amount = 'nan' WHERE rowid <= 2")
        conn.execute("UPDATE \"LiveChatTranscript\" SET ContactId = 'null' WHERE rowid = 1")
    conn.close()
    return snap


def test_names_are_composed_and_locale_datetimes_read_as_salesforce_holds_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snap = _locale_snapshot(tmp_path)
    out = tmp_path / "org.db"
    assert main(["org", "import", str(snap), "--out", str(out), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    objects = {o["name"]: o for o in report["objects"]}
    for name in ("User", "Contact", "Lead"):
        assert "Name" in objects[name]["composed"] and "Name" not in objects[name]["missing_fields"]
    assert "read day first" in objects["Case"]["readings"]["CreatedDate"]
    assert "a. m." in objects["Case"]["readings"]["CreatedDate"]
    assert "read month first" in objects["Lead"]["readings"]["CreatedDate"]
    assert "ambiguous" in objects["Event"]["readings"]["StartDateTime"]
    assert objects["Case"]["nulled"] == {"ClosedDate": 3}
    assert objects["LiveChatTranscript"]["nulled"] == {"ContactId": 1}
    assert objects["Opportunity"]["nulled"] == {"Amount": 2}
    assert report["totals"]["values_nulled"] == 6 and report["totals"]["fields_composed"] == 3
    (event,) = objects["Event"]["problems"]
    assert event["field"] == "StartDateTime" and event["count"] == 54
    assert "ambiguous" in event["reason"] and report["totals"]["values_not_coerced"] == 54

    demo = LocalOrg(ensure_demo_org("b2b"), today=None)
    with LocalOrg(out, today=None) as org, demo:
        owners = "SELECT Id, Owner.Name, Contact.Name FROM Case ORDER BY Id"
        got = org.query(owners)
        assert got.ok, got.error
        assert got.records == demo.query(owners).records
        assert all(r["Owner"]["Name"] for r in got.records)
        months = org.query(MONTHS)
        assert months.ok and months.records == demo.query(MONTHS).records
        assert all(r["m"] not in (0, None) for r in months.records)
        for soql in (
            "SELECT Id, CreatedDate FROM Case ORDER BY Id",
            "SELECT COUNT() FROM Lead WHERE CreatedDate >= 2022-01-01T00:00:00Z",
            "SELECT Id, CreatedDate FROM Opportunity ORDER BY Id",
            "SELECT Name FROM Lead WHERE Name LIKE 'A%' ORDER BY Name",
        ):
            mine, theirs = org.query(soql), demo.query(soql)
            assert mine.ok and (mine.records, mine.total_size) == (
                theirs.records,
                theirs.total_size,
            ), soql
        kept = org.query("SELECT StartDateTime FROM Event LIMIT 1").records[0]["StartDateTime"]
        assert kept.endswith("10:00 AM")  # left as stored, never guessed

    assert main(["org", "import", str(snap), "--out", str(tmp_path / "t.db")]) == 0
    text = capsys.readouterr().out
    for named in (
        "User.Name from FirstName and LastName (first name, a space, last name",
        "Case.CreatedDate: 153 distinct values of the form DD/MM/YYYY HH:MM:SS a. m., read day",
        "Lead.CreatedDate: ",
        "values of the form MM/DD/YYYY HH:MM AM, read month first: a day above 12 comes second",
        "Event.StartDateTime (datetime): 54 value(s), e.g. ",
        "left as stored: ambiguous, every value fits both DD/MM and MM/DD",
        "Case.ClosedDate: 3",
    ):
        assert named in text, named
