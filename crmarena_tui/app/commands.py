"""The app's command palette (`ctrl+p`): every binding the current footer shows, "Run agent"
(not in a study), "Studies" (the researcher's study screen) and "About", which says which
sessions database the app writes to and why (a `CRMARENA_TUI_DB` set elsewhere redirects every
session)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import SystemCommand

if TYPE_CHECKING:
    from textual.dom import DOMNode
    from textual.screen import Screen

    from crmarena_tui.app.app import CrmArenaApp
    from crmarena_tui.settings.config import Settings


def db_origin(option: Path | None, settings: Settings) -> str:
    """What chose the sessions database: `--db`, `CRMARENA_TUI_DB`, the config file, or the
    default place."""
    from crmarena_tui.settings.locations import sessions_db_origin

    return sessions_db_origin(option, settings.db)


def system_commands(app: CrmArenaApp, screen: Screen) -> Iterable[SystemCommand]:
    """The footer's bindings for `screen` (each once), then "Run agent" and "About"."""
    seen = {"Quit"}
    for active in screen.active_bindings.values():
        binding = active.binding
        if not binding.show or not binding.description or binding.description in seen:
            continue
        seen.add(binding.description)
        key = app.get_key_display(binding)
        yield SystemCommand(
            binding.description,
            f"{binding.description} (key: {key})",
            partial(_run_bound, app, binding.action, active.node),
        )
    agents = not app.options.study  # a study's participant runs no agent
    if agents and "Run agent" not in seen and callable(getattr(screen, "action_run_agent", None)):
        yield SystemCommand(
            "Run agent",
            "Run an agent on this task and watch it live (key: ctrl+g)",
            partial(_run_bound, app, "run_agent", screen),
        )
    if "Study" not in seen and not app.options.study and not app.blind:
        from crmarena_tui.app.study import open_study_screen

        yield SystemCommand(
            "Studies",
            "Baseline studies: each participant's progress and active time",
            partial(open_study_screen, app),
        )
    yield SystemCommand(
        "About", "Version, sessions database, tasks, org and modes", partial(show_about, app)
    )


async def _run_bound(app: CrmArenaApp, action: str, node: DOMNode) -> None:
    await app.run_action(action, node)


def about_text(app: CrmArenaApp) -> str:
    """What the About notice says (plain text)."""
    from crmarena_tui import __version__

    options = app.options
    db = str(app.db_path) if app.db_path is not None else "not open yet"
    lines = [
        f"crmarena-tui {__version__}",
        f"Sessions database: {db}" + (f" (from {app.db_origin})" if app.db_origin else ""),
        f"Tasks: {options.tasks}",
        f"Org: {options.org or 'each task its own org'}",
        f"Participant: {app.participant_name or 'not given yet'}",
        f"Blind mode: {'on' if app.blind else 'off'}",
    ]
    if app.options.study:
        lines.append(f"Study: {app.options.study}")
    return "\n".join(lines)


def show_about(app: CrmArenaApp) -> None:
    app.notify(about_text(app), title="About", timeout=30)
