"""Keys that work in a browser (issue 36): served through textual-serve (`App.is_web`), every
binding on a key the browser keeps for itself (ctrl+t, ctrl+w, ctrl+q...) has another key; the
footer shows that key and it does the action."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.app.app import CrmArenaApp, PlayOptions
from crmarena_tui.app.keymap import BROWSER_KEYS, BROWSER_RESERVED, all_bindings
from crmarena_tui.widgets.chat_pane import ChatPane
from tests.support.app_support import SAMPLE, SIZE, FakeOrg, open_task, screen_text


def browser_reserved(key: str) -> bool:
    """A browser keeps `key` (one key, as Textual names it) for itself."""
    return key in BROWSER_RESERVED or key.startswith("ctrl+shift+")


def test_every_binding_on_a_key_the_browser_keeps_has_a_safe_one() -> None:
    bindings = all_bindings()
    reserved = {
        i for i, b in bindings.items() if any(browser_reserved(k) for k in b.key.split(","))
    }
    assert "workspace.chat" in reserved  # ctrl+t: a new tab in every browser
    assert reserved <= set(BROWSER_KEYS)
    for binding_id, keys in BROWSER_KEYS.items():
        assert binding_id in bindings
        assert not any(browser_reserved(k) for k in keys.split(","))


def chat_app(tmp_path: Path) -> CrmArenaApp:
    path = tmp_path / "b2b_interactive.json"  # the file name marks the tasks interactive
    path.write_text(json.dumps(json.loads(SAMPLE.read_text())))
    org = FakeOrg()
    return CrmArenaApp(
        PlayOptions(tasks=str(path), participant="ann", db=tmp_path / "s.db"),
        org_factory=lambda org_type: org,
    )


@pytest.mark.parametrize("served", [True, False])
async def test_served_the_footer_shows_the_safe_chat_key_and_it_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, served: bool
) -> None:
    monkeypatch.setattr(CrmArenaApp, "is_web", property(lambda self: served))
    app = chat_app(tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await open_task(pilot, app, "named entity")
        footer = screen_text(app).splitlines()[-1]
        chat = app.screen.query_one("#chat", ChatPane)
        if served:
            assert "f4 Chat" in footer and "^t" not in footer, footer
            assert "^\\ Quit" in footer and "^q" not in footer, footer
            await pilot.press("ctrl+t")  # (a browser never sends it: it opens a tab)
            assert app.screen.focused is not chat.input
            await pilot.press("f4")
        else:
            assert "^t Chat" in footer and "^q Quit" in footer, footer
            await pilot.press("ctrl+t")
        assert app.screen.focused is chat.input


async def test_served_the_keymap_setting_still_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(CrmArenaApp, "is_web", property(lambda self: True))
    monkeypatch.setenv("CRMARENA_TUI_KEYMAP", json.dumps({"workspace.chat": "f3"}))
    app = chat_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "named entity")
        await pilot.press("f3")
        assert app.screen.focused is app.screen.query_one("#chat", ChatPane).input
