"""The protocol in the app: the setup dialog names it, a run the upstream protocol refuses says so
and names the way out, and the workbench lets the same run go."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Select

from crmarena_tui.app.app import CrmArenaApp, PlayOptions
from crmarena_tui.screens.agent_run_screen import AgentRunScreen
from crmarena_tui.screens.agent_setup_dialog import AgentSetupDialog
from tests.fakes.scripted_llm import register_script, unregister_script
from tests.screens.test_app_agent import TASK_WORDS, until
from tests.support.agents_llm_support import react
from tests.support.app_support import SIZE, screen_text, wait_for_workers


async def open_dialog(pilot, app: CrmArenaApp) -> AgentSetupDialog:
    await wait_for_workers(pilot, app)
    await pilot.press("slash")
    app.screen.query_one("#filter", Input).value = TASK_WORDS
    await pilot.pause()
    await pilot.press("ctrl+g")
    dialog = app.screen
    assert isinstance(dialog, AgentSetupDialog)
    return dialog


async def test_a_lenient_upstream_run_is_refused_with_the_way_out(tmp_path: Path) -> None:
    register_script("quiet", lambda: [react("x", "respond", "None")])
    try:
        options = PlayOptions(participant="ann", db=tmp_path / "s.db", lenient=True)
        app = CrmArenaApp(options)
        async with app.run_test(size=SIZE) as pilot:
            dialog = await open_dialog(pilot, app)
            assert "Protocol upstream" in screen_text(app)
            dialog.query_one("#setup-agent", Select).value = "model"
            await pilot.pause()
            dialog.query_one("#setup-model", Input).value = "scripted/quiet"
            await pilot.press("ctrl+s")
            screen = app.screen
            assert isinstance(screen, AgentRunScreen)
            await until(pilot, lambda: "could not run" in screen_text(app), "the refusal")
            said = " ".join(str(n.message) for n in app._notifications)
            assert "strict org only" in said and "--protocol workbench" in said
            assert screen.episode is None  # nothing stored
    finally:
        unregister_script("quiet")


async def test_the_workbench_runs_the_same_agent_on_a_lenient_org(tmp_path: Path) -> None:
    register_script("quiet", lambda: [react("x", "respond", "None")])
    try:
        options = PlayOptions(
            participant="ann", db=tmp_path / "s.db", lenient=True, protocol="workbench"
        )
        app = CrmArenaApp(options)
        async with app.run_test(size=SIZE) as pilot:
            dialog = await open_dialog(pilot, app)
            assert "Protocol workbench" in screen_text(app)
            dialog.query_one("#setup-agent", Select).value = "model"
            await pilot.pause()
            dialog.query_one("#setup-model", Input).value = "scripted/quiet"
            await pilot.press("ctrl+s")
            [screen] = [s for s in app.screen_stack if isinstance(s, AgentRunScreen)]
            await until(pilot, lambda: screen.episode is not None, "the agent's session")
            assert screen.episode.protocol == "workbench"
    finally:
        unregister_script("quiet")


def test_under_upstream_the_user_choices_offer_upstreams_user_model() -> None:
    from crmarena_tui.screens.agent_setup_dialog import user_choices
    from crmarena_tui.session.agent_driver import AgentRunConfig

    config = AgentRunConfig()
    upstream = [v for _, v in user_choices(config, None, "upstream")]
    assert upstream == ["scripted", "gpt-4o-2024-08-06", "human"]
    assert [v for _, v in user_choices(config, None, "workbench")] == ["scripted", "human"]
