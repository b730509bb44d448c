"""The frictions an expert met working 28 demo tasks (issue 29), each as the user meets it: the
chat keeps its input, the scratch input clears and `ctrl+a` selects, `escape` from a pane stays in
the workspace, a resumed session shows its last results and scratch history, the submit dialog's
hint says where `tab` goes, the browser gives the list the focus back."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, SelectionList, Static

from crmarena_tui.screens.leave_dialog import LeaveDialog
from crmarena_tui.screens.result_screen import ResultScreen
from crmarena_tui.screens.submit_dialog import SubmitDialog
from crmarena_tui.screens.task_browser import TaskBrowser
from crmarena_tui.screens.workspace import Workspace
from crmarena_tui.widgets.chat_pane import ChatPane
from crmarena_tui.widgets.query_editor import QueryEditor
from crmarena_tui.widgets.results_table import ResultsTable
from crmarena_tui.widgets.scratch_pane import ScratchPane
from crmarena_tui.widgets.task_list import TaskList
from tests.screens.test_app_answers_chat import chat_app, say
from tests.screens.test_app_workspace import fake_app, run
from tests.support.app_support import (
    SIZE,
    FakeOrg,
    open_task,
    screen_text,
    submit,
    wait_for_workers,
)
from tests.support.pilot_wait_support import wait_until


async def test_the_chat_input_keeps_the_focus_so_the_next_message_is_typed_at_once(
    tmp_path: Path,
) -> None:
    app = chat_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "best region")
        chat = app.screen.query_one("#chat", ChatPane)
        await pilot.press("ctrl+t")
        # questions, so the customer does not end the chat (no pause between the messages)
        await pilot.press("w", "h", "y", "question_mark", "enter", "z", "z", "z")
        await wait_for_workers(pilot, app)
        assert app.screen.focused is chat.input
        assert chat.input.value == "zzz"
        await pilot.press("question_mark", "enter")
        await wait_for_workers(pilot, app)
        said = [m for m in chat.messages if m.startswith("You: ")]
        assert said == ["You: why?", "You: zzz?"]
        assert app.screen.focused is chat.input and chat.input.value == ""


async def test_enter_while_the_reply_is_awaited_queues_the_message(tmp_path: Path) -> None:
    app = chat_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "best region")
        await wait_for_workers(pilot, app)
        chat = app.screen.query_one("#chat", ChatPane)
        # the customer's opening in first (its arrival would end the wait set below)
        await wait_until(
            pilot,
            lambda: any(m.startswith("Customer:") for m in chat.messages) and not chat.waiting,
            "the customer's opening",
        )
        chat.set_waiting(True)  # as while a reply is awaited
        chat.input.value = "second?"
        chat.input.focus()
        await pilot.press("enter")
        # (on a loaded machine the pilot's idle check may return before the key was handed on)
        await wait_until(pilot, lambda: chat.input.value == "", "the enter key handled")
        assert chat.input.value == "" and "You: second?" not in chat.messages
        assert "You (queued, sent after the reply): second?" in chat.messages
        assert "1 queued" in chat.input.placeholder
        chat.set_waiting(False)  # the reply is in: its turn has come
        app.screen.chat_part._send_queued()
        await wait_for_workers(pilot, app)
        assert "You: second?" in chat.messages
        assert not [m for m in chat.messages if "queued" in m]


async def test_the_scratch_input_clears_after_a_run_and_ctrl_a_selects_it(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await pilot.press("ctrl+o")
        await pilot.pause()
        pane = app.screen.query_one("#scratch", ScratchPane)
        await pilot.press(*"2+2", "enter")
        await wait_for_workers(pilot, app)
        assert "= 4" in screen_text(app) and pane.input.value == ""
        await pilot.press(*"3*3", "ctrl+a", *"5+5", "enter")  # ctrl+a: typing replaces it all
        await wait_for_workers(pilot, app)
        assert "= 10" in screen_text(app)
        computes = [e.text for e in app.screen.episode.events if e.kind == "compute"]
        assert computes == ["2+2", "5+5"]
        await pilot.press("up")
        assert pane.input.value == "5+5"


async def test_escape_in_a_pane_returns_to_the_editor_not_the_browser(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        workspace = app.screen
        await pilot.press("ctrl+b")
        await pilot.pause()
        await pilot.press("escape")
        assert app.screen is workspace
        assert isinstance(workspace.focused, QueryEditor)
        await pilot.press("ctrl+o", "escape")
        await pilot.pause()
        assert app.screen is workspace and isinstance(workspace.focused, QueryEditor)
        await pilot.press("escape")  # from the editor: leaving is asked first
        await pilot.pause()
        assert isinstance(app.screen, LeaveDialog)
        await pilot.press("x")  # refused in words, never typed into the task browser
        assert "'x' was not applied" in screen_text(app)
        await pilot.press("escape")  # stays
        await pilot.pause()
        assert app.screen is workspace and isinstance(workspace.focused, QueryEditor)
        await pilot.press("escape", "enter")  # leaves
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, TaskBrowser)


async def test_a_resumed_session_shows_its_last_results_and_scratch_history(
    tmp_path: Path,
) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await run(pilot, app, "SELECT Id, Subject FROM Case")
        await pilot.press("ctrl+o")
        await pilot.pause()
        await pilot.press(*"6*7", "enter")
        await wait_for_workers(pilot, app)
    # the app died without leaving the workspace (as a kill -9 does): reopen the task
    again = fake_app(tmp_path)
    async with again.run_test(size=SIZE) as pilot:
        await open_task(pilot, again, "quote approval")
        table = again.screen.query_one("#result-table", ResultsTable)
        assert [r["Subject"] for r in table.flat_records] == [
            f"Broken widget {i}" for i in range(3)
        ]
        assert "r1 · 3 records" in screen_text(again)
        await pilot.press("ctrl+o")
        await pilot.pause()
        pane = again.screen.query_one("#scratch", ScratchPane)
        assert "= 42" in str(again.screen.query_one("#scratch-status", Static).content)
        assert pane.input.value == ""
        await pilot.press("up")
        assert pane.input.value == "6*7"


async def test_the_submit_dialog_hint_names_where_tab_goes(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await run(pilot, app, "SELECT Id FROM Case")
        await pilot.press("ctrl+s")
        await wait_for_workers(pilot, app)
        dialog = app.screen
        assert isinstance(dialog, SubmitDialog)
        await pilot.pause()
        hint = str(dialog.query_one("#submit-keys", Static).content)
        await pilot.press("tab")
        assert dialog.focused is not None and dialog.focused.id == "pick-filter"
        assert "tab moves to the list's filter" in hint
        await pilot.press("shift+tab", "down")  # down from the answer goes into the list
        assert isinstance(dialog.focused, SelectionList)
        await pilot.press("tab")  # past the list to the decline reason
        filt = dialog.query_one("#pick-filter", Input)
        filt.value = "zzz-nothing"
        await pilot.pause()
        await pilot.press("escape")  # escape clears the filter first, the dialog stays
        assert app.screen is dialog and filt.value == ""
        await pilot.press("escape")
        assert isinstance(app.screen, Workspace)


async def test_back_in_the_browser_the_list_has_the_focus_and_slash_filters(
    tmp_path: Path,
) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")  # leaves "quote approval" in the filter
        await pilot.press("escape", "enter")  # leave the task (asked first)
        await wait_for_workers(pilot, app)
        browser = app.screen
        assert isinstance(browser, TaskBrowser)
        assert isinstance(browser.focused, TaskList)
        await pilot.press("slash")
        filt = browser.query_one("#filter", Input)
        assert browser.focused is filt and filt.value == "quote approval"
        assert filt.selected_text == "quote approval"  # the old text selected
        await pilot.press(*"case")
        assert filt.value == "case"  # typing replaced it


def test_confidential_matches_only_what_says_confidential() -> None:
    from crmarena_tui.tasks.index import TaskIndex
    from crmarena_tui.tasks.loaders import load_task_table
    from tests.support.app_support import SAMPLE

    rows = load_task_table(str(SAMPLE))
    index = TaskIndex(rows)
    matched = [rows[i] for i in index.filter("confidential")]
    assert matched, "the sample holds a confidential_company_knowledge task"
    assert all("confidential" in t.task or "confidential" in t.query.lower() for t in matched), (
        "the skill 'confidentiality awareness' of every privacy task is not matched"
    )
    assert len(index.filter("privacy")) >= len(matched)


async def test_n_with_no_next_task_says_so_and_stays(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        task = next(t for t in app.browser.index.tasks if t.task == "quote_approval")
        await open_task(pilot, app, f"#{task.idx} quote_approval")
        assert isinstance(app.screen, Workspace)
        assert len(app.browser.task_list.visible_tasks()) == 1
        await submit(pilot, app, "None")
        result = app.screen
        assert isinstance(result, ResultScreen)
        await pilot.press("n")
        await wait_for_workers(pilot, app)
        assert app.screen is result  # not silently back in the browser
        assert any("no next task" in str(n.message).lower() for n in app._notifications)


TRANSCRIPT = "Hello,\nthe widget broke again.\nThanks, Ann"
PRODUCT = "01tDm00030000S3IAI"


def child_org() -> FakeOrg:
    """Cases with their EmailMessages (a child subquery); order items naming their product."""
    org = FakeOrg(n_cases=1)
    org.data["Case"][0]["EmailMessages"] = {
        "totalSize": 2,
        "done": True,
        "records": [
            {"attributes": {"type": "EmailMessage"}, "Subject": "Broken", "TextBody": TRANSCRIPT},
            {"attributes": {"type": "EmailMessage"}, "Subject": "Re: Broken", "TextBody": "Ok."},
        ],
    }
    org.data["OrderItem"] = [
        {
            "Id": "802000000000001AAA",
            "Product2Id": PRODUCT,
            "Product2": {"attributes": {"type": "Product2"}, "Name": "Gizmo Deluxe"},
        }
    ]
    return org


async def test_a_child_subquery_reads_as_nested_records_in_the_row_view(tmp_path: Path) -> None:
    from crmarena_tui.widgets.text_detail import TextDetail

    app = fake_app(tmp_path, child_org())
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await run(pilot, app, "SELECT Id, EmailMessages FROM Case")  # (the fake org: all fields)
        table = app.screen.query_one("#result-table", ResultsTable)
        table.focus()
        await pilot.press("v")
        assert isinstance(app.screen, TextDetail)
        body = app.screen.body
        assert "\\n" not in body and '"records"' not in body  # no JSON, no escaped breaks
        assert "── 1 of 2" in body and "── 2 of 2" in body
        assert "Subject: Broken" in body and "Subject: Re: Broken" in body
        assert (
            "the widget broke again."
            in body.splitlines()[body.splitlines().index("    TextBody:") + 2]
        )


async def test_a_reference_id_in_the_pick_list_names_what_it_refers_to(tmp_path: Path) -> None:
    app = fake_app(tmp_path, child_org())
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await run(pilot, app, "SELECT Id, Product2Id, Product2.Name FROM OrderItem")
        await pilot.press("ctrl+s")
        await wait_for_workers(pilot, app)
        dialog = app.screen
        assert isinstance(dialog, SubmitDialog)
        dialog.query_one("#pick-filter", Input).value = "gizmo"
        await pilot.pause()
        picks = dialog.query_one("#picks", SelectionList)
        shown = [str(picks.get_option_at_index(i).prompt) for i in range(picks.option_count)]
        assert len(shown) == 1 and shown[0].startswith(PRODUCT)
        assert "Product2Id: Gizmo Deluxe" in shown[0]


async def test_the_customer_speaks_as_a_customer_and_the_panel_describes_them(
    tmp_path: Path,
) -> None:
    from textual.widgets import Markdown

    app = chat_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "best region")
        workspace = app.screen
        panel = workspace.query_one("#task-text", Markdown).source
        persona = workspace.task_row.persona
        assert persona.startswith("You are")
        assert "They are" + persona.removeprefix("You are") in panel and "You are" not in panel
        chat = workspace.query_one("#chat", ChatPane)
        for _ in range(3):
            await say(pilot, app, "Could you tell me more?")
        said = " ".join(m for m in chat.messages if m.startswith("Customer: "))
        assert "Which states had the quickest case closures" in said
        assert "Return only" not in said and "two-letter abbreviation" not in said


async def test_tasks_no_org_can_answer_are_marked_and_never_open(
    tmp_path: Path, monkeypatch
) -> None:
    from crmarena_tui.app.app import CrmArenaApp, PlayOptions
    from tests.support.app_support import SAMPLE

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # no snapshot imported
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # no credentials
    for name in list(__import__("os").environ):
        if name.startswith(("SF_", "SALESFORCE_", "CRMARENA_TUI_SF")):
            monkeypatch.delenv(name)
    app = CrmArenaApp(PlayOptions(tasks=str(SAMPLE), participant="ann", db=tmp_path / "s.db"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        browser = app.screen
        assert isinstance(browser, TaskBrowser)
        text = screen_text(app)
        assert "44 tasks · 44 with no org here" in text
        assert text.count("no org") >= 10  # the status column of every row shown
        await pilot.press("enter")
        await wait_for_workers(pilot, app)
        assert app.screen is browser  # no dead workspace
        [note] = [n for n in app._notifications if n.title == "No org for this task"]
        assert "need the real b2b org" in note.message and "org fetch" in note.message
        app._notifications.clear()
        await pilot.press("ctrl+g")  # nor an agent run that cannot work
        await wait_for_workers(pilot, app)
        assert app.screen is browser
        assert [n.title for n in app._notifications] == ["No org for this task"]


async def test_a_workspace_whose_session_failed_says_so_on_every_key(tmp_path: Path) -> None:
    from crmarena_tui.app.app import CrmArenaApp, PlayOptions
    from tests.support.app_support import SAMPLE

    def broken(org_type: str):
        raise OSError("org file unreadable")

    app = CrmArenaApp(
        PlayOptions(tasks=str(SAMPLE), participant="ann", db=tmp_path / "s.db"), org_factory=broken
    )
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        for key in ("ctrl+s", "ctrl+r"):
            app._notifications.clear()
            await pilot.press(key)
            await pilot.pause()
            messages = [str(n.message) for n in app._notifications]
            assert any("could not open: org file unreadable" in m for m in messages), key
            assert not any("still opening" in m for m in messages)


async def _read_the_header(tmp_path: Path, size: tuple[int, int]) -> None:
    tmp_path.mkdir()
    app = chat_app(tmp_path)
    async with app.run_test(size=size) as pilot:
        await open_task(pilot, app, "lead qualification")
        workspace = app.screen
        assert isinstance(workspace.focused, QueryEditor)
        await pilot.press("shift+tab")  # from the editor to the chat's header
        panel = workspace.query_one("#task-panel")
        assert workspace.focused is panel
        seen = screen_text(app)
        for _ in range(40):  # the arrow keys scroll it to its end (then more keys show nothing)
            await pilot.press("down")
            await pilot.pause()
            seen += screen_text(app)
            if panel.scroll_y >= panel.max_scroll_y:
                break
        assert "Lead Id to be considered is:" in seen and "00QWt000008989sMAA" in seen
        assert "Conversation" in seen and "with ctrl+s." in " ".join(seen.split())


async def test_the_chat_header_scrolls_and_is_one_shift_tab_from_the_editor(
    tmp_path: Path,
) -> None:
    await _read_the_header(tmp_path / "small", (100, 30))
    await _read_the_header(tmp_path / "large", (160, 45))


async def test_escape_in_the_sessions_list_clears_its_filter_first(tmp_path: Path) -> None:
    from crmarena_tui.screens.sessions_screen import SessionsScreen

    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await pilot.press("escape", "enter")  # back to the browser (one session now exists)
        await wait_for_workers(pilot, app)
        await pilot.press("f4")
        await wait_for_workers(pilot, app)
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        await pilot.press("slash")
        filt = screen.query_one("#ss-filter", Input)
        filt.value = "nobody-matches-this"
        await pilot.pause()
        await pilot.press("escape")  # cleared, and the list has the focus back
        assert app.screen is screen and filt.value == "" and not filt.has_focus
        await pilot.press("escape")
        assert isinstance(app.screen, TaskBrowser)
