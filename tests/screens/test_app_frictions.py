"""The workspace's small frictions, each fixed: record browser navigation and focus, all fields on
a page, the error caret on long lines, long errors, the header's brackets, the org-ready notice,
ctrl+a and ctrl+k in the editor, the completion bar after a run, tab to the results."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Label, OptionList, Static

from crmarena_tui.orgs.base import QueryResult
from crmarena_tui.orgs.soql.errors import SoqlError
from crmarena_tui.screens import task_browser
from crmarena_tui.screens.task_browser import TaskBrowser
from crmarena_tui.widgets.query_editor import QueryEditor
from crmarena_tui.widgets.results_table import ResultsTable
from crmarena_tui.widgets.results_view import error_marker
from tests.screens.test_app_workspace import fake_app, run
from tests.support.app_support import SIZE, FakeOrg, open_task, screen_text, wait_for_workers
from tests.support.pilot_wait_support import wait_until

LONG_ERROR = "INVALID_FIELD: " + "No such column 'Nope' on entity 'Case'. " * 6 + "LAST-WORDS"


class PickyOrg(FakeOrg):
    """Fails any query naming BADWORD, at its position, with a long message."""

    def query(self, soql: str, *, today=None):
        if "BADWORD" in soql:
            return QueryResult(error=LONG_ERROR, error_offset=soql.index("BADWORD"))
        return super().query(soql, today=today)


async def open_page(pilot, app, object_name: str) -> None:
    await pilot.press("ctrl+b")
    objects = app.screen.query_one("#rb-objects", OptionList)
    objects.highlighted = list(app.screen.schema.objects).index(object_name)
    await pilot.press("enter")
    await wait_for_workers(pilot, app)


async def test_backspace_on_a_page_goes_to_the_objects_and_focus_shows(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        objects = app.screen.query_one("#rb-objects", OptionList)
        await open_page(pilot, app, "Case")
        table = app.screen.query_one("#rb-table", ResultsTable)
        assert app.screen.focused is table
        text = screen_text(app)
        assert "Case records 1–3" in text and "[/]" not in text and "] next page" in text
        focused_edge = table.styles.border_left[1]
        unfocused_edge = objects.styles.border_right[1]
        assert focused_edge != unfocused_edge  # the focused pane is marked
        await pilot.press("backspace")
        await wait_for_workers(pilot, app)
        assert app.screen.focused is objects
        assert objects.styles.border_right[1] == focused_edge
        assert "Pick an object" in screen_text(app)


async def test_a_page_can_show_every_field(tmp_path: Path) -> None:
    org = FakeOrg()
    app = fake_app(tmp_path, org)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await open_page(pilot, app, "Case")
        few = org.queries[-1]
        await pilot.press("a")
        await wait_for_workers(pilot, app)
        every = org.queries[-1]
        fields = [f.name for f in app.screen.schema.object("Case").fields]
        assert few.count(",") == 5 and every.count(",") == len(fields) - 1
        assert "all fields" in screen_text(app)


def test_the_caret_stays_under_its_character_on_a_long_line() -> None:
    query = "SELECT " + ", ".join(f"Field{i}" for i in range(40)) + " FROM Case WHERE BADWORD = 1"
    at = query.index("BADWORD")
    marker = error_marker(query, at, width=60)
    shown, caret, tail = marker.split("\n")
    assert tail == f"ERROR at Row:1:Column:{at + 1}"
    assert len(shown) <= 60 and shown.startswith("…")
    assert shown[caret.index("^") :].startswith("BADWORD")
    short = error_marker("SELEC Id", 0, width=60).split("\n")
    assert short == ["SELEC Id", "^", "ERROR at Row:1:Column:1"]


async def test_a_long_query_error_keeps_its_caret_and_the_whole_message(tmp_path: Path) -> None:
    app = fake_app(tmp_path, PickyOrg())
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        fields = ", ".join(f"Subject{i}" for i in range(30))
        await run(pilot, app, f"SELECT {fields} FROM Case WHERE BADWORD = 1")
        text = screen_text(app)
        assert "LAST-WORDS" in text  # the long message wraps instead of being cut
        error = app.screen.query_one("#result-error", Static)
        shown, caret, _ = str(error.content).split("\n")
        assert len(shown) < error.size.width  # one screen line: the caret cannot drift
        assert shown[caret.index("^") :].startswith("BADWORD")
        lines = text.splitlines()
        row = next(i for i, line in enumerate(lines[:-1]) if "^" in lines[i + 1] and "BADW" in line)
        assert lines[row + 1].index("^") == lines[row].index("BADWORD")  # as drawn


class WordingOrg(FakeOrg):
    """Fails as the live org words a placed error: the line, a caret, the row and column."""

    def query(self, soql: str, *, today=None):
        if "Nope" in soql:
            return QueryResult(
                error=SoqlError(
                    "INVALID_FIELD", "No such column 'Nope' on entity 'Case'.", soql.index("Nope")
                ).worded(soql),
                error_offset=soql.index("Nope"),
            )
        return super().query(soql, today=today)


async def test_a_placed_error_shows_its_caret_once_under_the_summary(tmp_path: Path) -> None:
    app = fake_app(tmp_path, WordingOrg())
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await run(pilot, app, "SELECT Id, Nope FROM Case")
        status = str(app.screen.query_one("#result-status", Static).content)
        assert "INVALID_FIELD: No such column 'Nope' on entity 'Case'.[/]" in status
        error = str(app.screen.query_one("#result-error", Static).content)
        assert error == "SELECT Id, Nope FROM Case\n           ^\nERROR at Row:1:Column:12"
        text = screen_text(app)
        assert text.count("ERROR at Row:1:Column:12") == 1  # not twice: status and marker


async def test_the_org_ready_notice_goes_away(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(task_browser, "READY_NOTICE_SECONDS", 0.05)
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        browser = app.screen
        assert isinstance(browser, TaskBrowser)
        browser.show_org_progress("b2c", 1.0, "done")
        label = browser.query_one("#org-status", Label)
        assert label.content == "demo b2c org ready"
        await wait_until(pilot, lambda: label.content == "", "the notice gone")
        assert label.content == ""


async def test_ctrl_a_selects_all_and_ctrl_k_deletes_the_logical_line(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        editor = app.screen.query_one("#editor", QueryEditor)
        long_line = "SELECT " + ", ".join(f"Name{i}" for i in range(40)) + " FROM Account"
        editor.load_text(f"{long_line}\nLIMIT 5")
        editor.focus()
        await pilot.press("ctrl+a")
        assert editor.selected_text == editor.text
        editor.move_cursor((0, 7))
        await pilot.pause()
        assert editor.wrapped_document.height > 2  # the first line wraps on screen
        await pilot.press("ctrl+k")
        assert editor.text == "SELECT \nLIMIT 5"
        await pilot.press("ctrl+k")  # at the end of the line: joins the next
        assert editor.text == "SELECT LIMIT 5"


async def test_the_completion_bar_clears_after_a_run_and_tab_reaches_the_results(
    tmp_path: Path,
) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        editor = app.screen.query_one("#editor", QueryEditor)
        editor.load_text("SELECT Id FROM ")
        editor.move_cursor(editor.document.end)
        await pilot.press(*"Ca")
        await pilot.pause()
        completions = app.screen.query_one("#completions", Static)
        assert "Case" in str(completions.content)
        await pilot.press("tab", *"", "ctrl+r")
        await wait_for_workers(pilot, app)
        assert str(completions.content) == ""
        editor.focus()
        editor.move_cursor(editor.document.end)
        await pilot.press("space")
        await pilot.press("tab")  # no completion: focus moves on, straight to the results
        assert app.screen.focused is app.screen.query_one("#result-table", ResultsTable)
