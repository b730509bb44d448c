"""No control character of imported data reaches the terminal from the app (issue 38): a task,
a record value and a participant's name holding escape sequences are drawn with ESC as `␛`."""

from __future__ import annotations

import json
import re
from pathlib import Path

from rich.segment import Segment
from textual.widgets import Markdown

from crmarena_tui.app.app import CrmArenaApp, PlayOptions
from crmarena_tui.terminal_text import pictured
from crmarena_tui.widgets.control_pictures import ControlPictures
from crmarena_tui.widgets.results_table import ResultsTable
from tests.screens.test_app_workspace import run
from tests.support.app_support import (
    SAMPLE,
    SIZE,
    FakeOrg,
    open_task,
    screen_text,
    wait_for_workers,
)

# a window title set, the screen cleared, a C1 CSI (red), a carriage return, a bell
HOSTILE = "\x1b]0;pwned\x07 \x1b[2J \x9b31m red\r\x07 end"
CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")  # every control character but newline


def hostile_tasks(path: Path) -> Path:
    rows = json.loads(SAMPLE.read_text())
    for row in rows:
        if row["task"] == "quote_approval":
            row["query"] = f"Does the quote comply {HOSTILE} with company policy?"
    path.write_text(json.dumps(rows))
    return path


def test_pictures_keep_the_line_width() -> None:
    line = [Segment("│ "), Segment(f"ab{HOSTILE}cd" + " " * 12), Segment(" │")]
    drawn = ControlPictures().apply(line, None)  # type: ignore[arg-type]
    text = "".join(segment.text for segment in drawn)
    assert CONTROL.search(text) is None
    assert "␛]0;pwned" in text and "␛[2J" in text and "␛[31m" in text
    # the seven cells the pictures take are given back by the padding: the border stays
    assert text.startswith("│ ab␛]0;pwned␇ ") and text.endswith("endcd" + " " * 6 + "│")
    assert sum(s.cell_length for s in drawn) == sum(s.cell_length for s in line)
    assert pictured("a\x1bb\x9bc\x7fd\x00") == "a␛b␛[c␡d␀"


async def test_hostile_names_and_values_are_drawn_as_pictures(tmp_path: Path) -> None:
    org = FakeOrg()
    org.data["Account"][0]["Name"] = f"Acme {HOSTILE}"
    app = CrmArenaApp(
        PlayOptions(
            tasks=str(hostile_tasks(tmp_path / "tasks.json")),
            participant=f"ann {HOSTILE}",
            db=tmp_path / "sessions.db",
        ),
        org_factory=lambda org_type: org,
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        browser = screen_text(app)
        assert "as ann ␛]0;pwned ␛[2J" in browser and CONTROL.search(browser) is None
        await open_task(pilot, app, "quote approval")
        assert HOSTILE in app.screen.query_one("#task-text", Markdown).source  # kept exact
        workspace = screen_text(app)
        assert "␛]0;pwned" in workspace and "␛[2J" in workspace and "␛[31m" in workspace
        assert CONTROL.search(workspace) is None

        await run(pilot, app, "SELECT Id, Name FROM Account")
        table = app.screen.query_one("#result-table", ResultsTable)
        assert table.row_count == 1
        results = screen_text(app)
        assert "Acme ␛]0;pwned" in results and CONTROL.search(results) is None
        table.focus()
        await pilot.press("right", "enter")  # the Name cell shown whole
        await wait_for_workers(pilot, app)
        assert CONTROL.search(screen_text(app)) is None
        assert app.export_screenshot().count("␛") >= 1
