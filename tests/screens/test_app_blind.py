"""Blind mode: the browser shows no type, metric, idx or hidden chat request, lists the tasks in
a neutral order per participant, and no screen shows answers of a task not yet submitted."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Input, Select

from crmarena_tui.app.app import CrmArenaApp, PlayOptions
from crmarena_tui.screens.sessions_screen import SessionsScreen
from crmarena_tui.screens.task_browser import TaskBrowser
from crmarena_tui.screens.workspace import Workspace
from crmarena_tui.storage import Store
from crmarena_tui.tasks.catalog import TASK_TYPES
from crmarena_tui.tasks.loaders import load_task_file
from crmarena_tui.widgets.task_list import TaskList
from tests.support.app_support import SAMPLE, SIZE, FakeOrg, open_task, screen_text, submit
from tests.support.app_support import wait_for_workers as settle
from tests.support.spec_support import session_spec

METRICS = ("exact_match", "fuzzy_match", "privacy_rejection", "exact match", "privacy rejection")


def mixed_tasks(tmp_path: Path) -> Path:
    """The 44 sample rows, the last 4 of them as chat tasks (their query is the hidden request)."""
    rows = json.loads(SAMPLE.read_text())
    for n, row in enumerate(rows[-4:]):
        row["interactive"] = True
        row["query"] = f"Secret request {n}: {row['query']}"
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps(rows))
    return path


def app_for(tmp_path: Path, tasks: Path, who: str = "ann", **kw: object) -> CrmArenaApp:
    org = FakeOrg()
    return CrmArenaApp(
        PlayOptions(tasks=str(tasks), participant=who, db=tmp_path / "sessions.db", **kw),
        org_factory=lambda org_type: org,
    )


def list_text(app: CrmArenaApp) -> list[str]:
    """Every row of the task list as drawn (not only the rows on screen)."""
    tasks = app.screen.query_one("#tasks", TaskList)
    return ["".join(s.text for s in tasks._segments(i, False)) for i in range(tasks.row_count)]


def visible_numbers(app: CrmArenaApp) -> list[tuple[str, int]]:
    tasks = app.screen.query_one("#tasks", TaskList)
    return [(t.key, int(tasks.view.number(t))) for t in tasks.visible_tasks()]


async def test_blind_browser_shows_no_type_metric_idx_or_hidden_request(tmp_path: Path) -> None:
    path = mixed_tasks(tmp_path)
    tasks = load_task_file(path)
    app = app_for(tmp_path, path, blind=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert isinstance(app.screen, TaskBrowser)
        shown = "\n".join([screen_text(app), *list_text(app)])
        header = screen_text(app).splitlines()[5]
        assert "Type" not in header and "Metric" not in header and "Query" in header
        for metric in METRICS:
            assert metric not in shown
        for entry in TASK_TYPES:  # labels that no query holds: the type is not on screen
            if entry.label.lower() not in " ".join(t.query.lower() for t in tasks):
                assert entry.label.lower() not in shown.lower(), entry.label
        for task in tasks:
            if task.interactive:
                assert "Secret request" not in shown  # the customer reveals it, not the list
        drawn = [row[8:15].strip() for row in list_text(app)]  # the `#` column
        assert drawn == [str(n) for n in range(1, 45)]  # numbered 1..N in list order, not idx
        assert [s.id for s in app.screen.query(Select)] == [
            "facet-org-type",
            "facet-mode",
            "facet-status",
        ]
        assert "as ann (blind)" in screen_text(app)


async def test_a_chat_request_is_never_shown_or_matched_even_when_not_blind(
    tmp_path: Path,
) -> None:
    path = mixed_tasks(tmp_path)
    chat = [t for t in load_task_file(path) if t.interactive][0]
    app = app_for(tmp_path, path, blind=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        rows = list_text(app)
        assert all("Secret request" not in row for row in rows)
        assert sum("the customer tells you" in row for row in rows) == 4
        words = " ".join(chat.query.split()[:6])
        app.screen.query_one("#filter", Input).value = words
        await pilot.pause()
        assert chat.key not in [t.key for t in app.screen.task_list.visible_tasks()]


async def test_blind_filter_matches_no_type_or_metric(tmp_path: Path) -> None:
    for blind, expect_matches in ((False, True), (True, False)):
        app = app_for(tmp_path, SAMPLE, blind=blind)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            for words in ("privacy_rejection", "exact_match", "confidential company knowledge"):
                app.screen.query_one("#filter", Input).value = words
                await pilot.pause()
                assert (app.screen.task_list.row_count > 0) is expect_matches, (blind, words)


async def test_the_blind_order_is_stable_for_a_participant(tmp_path: Path) -> None:
    orders = []
    for who in ("ann", "ann", "bob"):
        app = app_for(tmp_path, SAMPLE, who=who, blind=True)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            orders.append(visible_numbers(app))
    assert orders[0] == orders[1]  # the same participant sees the same order every time
    assert orders[0] != orders[2]  # another participant another one
    idx_order = [t.key for t in load_task_file(SAMPLE)]
    assert [k for k, _ in orders[0]] != idx_order  # not the dataset's (grouped by type) order


async def test_blind_workspace_shows_no_type_metric_or_idx_and_the_session_records_blind(
    tmp_path: Path,
) -> None:
    path = mixed_tasks(tmp_path)
    app = app_for(tmp_path, path, blind=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        for row in (0, 1):  # a single-turn task and a chat task
            browser = app.screen
            chat = [t.interactive for t in browser.task_list.visible_tasks()].index(bool(row))
            browser.task_list.move_to(chat)
            await pilot.press("enter")
            await settle(pilot, app)
            workspace = app.screen
            assert isinstance(workspace, Workspace)
            task = workspace.task_row
            number = app.blind_view.number(task)
            title = str(workspace.query_one("#ws-title").render())
            assert title.startswith(f"Task {number}")
            shown = screen_text(app)
            entry = next(e for e in TASK_TYPES if e.name == task.task)
            for hidden in (task.task, task.reward_metric, f"#{task.idx}"):
                assert hidden not in shown, hidden
            own_words = f"{task.query} {task.metadata.required}".lower()
            if entry.label.lower() not in own_words:  # (some tasks' texts name their type)
                assert entry.label.lower() not in shown.lower()
            assert workspace.episode.session.blind is True
            await pilot.press("escape", "enter")
            await settle(pilot, app)
    app = app_for(tmp_path, SAMPLE, who="bob", blind=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        assert app.screen.episode.session.blind is False
        assert "quote approval" in str(app.screen.query_one("#ws-title").render())
        assert "exact_match" in screen_text(app)  # the panel names the metric when not blind


def seed_other_session(db: Path, task_key: tuple[str, int]) -> None:
    """An agent's graded session on one task: its answer must stay hidden in blind mode."""
    task = next(t for t in load_task_file(SAMPLE) if t.idx == task_key[1])
    task = task.model_copy(update={"source": task_key[0]})
    with Store(db) as store:
        bot = store.participant("agent", "gpt-x", model="gpt-x")
        session = store.create_session(session_spec(bot, task, "local", "fake"))
        store.append_event(session.id, "agent", "submit", {"answer": "THE-AGENTS-ANSWER"})
        store.set_status(session.id, "submitted", active_seconds=5.0)


