"""The workspace shows the org's warning about values an import left as text, on the session's
first query that leans on them, as a notification (issue 25, part 6)."""

from __future__ import annotations

from pathlib import Path

from crmarena_tui.app.app import CrmArenaApp, PlayOptions
from crmarena_tui.widgets.query_editor import QueryEditor
from tests.support.app_support import SAMPLE, SIZE, FakeOrg, open_task, wait_for_workers

WARNING = (
    "Warning from the org: Case.CreatedDate holds 3 datetime values the import kept as text "
    "(e.g. '01/02/2021 10:01 AM')"
)


class WarningOrg(FakeOrg):
    """Answers like FakeOrg; a query naming CreatedDate carries the org's warning."""

    def query(self, soql: str, *, today=None):
        result = super().query(soql, today=today)
        if result.ok and "CreatedDate" in soql:
            result.warning = WARNING
        return result


def _shown(app: CrmArenaApp) -> int:
    return sum(1 for n in app._notifications if str(n.message) == WARNING)


async def test_the_first_query_leaning_on_unconverted_values_notifies_once(tmp_path: Path) -> None:
    org = WarningOrg()
    app = CrmArenaApp(
        PlayOptions(tasks=str(SAMPLE), participant="ann", db=tmp_path / "sessions.db"),
        org_factory=lambda org_type: org,
    )
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        editor = app.screen.query_one("#editor", QueryEditor)
        for query, expected in [
            ("SELECT Id FROM Case", 0),
            ("SELECT Id FROM Case WHERE CreatedDate != null", 1),
            ("SELECT Id FROM Case ORDER BY CreatedDate", 1),  # once per session
        ]:
            editor.load_text(query)
            await pilot.press("ctrl+r")
            await wait_for_workers(pilot, app)
            assert _shown(app) == expected, query
        events = [e for e in app.screen.episode.events if e.kind == "system"]
        assert [e.payload.get("text") for e in events] == [WARNING]
