"""Record browser (objects -> records -> record, following Ids), chat in interactive tasks,
the participant's name asked once."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Input, OptionList, TabbedContent

from crmarena_tui.app.app import CrmArenaApp, PlayOptions
from crmarena_tui.screens.name_dialog import NameDialog
from crmarena_tui.screens.task_browser import TaskBrowser
from crmarena_tui.settings import locations
from crmarena_tui.widgets.chat_pane import ChatPane
from crmarena_tui.widgets.record_browser import RecordBrowser
from crmarena_tui.widgets.record_view import RecordView
from crmarena_tui.widgets.results_table import ResultsTable
from tests.screens.test_app_workspace import fake_app, run
from tests.support.app_support import (
    SAMPLE,
    SIZE,
    FakeOrg,
    open_task,
    screen_text,
    wait_for_workers,
)


async def test_record_browser_objects_records_record_and_back(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await pilot.press("ctrl+b")
        objects = app.screen.query_one("#rb-objects", OptionList)
        assert app.screen.focused is objects
        objects.highlighted = list(app.screen.schema.objects).index("Account")
        await pilot.press("enter")
        await wait_for_workers(pilot, app)
        table = app.screen.query_one("#rb-table", ResultsTable)
        assert table.row_count == 1 and "Acme" in screen_text(app)
        assert app.screen.focused is table
        await pilot.press("enter")  # the cursor is on the Id cell
        await wait_for_workers(pilot, app)
        text = screen_text(app)
        assert "Account 001000000000001AAA" in text and "Cases (3)" in text
        # options: Id, Name, ShippingState, "── Cases (3)" (skipped), then one per case
        view = app.screen.query_one("#rb-record", RecordView)
        assert app.screen.focused is view and not table.display
        await pilot.press("down", "down", "down")
        assert view.targets[view.highlighted] == "500000000000000AAA"
        await pilot.press("enter")  # enter on a related-list row opens it
        await wait_for_workers(pilot, app)
        assert "Case 500000000000000AAA" in screen_text(app)
        await pilot.press("backspace")
        await wait_for_workers(pilot, app)
        assert "Account 001000000000001AAA" in screen_text(app)
        kinds = [e.payload.get("kind") for e in app.screen.episode.events if e.kind == "system"]
        assert kinds.count("record") == 3 and "page" in kinds  # browsing is in the session log

        # an Id in the query results opens its record in the browser
        await run(pilot, app, "SELECT Id, Name FROM Account")
        assert app.screen.query_one("#ws-tabs", TabbedContent).active == "tab-results"
        app.screen.query_one("#result-table", ResultsTable).focus()
        await pilot.press("enter")
        await wait_for_workers(pilot, app)
        assert app.screen.query_one("#ws-tabs", TabbedContent).active == "tab-records"
        browser = app.screen.query_one("#records", RecordBrowser)
        assert browser.current is not None and browser.current.record_id == "001000000000001AAA"


async def test_chat_the_user_speaks_first_and_replies(tmp_path: Path) -> None:
    rows = json.loads(SAMPLE.read_text())
    path = tmp_path / "b2b_interactive.json"  # the file name marks the tasks interactive
    path.write_text(json.dumps(rows))
    org = FakeOrg()
    app = CrmArenaApp(
        PlayOptions(tasks=str(path), participant="ann", db=tmp_path / "s.db"),
        org_factory=lambda org_type: org,
    )
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "named entity")
        task = app.screen.task_row
        assert task.interactive
        chat = app.screen.query_one("#chat", ChatPane)
        first_sentence = task.query.split(". ")[0]
        assert chat.messages and chat.messages[0].startswith("Customer: Hi!")
        panel = screen_text(app)
        assert first_sentence[:30] not in panel.split("Customer:")[0]  # hidden query not shown
        await pilot.press("ctrl+t")
        assert app.screen.focused is chat.input
        chat.input.value = "Which product do you mean?"
        await pilot.press("enter")
        await wait_for_workers(pilot, app)
        assert chat.messages[1] == "You: Which product do you mean?"
        assert chat.messages[2].startswith("Customer: ") and len(chat.messages) == 3
        said = [(e.actor, e.text) for e in app.screen.episode.events if e.kind == "message"]
        assert said[1] == ("human", "Which product do you mean?")


async def test_the_name_is_asked_once_and_remembered(tmp_path: Path) -> None:
    app = CrmArenaApp(PlayOptions(tasks=str(SAMPLE), db=tmp_path / "s.db"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, NameDialog)
        assert isinstance(app.screen.focused, Input)
        await pilot.press(*"Bea Expert", "enter")
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, TaskBrowser)
        assert "as Bea Expert" in screen_text(app)
    assert 'participant = "Bea Expert"' in locations.config_file().read_text()
    again = CrmArenaApp(PlayOptions(tasks=str(SAMPLE), db=tmp_path / "s.db"))
    async with again.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, again)
        assert isinstance(again.screen, TaskBrowser) and again.participant.name == "Bea Expert"
