"""The one-line choice that stands in for a Select on the sessions list: keys and clicks step
through its options, each change is posted once, and the list filters by it."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import on
from textual.app import App, ComposeResult

from crmarena_tui.screens.sessions_screen import SessionsScreen
from crmarena_tui.widgets.choice_chip import ChoiceChip
from tests.support.app_support import SIZE, screen_text, wait_for_workers
from tests.support.app_trajectory_support import push, research_app
from tests.support.pilot_wait_support import wait_until
from tests.support.upstream_results_support import imported_database


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return imported_database(tmp_path_factory.mktemp("imported"), 40)


class OneChoice(App):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def compose(self) -> ComposeResult:
        yield ChoiceChip([("humans", "human"), ("agents", "agent")], prompt="anyone", id="kind")

    @on(ChoiceChip.Changed, "#kind")
    def _changed(self, event: ChoiceChip.Changed) -> None:
        self.seen.append(event.value)


async def test_keys_and_clicks_step_through_the_choices() -> None:
    app = OneChoice()
    async with app.run_test(size=(30, 3)) as pilot:
        chip = app.query_one(ChoiceChip)
        chip.focus()
        await pilot.pause()
        assert chip.is_blank() and "◂ anyone ▸" in screen_text(app)
        await pilot.press("enter")
        assert chip.value == "human" and "◂ humans ▸" in screen_text(app)
        await pilot.press("space", "right")  # past the last: no choice again
        assert chip.is_blank()
        await pilot.press("left")
        assert chip.value == "agent"
        await pilot.press("backspace")
        assert chip.is_blank()
        await pilot.click(ChoiceChip)
        assert chip.value == "human"
        chip.value = "human"  # the same choice: nothing changes, nothing is posted
        await pilot.pause()
        assert app.seen == ["human", "agent", "", "agent", "", "human"]
        with pytest.raises(ValueError, match="'robot' is not one of the choices"):
            chip.value = "robot"


async def test_the_sessions_list_filters_by_participant_kind_from_the_keyboard(
    tmp_path: Path,
    database: Path,
) -> None:
    (tmp_path / "sessions.db").write_bytes(database.read_bytes())
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, SessionsScreen())
        screen = app.screen
        assert isinstance(screen, SessionsScreen) and screen.index is not None
        total = len(screen.index.rows)
        screen.query_one("#ss-kind", ChoiceChip).focus()
        await pilot.press("enter", "enter")  # humans, then agents
        await wait_for_workers(pilot, app)
        people = screen.index.people
        assert {people[r.participant_id].kind for r in screen.shown} == {"agent"}
        assert len(screen.shown) == total  # (the imported sessions are all agents')
        await pilot.press("left")  # humans: none
        # an empty list says what to do (issue 36), where it said "0 of 40 sessions"
        empty = "No session has these choices: set one back to any"
        await wait_until(pilot, lambda: empty in screen_text(app), "the empty state")
        assert screen.shown == []
