"""The key bar of every screen: it shows the keys of what has the focus, follows the focus to
other keys, and is rebuilt only when the keys it shows change."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Button

from crmarena_tui.widgets.key_footer import KeyFooter
from tests.support.app_support import screen_text
from tests.support.pilot_wait_support import wait_until


class Saving(Button):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+s", "press", "Save it")]


class Plain(Button):
    pass


class Keys(App):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("f2", "bell", "Ring")]

    def compose(self) -> ComposeResult:
        yield Plain("one", id="one")
        yield Plain("two", id="two")
        yield Saving("save", id="save")
        yield KeyFooter()


def recomposes(footer: KeyFooter) -> list[int]:
    calls: list[int] = []
    real = footer.recompose

    async def spy(*args: Any) -> Any:
        calls.append(1)
        return await real(*args)

    footer.recompose = spy  # type: ignore[method-assign]
    return calls


@pytest.mark.perf
async def test_the_footer_follows_the_keys_and_is_rebuilt_only_when_they_change() -> None:
    """A change of keys is shown on the key widgets already there (one mounted or removed for a
    key more or fewer), not by re-composing the footer: that re-composition was about 40% of a
    tab press's CPU in the workspace."""
    app = Keys()
    async with app.run_test(size=(80, 6)) as pilot:
        footer = app.query_one(KeyFooter)
        app.query_one("#one").focus()
        await wait_until(pilot, lambda: "Ring" in screen_text(app), "the app's key")
        text = screen_text(app)
        assert "Ring" in text and "Save it" not in text
        assert all(key.has_class("-compact") for key in footer.children)
        calls = recomposes(footer)
        before = list(footer.children)
        app.query_one("#two").focus()  # the same keys: nothing to rebuild
        for _ in range(3):
            app.screen.refresh_bindings()
        await wait_until(pilot, lambda: not footer._asked, "the footer's look at the keys")
        assert calls == [] and list(footer.children) == before
        app.query_one("#save").focus()  # one key more: shown, the others kept
        app.screen.refresh_bindings()
        await wait_until(pilot, lambda: "Save it" in screen_text(app), "the new key shown")
        assert calls == [] and "Ring" in screen_text(app)
        assert set(before) < set(footer.children) and len(footer.children) == len(before) + 1
        assert all(key.has_class("-compact") for key in footer.children)
        app.query_one("#one").focus()
        await wait_until(pilot, lambda: "Save it" not in screen_text(app), "the key gone")
        assert calls == [] and "Ring" in screen_text(app)
        assert list(footer.children) == before  # the key more removed, the others kept
