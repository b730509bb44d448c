"""Reading everything (cells and rows in full, the record view wrapped, JSON wrapped) and
computing inside the app (the scratch pane: expressions, SQL over r1, r2, ..., copy, save, the
`compute` events and their steps in the trajectory viewer)."""

from __future__ import annotations

import csv
from pathlib import Path

from textual.widgets import Input, OptionList, TabbedContent, TextArea

from crmarena_tui.screens.save_dialog import SaveDialog
from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer
from crmarena_tui.storage import Store
from crmarena_tui.widgets.record_view import RecordView
from crmarena_tui.widgets.results_table import ResultsTable
from crmarena_tui.widgets.scratch_pane import ScratchPane
from crmarena_tui.widgets.text_detail import TextDetail
from tests.screens.test_app_workspace import fake_app, run
from tests.support.app_support import SIZE, FakeOrg, open_task, screen_text, wait_for_workers

WORDS = "The customer explained that the widget stopped after the firmware update. "
LONG = (WORDS * 21).strip() + " THE-END-OF-THE-TRANSCRIPT"  # about 1,500 characters


def long_text_org() -> FakeOrg:
    org = FakeOrg(n_cases=1)
    case = org.data["Case"][0]
    case["Description"] = LONG
    case["OwnerId"] = "005000000000001AAA"
    case["CreatedDate"] = "2024-03-01T10:00:00.000+0000"
    case["ClosedDate"] = "2024-03-03T22:00:00.000+0000"
    org.data["Case"].append(
        {
            "Id": "500000000000009AAA",
            "Subject": "Second",
            "Status": "Closed",
            "AccountId": "001000000000001AAA",
            "OwnerId": "005000000000001AAA",
            "CreatedDate": "2024-03-05T00:00:00.000+0000",
            "ClosedDate": "2024-03-05T12:00:00.000+0000",
        }
    )
    return org


async def test_enter_on_a_text_cell_and_v_on_a_row_show_them_in_full(tmp_path: Path) -> None:
    app = fake_app(tmp_path, long_text_org())
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await run(pilot, app, "SELECT Id, Subject, Description FROM Case")
        table = app.screen.query_one("#result-table", ResultsTable)
        assert "THE-END-OF-THE-TRANSCRIPT" not in screen_text(app)  # cut at the cell edge
        table.focus()
        table.move_cursor(row=0, column=table.columns_shown.index("Description"))
        await pilot.press("enter")
        assert isinstance(app.screen, TextDetail)
        assert app.screen.title_text == "Description (row 1)"
        await pilot.press("end")  # scroll with the keyboard to the end of the text
        await pilot.pause()
        assert "THE-END-OF-THE-TRANSCRIPT" in screen_text(app)
        await pilot.press("c")
        assert app.clipboard == LONG
        await pilot.press("escape")
        assert app.screen.query_one("#result-table") is table

        table.move_cursor(row=0, column=0)
        await pilot.press("v")
        assert isinstance(app.screen, TextDetail)
        body = app.screen.body
        assert "Id: 500000000000000AAA" in body and "Subject: Broken widget 0" in body
        assert f"Description:\n{LONG}" in body
        await pilot.press("escape")
        # enter on an Id cell still opens the record
        await pilot.press("enter")
        await wait_for_workers(pilot, app)
        assert app.screen.query_one("#ws-tabs", TabbedContent).active == "tab-records"


async def test_the_record_view_wraps_every_field_and_json_wraps(tmp_path: Path) -> None:
    app = fake_app(tmp_path, long_text_org())
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await run(pilot, app, "SELECT Id, Description FROM Case")
        await pilot.press("ctrl+j")
        area = app.screen.query_one("#result-json", TextArea)
        assert area.soft_wrap and area.wrap_width < len(LONG)
        await pilot.press("ctrl+j")
        app.screen.query_one("#result-table", ResultsTable).focus()
        await pilot.press("enter")  # the Id cell opens the record
        await wait_for_workers(pilot, app)
        view = app.screen.query_one("#rb-record", RecordView)
        assert app.screen.focused is view
        text = screen_text(app)
        assert "Description: The customer explained" in text
        assert "[/]" not in text
        await pilot.press("down", "down", "down", "down", "down")  # to the field after it
        assert view.targets[view.highlighted] == "005000000000001AAA"  # OwnerId opens a User
        assert "THE-END-OF-THE-TRANSCRIPT" in screen_text(app)  # the whole field, wrapped


