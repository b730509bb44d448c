"""The live agent run: start an agent from the browser or the workspace, watch its steps stream in,
pause and single-step it, stop it (the session stays in progress), take over as a human, and see
a model failure reported without losing the session."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, Select

from crmarena_tui.app.app import CrmArenaApp, PlayOptions
from crmarena_tui.screens.agent_run_screen import AgentRunScreen
from crmarena_tui.screens.agent_setup_dialog import AgentSetupDialog
from crmarena_tui.screens.result_screen import ResultScreen
from crmarena_tui.screens.task_browser import TaskBrowser
from crmarena_tui.screens.workspace import Workspace
from crmarena_tui.storage import Store
from crmarena_tui.widgets.query_editor import QueryEditor
from tests.fakes.scripted_llm import ScriptedFailure, register_script, unregister_script
from tests.support.app_support import SIZE, open_task, screen_text, submit, wait_for_workers
from tests.support.pilot_wait_support import wait_until

TASK_WORDS = "b2b single-turn handle time"  # the reference agent: 3 queries, then the answer


def demo_app(tmp_path: Path) -> CrmArenaApp:
    return CrmArenaApp(PlayOptions(participant="ann", db=tmp_path / "sessions.db"))


async def until(pilot: Pilot, condition, what: str, timeout: float = 15.0) -> None:
    """Let the app run until `condition()` holds (agent workers may be waiting, paused)."""
    await wait_until(pilot, condition, what, timeout=timeout)


async def start_agent(
    pilot: Pilot,
    app: CrmArenaApp,
    words: str | None = TASK_WORDS,
    *,
    paused: bool = False,
    model: str | None = None,
) -> AgentRunScreen:
    """From the browser (filtered by `words`) or the current workspace: ctrl+g, set up, start."""
    if words is not None:
        await wait_for_workers(pilot, app)
        await pilot.press("slash")
        app.screen.query_one("#filter", Input).value = words
        await pilot.pause()
    await pilot.press("ctrl+g")
    dialog = app.screen
    assert isinstance(dialog, AgentSetupDialog)
    if model is not None:
        dialog.query_one("#setup-agent", Select).value = "model"
        await pilot.pause()
        dialog.query_one("#setup-model", Input).value = model
    dialog.query_one("#setup-paused", Checkbox).value = paused
    await pilot.press("ctrl+s")
    [screen] = [s for s in app.screen_stack if isinstance(s, AgentRunScreen)]
    await until(pilot, lambda: screen.episode is not None, "the agent's session")
    return screen


async def halted(pilot: Pilot, screen: AgentRunScreen, steps: int) -> None:
    await until(
        pilot,
        lambda: screen.driver.waiting and screen.steps_shown == steps,
        f"the agent to pause after {steps} steps",
    )


def step_entries(screen: AgentRunScreen) -> list[str]:
    return [e for e in screen.step_log.entries if e.lstrip().startswith("#") or "\n#" in e]


async def test_the_reference_agent_solves_a_demo_task_live_to_the_result(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_agent(pilot, app)
        task = screen.task_row
        assert task.task == "handle_time" and not task.interactive
        await until(pilot, lambda: isinstance(app.screen, ResultScreen), "the result screen")
        await until(pilot, lambda: "Reward" in screen_text(app), "the result drawn")
        text = screen_text(app)
        assert "Reward 1.00" in text and "Queries 3" in text and task.gold[0] in text
        entries = step_entries(screen)
        assert [e.split("\n")[0] for e in entries] == [
            "#1 query",
            "#2 query",
            "#3 query",
            "#4 submit",
        ]
        assert "SELECT" in entries[0] and "record" in entries[0]  # the query and what came back
        assert "Reward 1.00" in entries[-1]
        await pilot.press("escape")  # back to the finished run, then to the tasks
        assert app.screen is screen and "finished" in screen_text(app)
        await pilot.press("escape")
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, TaskBrowser)
    store = Store(tmp_path / "sessions.db")
    [session] = store.sessions(task_idx=task.idx)
    participant = store.get_participant(session.participant_id)
    assert (participant.kind, participant.name) == ("agent", "reference")
    assert session.status == "submitted" and store.grade(session.id).reward == 1.0


async def test_paused_the_agent_advances_one_step_per_key(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_agent(pilot, app, paused=True)
        await halted(pilot, screen, 0)
        assert screen.episode.query_count == 0 and "paused" in screen_text(app)
        await pilot.press("s")
        await halted(pilot, screen, 1)
        assert screen.episode.query_count == 1 and len(step_entries(screen)) == 1
        await pilot.press("s")
        await halted(pilot, screen, 2)
        assert screen.episode.query_count == 2 and len(step_entries(screen)) == 2
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen), "the result screen")
        assert screen.steps_shown == 4


async def test_stop_leaves_the_session_in_progress_and_a_new_run_resumes_it(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_agent(pilot, app, paused=True)
        await pilot.press("s")
        await halted(pilot, screen, 1)
        await pilot.press("x")
        await until(pilot, lambda: screen.driver.state == "stopped", "the agent to stop")
        session_id = screen.episode.session_id
        assert "stopped" in screen_text(app)
        store = Store(tmp_path / "sessions.db")
        assert store.session(session_id).status == "in_progress"
        await pilot.press("escape")
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, TaskBrowser)
        again = await start_agent(pilot, app, words=None)
        assert again.episode.session_id == session_id
        assert any("Resumed" in e for e in again.step_log.entries)
        await until(pilot, lambda: isinstance(app.screen, ResultScreen), "the result screen")
        assert store.session(session_id).status == "submitted"
        assert store.grade(session_id).reward == 1.0


async def test_take_over_opens_the_workspace_on_a_fork_with_the_agents_history(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_agent(pilot, app, paused=True)
        await pilot.press("s")
        await halted(pilot, screen, 1)
        await pilot.press("s")
        await halted(pilot, screen, 2)
        agent_session = screen.episode.session_id
        agent_queries = [e.text for e in screen.episode.events if e.kind == "query"]
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.screen, Workspace), "the workspace")
        await wait_for_workers(pilot, app)
        workspace = app.screen
        episode = workspace.episode
        assert episode.session.parent_session_id == agent_session
        assert episode.session_id != agent_session
        assert app.store.get_participant(episode.session.participant_id).name == "ann"
        editor = workspace.query_one("#editor", QueryEditor)
        assert len(agent_queries) == 2 and editor.past_queries == agent_queries
        assert editor.text == agent_queries[-1]
        task = workspace.task_row
        await submit(pilot, app, task.gold[0])
        assert isinstance(app.screen, ResultScreen) and "Queries 2" in screen_text(app)
    store = Store(tmp_path / "sessions.db")
    assert store.session(agent_session).status == "in_progress"
    assert store.events(agent_session)[-1].payload.get("event") == "taken_over"


async def test_from_the_workspace_the_human_session_is_paused_and_left(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, TASK_WORDS)
        human = app.screen.episode
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Run agent" in titles
        screen = await start_agent(pilot, app, words=None, paused=True)
        await halted(pilot, screen, 0)
        assert human.paused and screen.task_row.key == human.task.key
        assert screen.episode.session_id != human.session_id
        await pilot.press("escape")
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, TaskBrowser)
        assert "Run agent" in [c.title for c in app.get_system_commands(app.screen)]


async def test_a_model_failure_is_shown_and_the_session_stays_usable(tmp_path: Path) -> None:
    register_script("broken-agent", lambda: [ScriptedFailure("auth", "invalid api key")])
    try:
        app = demo_app(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_agent(pilot, app, model="scripted/broken-agent")
            await until(pilot, lambda: screen.driver.state == "failed", "the failure")
            await pilot.pause()
            assert app.is_running and app.screen is screen
            assert any("auth" in str(n.message) for n in app._notifications)
            assert "stopped by an error" in screen_text(app)
            assert screen.episode.status == "in_progress"
            assert screen.check_action("resume", ()) and screen.check_action("take_over", ())
            # an unknown model fails before any session opens: reported, the app carries on
            await pilot.press("escape")
            await start_agent_unknown(pilot, app)
    finally:
        unregister_script("broken-agent")


async def start_agent_unknown(pilot: Pilot, app: CrmArenaApp) -> None:
    await pilot.press("ctrl+g")
    dialog = app.screen
    dialog.query_one("#setup-agent", Select).value = "model"
    await pilot.pause()
    dialog.query_one("#setup-model", Input).value = "scripted/no-such-script"
    await pilot.press("ctrl+s")
    screen = app.screen
    assert isinstance(screen, AgentRunScreen)
    await until(pilot, lambda: "could not run" in screen_text(app), "the error")
    assert any("no-such-script" in str(n.message) for n in app._notifications)
    assert screen.episode is None and not screen.check_action("resume", ())


def test_the_setup_starts_from_the_configured_models(monkeypatch) -> None:
    from crmarena_tui.screens.agent_setup_dialog import default_config, user_choices
    from crmarena_tui.settings.config import load_settings

    assert default_config(load_settings()).agent == "reference"
    monkeypatch.setenv("CRMARENA_TUI_AGENT_MODEL", "openai/gpt-4o-mini")
    monkeypatch.setenv("CRMARENA_TUI_USER_MODEL", "openai/gpt-4o")
    monkeypatch.setenv("CRMARENA_TUI_API_BASE", "http://127.0.0.1:8000/v1")
    config = default_config(load_settings(), aided=True)
    assert (config.agent, config.user, config.api_base, config.aided) == (
        "openai/gpt-4o-mini",
        "openai/gpt-4o",
        "http://127.0.0.1:8000/v1",
        True,
    )
    assert [v for _, v in user_choices(config, "openai/gpt-4o")] == [
        "scripted",
        "openai/gpt-4o",
        "human",
    ]


async def test_a_python_agent_runs_from_the_agent_dialog_step_by_step(tmp_path: Path) -> None:
    """Issue 26: `ctrl+g`, "a model or your own", `FILE.py:NAME`: the researcher's agent works the
    task live, one step per action, paused and single-stepped like a model agent."""
    example = Path(__file__).resolve().parents[2] / "examples" / "none_baseline.py"
    app = demo_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_agent(
            pilot,
            app,
            "b2b single-turn quote approval",
            paused=True,
            model=f"{example}:NoneBaseline",
        )
        await halted(pilot, screen, 0)
        await pilot.press("s")  # one step: the first query
        await halted(pilot, screen, 1)
        assert [e.split("\n")[0] for e in step_entries(screen)] == ["#1 query"]
        await pilot.press("r")  # run on
        await until(pilot, lambda: isinstance(app.screen, ResultScreen), "the result screen")
        await until(pilot, lambda: "Reward" in screen_text(app), "the result drawn")
        assert [e.split("\n")[0] for e in step_entries(screen)] == [
            "#1 query",
            "#2 query",
            "#3 submit",
        ]
    with Store(tmp_path / "sessions.db") as store:
        [session] = store.sessions()
        person = store.get_participant(session.participant_id)
        assert person.name == "none-baseline" and session.status == "submitted"
