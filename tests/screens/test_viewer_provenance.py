"""The trajectory viewer's third header line: the session's org clock, schema and prompt sources
and the judge of its grade (reports/trajectory.py `Trajectory.provenance`)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from crmarena_tui.graders.base import Grade
from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer
from crmarena_tui.storage import Store
from tests.support.app_support import SIZE, screen_text
from tests.support.app_trajectory_support import T0, push, research_app, seed

FACTS = {
    "org_today": "2025-06-01",
    "org_clock": "run",
    "schema_source": "hub:Salesforce/CRMArenaPro/b2b_schema",
    "prompt_source": "upstream@32b609a",
}


def with_provenance(db: Path, session_id: int) -> None:
    """The session as one run under this change records it, graded by a judge."""
    with sqlite3.connect(db) as conn:
        (settings,) = conn.execute(
            "SELECT settings FROM sessions WHERE id = ?", (session_id,)
        ).fetchone()
        conn.execute(
            "UPDATE sessions SET settings = ? WHERE id = ?",
            (json.dumps({**json.loads(settings), **FACTS}), session_id),
        )
    with Store(db) as store:
        grade = Grade(
            answer="005Wt000003NIvNIAW",
            parsed_answer=["005Wt000003NIvNIAW"],
            reward=1.0,
            metrics={"judge_temperature": 0.0, "judge_instructions": "upstream@32b609a"},
            grader="exact_match",
            extraction="llm",
            judge_model="openai/gpt-4o-2024-08-06",
            protocol="upstream",
        )
        store.add_grade(session_id, grade, graded_at=T0 + 10)


async def test_the_header_shows_the_sessions_provenance(tmp_path: Path) -> None:
    ids = seed(tmp_path / "sessions.db")
    with_provenance(tmp_path / "sessions.db", ids["agent"])
    app = research_app(tmp_path)
    async with app.run_test(size=(200, 40)) as pilot:
        await push(pilot, TrajectoryViewer(ids["agent"]))
        text = screen_text(app)
    assert (
        "org clock 2025-06-01 (run's date) · schema hub:Salesforce/CRMArenaPro/b2b_schema · "
        "prompts upstream@32b609a · judge openai/gpt-4o-2024-08-06 (temperature 0, "
        "instructions upstream@32b609a)"
    ) in text


async def test_a_session_from_before_shows_unknown_never_a_guess(tmp_path: Path) -> None:
    ids = seed(tmp_path / "sessions.db")
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, TrajectoryViewer(ids["ann"]))
        text = screen_text(app)
    assert "org clock unknown · schema unknown · prompts unknown" in text