async def test_blind_mode_hides_sessions_of_tasks_not_submitted(tmp_path: Path) -> None:
    quote = next(t for t in load_task_file(SAMPLE) if t.task == "quote_approval")
    seed_other_session(tmp_path / "sessions.db", (quote.source, quote.idx))
    app = app_for(tmp_path, SAMPLE, blind=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        browser = app.screen
        keys = [t.key for t in browser.task_list.visible_tasks()]
        browser.task_list.move_to(keys.index(quote.key))
        await pilot.press("f3")  # sessions of this task: refused before submitting
        await settle(pilot, app)
        assert app.screen is browser
        assert any("submit this task first" in str(n.message) for n in app._notifications)
        await pilot.press("ctrl+g")  # an agent's run would show its answer and the gold
        await settle(pilot, app)
        assert app.screen is browser
        await pilot.press("f4")  # every session: the agent's session on the task is not listed
        await settle(pilot, app)
        assert isinstance(app.screen, SessionsScreen)
        assert app.screen.rows == [] and "gpt-x" not in screen_text(app)
        await pilot.press("escape")
        await pilot.press("enter")  # open the quote task (still under the cursor) and submit
        await settle(pilot, app)
        assert app.screen.task_row.key == quote.key
        await submit(pilot, app, "anything")
        await pilot.press("s")  # submitted: its sessions, the agent's included, may show now
        await settle(pilot, app)
        assert isinstance(app.screen, SessionsScreen)
        index = app.screen.index
        assert {index.participant(r).name for r in app.screen.rows} == {"ann", "gpt-x"}
