"""The submit dialog's pick list ranks an exact code or Id match first (issue 36): typing `ak`
shows AK before other lines that hold the letters, and a full Id before longer Ids it begins."""

from __future__ import annotations

from textual.app import App

from crmarena_tui.graders.answer_choices import Choice
from crmarena_tui.screens.submit_dialog import SubmitDialog


def shown(dialog: SubmitDialog, typed: str) -> list[str]:
    return [str(s.value) for s in dialog._selections(typed)]


def test_an_exact_code_or_id_comes_first() -> None:
    dialog = SubmitDialog(
        choices=[
            Choice("AR", "Arkansas"),
            Choice("WA", "Washington", "Oakdale office"),
            Choice("AK", "Alaska"),
            Choice("001Wt00000AbcDEF1", "Acme", "r1"),
            Choice("001Wt00000AbcDEF", "Acme Holdings", "r1"),
            Choice("None", "there is no such item"),
        ]
    )
    assert shown(dialog, "ak")[:2] == ["AK", "WA"]  # AK first, though listed after WA
    assert shown(dialog, "001wt00000abcdef") == ["001Wt00000AbcDEF", "001Wt00000AbcDEF1"]
    assert shown(dialog, "washington") == ["WA"]
    assert shown(dialog, "")[:3] == ["AR", "WA", "AK"]  # nothing typed: the list's order
    assert shown(dialog, "acme")[0] == "001Wt00000AbcDEF1"  # no exact match: the list's order


async def test_the_filter_highlights_the_exact_match() -> None:
    dialog = SubmitDialog(choices=[Choice("WA", "Oakdale"), Choice("AK", "Alaska")])

    class Host(App):
        def on_mount(self) -> None:
            self.push_screen(dialog)

    async with Host().run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        dialog.query_one("#pick-filter").value = "ak"
        await pilot.pause()
        picks = dialog.query_one("#picks")
        assert picks.highlighted == 0 and str(picks.get_option_at_index(0).value) == "AK"
