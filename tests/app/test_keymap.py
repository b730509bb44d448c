"""Key bindings have ids; the `keymap` setting remaps them; docs/settings.md lists every id."""

from __future__ import annotations

import json
from pathlib import Path

from crmarena_tui.app.keymap import all_bindings, unknown_ids
from crmarena_tui.storage import Store
from crmarena_tui.widgets.query_editor import QueryEditor
from tests.screens.test_app_workspace import fake_app
from tests.support.app_support import SIZE, open_task, screen_text, wait_for_workers

KEYS_GUIDE = Path(__file__).resolve().parents[2] / "docs" / "settings.md"


def test_every_binding_has_an_id_and_the_keys_guide_lists_it_with_its_key() -> None:
    bindings = all_bindings()
    assert len(bindings) >= 70 and bindings["workspace.run-query"].key == "ctrl+r"
    guide = KEYS_GUIDE.read_text(encoding="utf-8")
    assert [i for i, b in bindings.items() if f"`{i}` {b.key}" not in guide] == []


def test_no_binding_lacks_an_id() -> None:
    import importlib
    import pkgutil

    from textual.binding import Binding

    from crmarena_tui import screens, widgets

    without = []
    for package in (screens, widgets):
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            mine = [
                c for c in vars(module).values() if getattr(c, "__module__", "") == module.__name__
            ]
            for cls in mine:
                for binding in getattr(cls, "__dict__", {}).get("BINDINGS", []):
                    if isinstance(binding, Binding) and not binding.id:
                        without.append(f"{info.name}: {binding.key}")
    assert without == []


def test_unknown_ids_are_the_ones_no_binding_has() -> None:
    assert unknown_ids({}) == []
    assert unknown_ids({"workspace.run-query": "f5", "workspace.run-qeury": "f5"}) == [
        "workspace.run-qeury"
    ]


async def test_the_keymap_setting_remaps_a_key(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CRMARENA_TUI_KEYMAP", json.dumps({"workspace.run-query": "f5"}))
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        app.screen.query_one("#editor", QueryEditor).load_text("SELECT Id FROM Case")
        await pilot.press("ctrl+r")  # the old key does nothing now
        await wait_for_workers(pilot, app)
        store = Store(tmp_path / "sessions.db")
        [session] = store.sessions()
        assert [e.kind for e in store.events(session.id)].count("query") == 0
        await pilot.press("f5")
        await wait_for_workers(pilot, app)
        assert [e.kind for e in store.events(session.id)].count("query") == 1
        assert "f5 Run query" in screen_text(app)  # the footer shows the new key


async def test_an_unknown_id_is_named_in_a_warning(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CRMARENA_TUI_KEYMAP", json.dumps({"workspace.nope": "f5"}))
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        warnings = [n for n in app._notifications if n.title == "keymap setting"]
        assert len(warnings) == 1 and "'workspace.nope'" in warnings[0].message
