"""Structured answers in the submit dialog (picked Ids, enumerations, a decline on every task),
the result screen's words, and chat tasks (the context as the chat's header, the scripted
customer's "not sure", the end of the conversation as a line)."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Input, SelectionList

from crmarena_tui.agents.base import STOP
from crmarena_tui.agents.user_scripted import NOTHING_MORE, ScriptedUser
from crmarena_tui.app.app import CrmArenaApp, PlayOptions
from crmarena_tui.screens.result_screen import ResultScreen
from crmarena_tui.screens.submit_dialog import SubmitDialog
from crmarena_tui.screens.workspace import Workspace
from crmarena_tui.storage import Store
from crmarena_tui.widgets.chat_pane import ChatPane
from tests.screens.test_app_workspace import fake_app, run
from tests.support.app_support import (
    SAMPLE,
    SIZE,
    FakeOrg,
    open_task,
    screen_text,
    wait_for_workers,
)

ARTICLE = "ka0Wt000000Eq0MIAS"  # the ground truth of the quote_approval task 1763


def article_org() -> FakeOrg:
    org = FakeOrg()
    org.data["Knowledge__kav"] = [
        {"Id": ARTICLE, "Title": "Discount approval policy"},
        {"Id": "ka0Wt000000EnvJIAS", "Title": "Bundles"},
    ]
    return org


async def open_dialog(pilot, app) -> SubmitDialog:
    await pilot.press("ctrl+s")
    await wait_for_workers(pilot, app)
    assert isinstance(app.screen, SubmitDialog)
    return app.screen


async def test_pick_an_id_from_the_results_and_it_is_compared_exactly(tmp_path: Path) -> None:
    app = fake_app(tmp_path, article_org())
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await run(pilot, app, "SELECT Id, Title FROM Knowledge__kav")
        dialog = await open_dialog(pilot, app)
        picks = dialog.query_one("#picks", SelectionList)
        values = [picks.get_option_at_index(i).value for i in range(picks.option_count)]
        assert values[:2] == [ARTICLE, "ka0Wt000000EnvJIAS"] and values[-1] == "None"
        assert "Discount approval policy · r1" in screen_text(app)
        dialog.query_one("#pick-filter", Input).value = "discount"
        await pilot.pause()
        assert picks.option_count == 1
        dialog.query_one("#pick-filter", Input).focus()
        await pilot.press("down")  # from the filter into the list
        assert dialog.focused is picks
        assert "space marks the highlighted item" in screen_text(app)
        await pilot.press("space")
        await pilot.pause()
        assert dialog.marked == [ARTICLE]
        await pilot.press("ctrl+s")
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, ResultScreen)
        text = screen_text(app)
        assert "Reward 1.00" in text and "(structured)" in text
        assert f"You picked {ARTICLE}; the task expects {ARTICLE}: correct." in text
        [session] = Store(tmp_path / "sessions.db").sessions()
        submit = [
            e for e in Store(tmp_path / "sessions.db").events(session.id) if e.kind == "submit"
        ]
        assert submit[0].payload["structured"] == {"kind": "items", "items": [ARTICLE]}


async def test_an_empty_submit_says_why_nothing_happened(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        dialog = await open_dialog(pilot, app)
        await pilot.press("enter")  # empty text
        assert app.screen is dialog
        assert "Nothing was submitted: the answer is empty" in screen_text(app)
        await pilot.press("ctrl+s")  # nothing marked, nothing typed
        assert app.screen is dialog
        assert "Nothing was submitted: no item is marked and no answer is typed" in screen_text(app)
        assert not app.screen_stack[-2].episode.finished


async def test_ctrl_s_with_nothing_marked_submits_the_typed_answer(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        await open_dialog(pilot, app)
        await pilot.press(*"not sure")
        await pilot.press("ctrl+s")  # as a second ctrl+s after typing: the text goes in
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, ResultScreen)
        [session] = Store(tmp_path / "sessions.db").sessions()
        [submit] = [
            e for e in Store(tmp_path / "sessions.db").events(session.id) if e.kind == "submit"
        ]
        assert submit.payload["answer"] == "not sure" and "structured" not in submit.payload


async def test_a_state_task_offers_the_states_and_none(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "best region")
        task = app.screen.task_row
        dialog = await open_dialog(pilot, app)
        picks = dialog.query_one("#picks", SelectionList)
        values = [picks.get_option_at_index(i).value for i in range(picks.option_count)]
        assert "OR" in values and "CA" in values and values[-1] == "None" and len(values) >= 51
        dialog.query_one("#pick-filter", Input).value = "none"
        await pilot.pause()
        picks.focus()
        await pilot.press("space")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_for_workers(pilot, app)
        expected = 1.0 if task.gold == ["None"] else 0.0
        assert f"Reward {expected:.2f}" in screen_text(app)
        assert "You picked None (there is no such item)" in screen_text(app)


async def test_decline_is_on_every_task_and_scores_only_on_privacy_tasks(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "private customer")
        assert app.screen.task_row.reward_metric == "privacy_rejection"
        dialog = await open_dialog(pilot, app)
        assert "decline on privacy or confidentiality grounds" in screen_text(app)
        dialog.query_one("#decline-reason", Input).value = "other customers' data"
        await pilot.press("ctrl+d")
        await wait_for_workers(pilot, app)
        text = screen_text(app)
        assert "Reward 1.00" in text
        assert "You declined; the task expects a refusal: correct." in text
        assert "Parsed answer" not in text and "YES" not in text
        await pilot.press("escape")
        await wait_for_workers(pilot, app)

        await open_task(pilot, app, "quote approval")
        dialog = await open_dialog(pilot, app)
        assert "decline on privacy or confidentiality grounds" in screen_text(app)
        await pilot.click("#decline")
        await wait_for_workers(pilot, app)
        text = screen_text(app)
        assert "Reward 0.00" in text and "You declined; the task expects an answer" in text


async def test_free_text_i_dont_know_is_said_to_be_no_answer(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "top issue")  # the first top-issue task's truth is None
        assert app.screen.task_row.gold == ["None"]
        await open_dialog(pilot, app)
        app.screen.query_one("#answer", Input).value = "I don't know"
        await pilot.press("enter")
        await wait_for_workers(pilot, app)
        text = screen_text(app)
        assert "Reward 0.00" in text and "gives no answer" in text


def chat_app(tmp_path: Path) -> CrmArenaApp:
    path = tmp_path / "b2b_interactive.json"  # the file name marks the tasks interactive
    path.write_text(json.dumps(json.loads(SAMPLE.read_text())))
    org = FakeOrg()
    return CrmArenaApp(
        PlayOptions(tasks=str(path), participant="ann", db=tmp_path / "s.db"),
        org_factory=lambda org_type: org,
    )


async def say(pilot, app, text: str) -> None:
    chat = app.screen.query_one("#chat", ChatPane)
    chat.input.value = text
    chat.input.focus()
    await pilot.press("enter")
    await wait_for_workers(pilot, app)


async def test_chat_keeps_the_context_on_top_and_ends_with_a_line(tmp_path: Path) -> None:
    app = chat_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "best region")
        workspace = app.screen
        assert isinstance(workspace, Workspace) and workspace.task_row.interactive
        task = workspace.task_row
        today = task.today()
        assert today is not None
        text = screen_text(app)
        assert f"today {today.isoformat()}" in text.splitlines()[0]  # the title bar
        lines = text.splitlines()
        context_at = next(i for i, line in enumerate(lines) if " Context " in f" {line} ")
        chat_at = next(i for i, line in enumerate(lines) if "Customer: Hi!" in line)
        assert context_at < chat_at  # the context is the chat's header, above it

        # The opening holds the whole request (its second sentence, "Return only the two-letter
        # abbreviation ...", is a format instruction the customer does not say): a question
        # the request never answers gets "that's all I know".
        pieces = ScriptedUser().pieces(task)
        assert len(pieces) == 1
        await say(pilot, app, "What is your account number?")
        chat = workspace.query_one("#chat", ChatPane)
        assert chat.messages[-1] == f"Customer: {NOTHING_MORE}"
        for _ in pieces[1:]:
            await say(pilot, app, "Could you tell me more?")
        await say(pilot, app, "The answer is OR.")
        assert chat.messages[-1] == "— Customer ended the conversation —"
        assert STOP not in screen_text(app) and "Customer ended the conversation" in screen_text(
            app
        )
        assert chat.input.disabled
    # a resumed session shows the same line
    again = chat_app(tmp_path)
    async with again.run_test(size=SIZE) as pilot:
        await open_task(pilot, again, "best region")
        chat = again.screen.query_one("#chat", ChatPane)
        assert chat.messages[-1] == "— Customer ended the conversation —"
        assert STOP not in screen_text(again)
