"""The leave dialog names the task as the workspace's title does: styled, never as raw markup,
and a task's own text with brackets in it is shown as written."""

from __future__ import annotations

from types import SimpleNamespace

from textual.app import App
from textual.widgets import Static

from crmarena_tui.screens.leave_dialog import LeaveDialog
from crmarena_tui.tasks.blind import BlindView


def _task(org_type: str) -> SimpleNamespace:
    return SimpleNamespace(
        idx=203, task="activity_priority", query="", org_type=org_type, interactive=False
    )


async def _shown(heading: str) -> str:
    app: App = App()
    async with app.run_test() as pilot:
        app.push_screen(LeaveDialog(heading))
        await pilot.pause()
        return "\n".join(str(s.render()) for s in app.screen.query(Static))


async def test_the_task_is_named_without_its_markup() -> None:
    shown = await _shown(BlindView().heading(_task("b2b")))
    assert "#203 · b2b" in shown
    assert "[b]" not in shown and "[/]" not in shown and "[dim]" not in shown


async def test_brackets_in_a_tasks_text_are_shown_as_written() -> None:
    shown = await _shown(BlindView().heading(_task("b2b [red]x[/red]")))
    assert "b2b [red]x[/red]" in shown
