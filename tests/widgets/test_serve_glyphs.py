"""What the browser (`serve`) draws (issue 29): the workspace clock uses words, not a clock glyph
the browser's terminal font lacks (it drew a box, and the clock was clipped at the right edge),
and the task panel's section titles are bold, not coloured and underlined like links."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from textual.widgets import Markdown

from crmarena_tui.app.app import CrmArenaApp, PlayOptions
from crmarena_tui.screens.workspace import Workspace
from crmarena_tui.widgets.session_clock import SessionClock
from tests.support.app_support import SAMPLE, SIZE, FakeOrg, open_task


async def test_the_clock_and_the_section_titles_draw_in_any_font(tmp_path: Path) -> None:
    org = FakeOrg()
    options = PlayOptions(tasks=str(SAMPLE), participant="ann", db=tmp_path / "sessions.db")
    app = CrmArenaApp(options, org_factory=lambda org_type: org)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        workspace = app.screen
        assert isinstance(workspace, Workspace)
        clock = str(workspace.query_one("#clock", SessionClock).render())
        assert clock.startswith("time 00:0")
        # every character of the clock is one a monospace font has: letters, digits, punctuation
        assert all(unicodedata.category(c)[0] in "LNPZ" and ord(c) < 0x2000 for c in clock)
        titles = workspace.query_one("#task-panel").query("MarkdownH2")
        assert titles, "the task panel has section titles"
        for title in titles:
            style = title.styles.text_style
            assert style.bold and not style.underline
        assert workspace.query(Markdown)
