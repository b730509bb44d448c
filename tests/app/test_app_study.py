"""Study mode in the app (`play --study NAME --as WHO`): the participant's queue only, blind, in
queue order, one task after the other; sessions record the study; grades as the study says; the
research screens stay shut; the study screen shows the participant their own progress."""

from __future__ import annotations

from pathlib import Path

from crmarena_tui.app.app import CrmArenaApp, PlayOptions
from crmarena_tui.screens.pause_screen import PauseScreen
from crmarena_tui.screens.result_screen import ResultScreen
from crmarena_tui.screens.study_screen import StudyScreen
from crmarena_tui.screens.task_browser import TaskBrowser
from crmarena_tui.screens.workspace import Workspace
from crmarena_tui.storage import Store
from crmarena_tui.studies import db
from crmarena_tui.tasks.catalog import BY_NAME
from crmarena_tui.tasks.model import Task
from crmarena_tui.widgets.task_list import TaskList
from tests.support.app_support import SAMPLE, SIZE, FakeOrg, screen_text, submit
from tests.support.app_support import wait_for_workers as settle
from tests.support.study_app_support import make_study, queue_keys, study_app
from tests.support.study_support import cli

METRICS = ("exact_match", "fuzzy_match", "privacy_rejection", "exact match", "fuzzy match")
METRICS += ("privacy rejection",)


def list_rows(app: CrmArenaApp) -> list[str]:
    tasks = app.screen.query_one("#tasks", TaskList)
    return ["".join(s.text for s in tasks._segments(i, False)) for i in range(tasks.row_count)]


def last_notice(app: CrmArenaApp) -> str:
    return list(app._notifications)[-1].message


def assert_blind(text: str, tasks: list[Task]) -> None:
    """No metric and no task type (label or name) in `text`, except words the tasks' own text
    holds (a request may say "lead qualification")."""
    lowered = text.lower()
    own = " ".join(f"{t.query} {t.metadata.required}".lower() for t in tasks)
    for metric in METRICS:
        assert metric not in lowered, metric
    for t in tasks:
        for word in {BY_NAME[t.task].label.lower(), t.task, t.task.replace("_", " ")}:
            if word not in own:
                assert word not in lowered, word