async def test_the_scratch_pane_computes_over_r1_copies_saves_and_logs(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = fake_app(tmp_path, long_text_org())
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await run(pilot, app, "SELECT Id, OwnerId, CreatedDate, ClosedDate FROM Case")
        assert "r1 · 2 records" in screen_text(app)
        await pilot.press("ctrl+o")
        await pilot.pause()
        pane = app.screen.query_one("#scratch", ScratchPane)
        assert app.screen.query_one("#ws-tabs", TabbedContent).active == "tab-scratch"
        assert app.screen.focused is pane.input
        text = screen_text(app)
        assert "r1  2 rows  Id, Subject, Status" in text and "CreatedDate, ClosedDate" in text

        sql = (
            "SELECT OwnerId, AVG(days_between(CreatedDate, ClosedDate)) AS avg_days "
            "FROM r1 GROUP BY OwnerId"
        )
        pane.input.value = sql
        await pilot.press("enter")
        await wait_for_workers(pilot, app)
        out = app.screen.query_one("#scratch-table", ResultsTable)
        assert out.columns_shown == ["OwnerId", "avg_days"]
        assert out.flat_records == [{"OwnerId": "005000000000001AAA", "avg_days": 1.5}]
        assert "1 row × 2 columns" in screen_text(app)
        await pilot.press("f7")
        assert app.clipboard == "OwnerId\tavg_days\n005000000000001AAA\t1.5\n"
        await pilot.press("f8")
        assert app.clipboard.splitlines()[1] == "005000000000001AAA,1.5"
        await pilot.press("f9")
        assert isinstance(app.screen, SaveDialog)
        field = app.screen.query_one("#save-path", Input)
        assert field.value.endswith(".csv")
        field.value = "handle.csv"
        await pilot.press("enter")
        await wait_for_workers(pilot, app)
        with open(tmp_path / "handle.csv", newline="") as f:
            assert list(csv.reader(f)) == [["OwnerId", "avg_days"], ["005000000000001AAA", "1.5"]]

        pane.input.value = 'date("2024-03-05") - date("2024-01-01")'
        await pilot.press("enter")
        await wait_for_workers(pilot, app)
        assert "= 64 days" in screen_text(app)
        pane.input.value = "SELECT * FROM r7"
        await pilot.press("enter")
        await wait_for_workers(pilot, app)
        assert "no such table: r7 (tables: r1)" in screen_text(app)
        await pilot.press("up", "up")
        assert pane.input.value == 'date("2024-03-05") - date("2024-01-01")'

        events = app.screen.episode.events
        computes = [e for e in events if e.kind == "compute"]
        assert [e.text for e in computes] == [sql, pane.inputs[1], "SELECT * FROM r7"]
        assert computes[0].payload["rows"] == [["005000000000001AAA", 1.5]]
        assert computes[1].payload["value"] == "64 days" and "error" in computes[2].payload
        session_id = app.screen.episode.session_id

        # the trajectory viewer shows each computation as a step, with its output
        await pilot.press("escape")
        await wait_for_workers(pilot, app)
        viewer = TrajectoryViewer(session_id=session_id)
        await app.push_screen(viewer)
        await wait_for_workers(pilot, app)
        text = screen_text(app)
        assert "∑ human compute: SELECT OwnerId" in text and "✖ SQL error" in text
        await pilot.press("l")  # step 2: the SQL and its output table
        text = screen_text(app)
        assert "Scratch · SQL" in text and "output 1 rows" in text and "1.5" in text
        await pilot.press("l")
        assert "= 64 days" in screen_text(app)
    stored = Store(tmp_path / "sessions.db").events(session_id)
    assert [e.kind for e in stored].count("compute") == 3


async def test_the_results_list_their_table_names_and_a_resumed_session_keeps_them(
    tmp_path: Path,
) -> None:
    app = fake_app(tmp_path, long_text_org())
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await run(pilot, app, "SELECT Id FROM Case")
        await run(pilot, app, "SELEC oops")
        await run(pilot, app, "SELECT Id, Name FROM Account")
        assert "r3 · 1 record" in screen_text(app)
    again = fake_app(tmp_path, long_text_org())
    async with again.run_test(size=SIZE) as pilot:
        await open_task(pilot, again, "quote approval")
        await pilot.press("ctrl+o")
        await pilot.pause()
        text = screen_text(again)
        assert "r1  2 rows  Id" in text and "r2  no table: MALFORMED_QUERY" in text
        assert "r3  1 rows  Id, Name" in text
        pane = again.screen.query_one("#scratch", ScratchPane)
        pane.input.value = "SELECT COUNT(*) AS n FROM r1, r3"
        await pilot.press("enter")
        await wait_for_workers(pilot, again)
        assert again.screen.query_one("#scratch-table", ResultsTable).flat_records == [{"n": 2}]
        assert isinstance(again.screen.query_one("#rb-objects"), OptionList)