async def test_the_queue_blind_in_order_one_task_after_the_other(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    make_study(path)  # 6 tasks, one participant each: 3 for ann, 3 for bob
    keys = queue_keys(path, "ann")
    app = study_app(path, "--as", "ann")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        browser = app.screen
        assert isinstance(browser, TaskBrowser)
        queue = [row.full() for row in browser.task_list.visible_tasks()]
        assert [t.key for t in queue] == keys  # only ann's tasks, in her queue's order
        rows = list_rows(app)
        assert [r[:12].strip() for r in rows] == ["left", "left", "left"]
        assert [r[12:19].strip() for r in rows] == ["1", "2", "3"]
        assert_blind(screen_text(app) + "\n".join(rows), queue)
        footer = screen_text(app).splitlines()[-1]
        assert "f7 Study" in footer
        for hidden in ("Sessions", "Report", "Run agent"):  # no one else's work, no agents
            assert hidden not in footer

        await pilot.press("enter")
        await settle(pilot, app)
        assert isinstance(app.screen, Workspace) and app.screen.task_row.key == keys[0]
        assert "Task 1" in screen_text(app)
        assert "Run agent" not in screen_text(app).splitlines()[-1]  # no agents in a study
        assert_blind(screen_text(app), queue)
        await submit(pilot, app, "None")
        assert isinstance(app.screen, ResultScreen)
        text = screen_text(app)
        assert "Reward" in text and "Ground truth" in text  # after-submit: the grade shows
        assert "Task 1" in text and "n: next task (1 of 3 done)" in text
        assert_blind(text, queue)

        for n in (2, 3):
            await pilot.press("n")
            await settle(pilot, app)
            assert isinstance(app.screen, PauseScreen) and f"Task {n}" in screen_text(app)
            assert_blind(screen_text(app), queue)
            await pilot.press("k")  # the clock starts with a key
            await settle(pilot, app)
            assert isinstance(app.screen, Workspace) and app.screen.task_row.key == keys[n - 1]
            assert_blind(screen_text(app), queue)
            await submit(pilot, app, "None")
        assert "All 3 tasks done — thank you" in screen_text(app)
        await pilot.press("n")
        await settle(pilot, app)
        assert isinstance(app.screen, ResultScreen)  # nothing more to open
        assert any("All 3 tasks done" in n.message for n in app._notifications)
        await pilot.press("escape")
        await settle(pilot, app)
        assert [r[:12].strip() for r in list_rows(app)] == ["done", "done", "done"]
        assert "All 3 tasks done — thank you. ctrl+q quits." in screen_text(app)

    with Store(path) as store:
        study = db.get_study(store, "pilot")
        sessions = store.sessions()
        assert [f"{s.task_source}#{s.task_idx}" for s in sessions] == keys
        for session in sessions:
            assert session.study_id == study.id and session.blind and session.status == "submitted"
            assert store.get_participant(session.participant_id).name == "ann"
            assert session.settings["study"] == "pilot"
        assert [s for _, s in db.queue_status(store, db.seat(store, "pilot", "ann"))] == [
            "done"
        ] * 3


async def test_tasks_open_in_queue_order_and_once(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    make_study(path)
    app = study_app(path, "--as", "bob")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "enter")  # the second task first
        await settle(pilot, app)
        assert isinstance(app.screen, TaskBrowser)
        assert "Please work the tasks in order: next is task 1." in last_notice(app)
        await pilot.press("up", "enter")
        await settle(pilot, app)
        await pilot.press("escape", "enter")  # left in progress: it stays the next one
        await settle(pilot, app)
        assert [r[:12].strip() for r in list_rows(app)] == ["in progress", "left", "left"]
        await pilot.press("enter")
        await settle(pilot, app)
        await submit(pilot, app, "None")
        await pilot.press("escape")
        await settle(pilot, app)
        assert app.screen.query_one("#tasks", TaskList).cursor == 1  # on the next task
        await pilot.press("up", "enter")  # task 1 again: done
        await settle(pilot, app)
        assert isinstance(app.screen, TaskBrowser)
        assert "Task 1 is done" in last_notice(app)
        for key in ("f3", "f4", "f9", "ctrl+g"):  # the research screens stay shut
            await pilot.press(key)
            await settle(pilot, app)
            assert isinstance(app.screen, TaskBrowser), key
    with Store(path) as store:
        assert len(store.sessions()) == 1  # one attempt, resumed, never a second


async def test_the_queue_opens_on_the_first_task_not_done(tmp_path: Path) -> None:
    """Issue 29: a participant back after finishing task 1 found the cursor on it ("Task 1 is
    done..."); the list now opens on the first task not done, the one in progress first."""
    path = tmp_path / "sessions.db"
    make_study(path)
    for round_ in range(2):
        app = study_app(path, "--as", "bob")
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            tasks = app.screen.query_one("#tasks", TaskList)
            if round_ == 0:
                assert tasks.cursor == 0
                await pilot.press("enter")
                await settle(pilot, app)
                await submit(pilot, app, "None")
                continue
            assert [r[:12].strip() for r in list_rows(app)] == ["done", "left", "left"]
            assert tasks.cursor == 1  # task 2, not the done task 1
            await pilot.press("enter")
            await settle(pilot, app)
            assert isinstance(app.screen, Workspace)
            await pilot.press(
                "escape"
            )  # task 2 left in progress, cursor moved up to task 1 by hand
            await settle(pilot, app)
    app = study_app(path, "--as", "bob")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert [r[:12].strip() for r in list_rows(app)] == ["done", "in progress", "left"]
        assert app.screen.query_one("#tasks", TaskList).cursor == 1  # the one in progress


async def test_a_study_that_never_shows_grades(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    make_study(path, "--show-grade", "never")
    app = study_app(path, "--as", "ann")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("enter")
        await settle(pilot, app)
        gold = app.screen.task_row.gold
        await submit(pilot, app, "None")
        assert isinstance(app.screen, ResultScreen)
        text = screen_text(app)
        assert "Submitted" in text and "n: next task (1 of 3 done)" in text
        for shown in ("Reward", "correct", "Ground truth", "What was compared", "Metrics"):
            assert shown not in text
        for answer in gold:
            assert answer not in text
        for key in ("v", "s"):  # the steps (with the grade) and others' sessions: not offered
            await pilot.press(key)
            await settle(pilot, app)
            assert isinstance(app.screen, ResultScreen), key
        await pilot.press("escape")
        await settle(pilot, app)
        assert list_rows(app)[0][:12].strip() == "done"  # not the reward
        await pilot.press("f7")
        await settle(pilot, app)
        assert isinstance(app.screen, StudyScreen)
        text = screen_text(app)
        assert "Your tasks (ann)" in text and "1 of 3 done" in text
        assert "Reward" not in text and "0.00" not in text and "bob" not in text


async def test_the_researcher_sees_every_participant_on_the_study_screen(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    make_study(path)
    participant = study_app(path, "--as", "ann")
    async with participant.run_test(size=SIZE) as pilot:
        await settle(pilot, participant)
        await pilot.press("enter")
        await settle(pilot, participant)
        await submit(pilot, participant, "None")

    make_study(path, name="later", participants="cy,dee")
    options = PlayOptions(tasks=str(SAMPLE), participant="rita", db=path, blind=False)
    app = CrmArenaApp(options, org_factory=lambda org_type: FakeOrg())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert "f7 Study" not in screen_text(app)  # outside a study: in the command palette
        from crmarena_tui.app.commands import system_commands

        [studies] = [c for c in system_commands(app, app.screen) if c.title == "Studies"]
        studies.callback()
        await settle(pilot, app)
        assert isinstance(app.screen, StudyScreen)
        assert "Study later" in screen_text(app) and "cy" in screen_text(app)  # the newest
        app.screen.query_one("#study-list").focus()
        await pilot.press("home", "enter")  # the list of studies: pilot
        await settle(pilot, app)
        text = screen_text(app)
        assert "Study pilot" in text and "ann" in text and "bob" in text
        assert "Completion: 1 of 6 done (17%)" in text
        assert "Humans (95% intervals" in text and "accuracy [95% CI]" in text  # the report


async def test_the_cli_refuses_a_study_it_cannot_start(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    code, _, err = cli("play", "--study", "pilot", "--as", "ann", "--db", str(path))
    assert code != 0 and err.count("\n") == 1 and "no sessions database" in err
    make_study(path)
    code, _, err = cli("play", "--study", "pilto", "--as", "ann", "--db", str(path))
    assert code != 0 and err.count("\n") == 1 and "no study named 'pilto'" in err
    code, _, err = cli("play", "--study", "pilot", "--as", "zed", "--db", str(path))
    assert code != 0 and err.count("\n") == 1 and "'zed' is not a participant" in err
    assert cli("study", "close", "pilot", "--db", str(path))[0] == 0
    code, _, err = cli("play", "--study", "pilot", "--as", "ann", "--db", str(path))
    assert code != 0 and err.strip() == "error: study 'pilot' is closed: it takes no more work"
