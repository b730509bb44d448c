"""A session submitted but never graded (the app killed between the two, issue 28's fault test)
is graded when the app next shows its participant's statuses, under the session's protocol."""

from __future__ import annotations

from pathlib import Path

from crmarena_tui.app.app import CrmArenaApp, PlayOptions
from crmarena_tui.storage import Store
from crmarena_tui.tasks.loaders import load_tasks
from tests.support.app_support import SAMPLE, SIZE, FakeOrg, wait_for_workers
from tests.support.spec_support import session_spec


def test_setup_is_a_submitted_session_without_a_grade(tmp_path: Path) -> None:
    sid = _lost(tmp_path)
    with Store(tmp_path / "sessions.db") as store:
        assert store.session(sid).status == "submitted" and store.grade(sid) is None


def _lost(tmp_path: Path) -> int:
    task = next(t for t in load_tasks(str(SAMPLE)) if t.answer == [None] or t.answer == ["None"])
    with Store(tmp_path / "sessions.db") as store:
        ann = store.participant("human", "ann")
        session = store.create_session(
            session_spec(ann, task, "local", "fake", settings={"protocol": "workbench"})
        )
        store.append_event(session.id, "human", "submit", {"answer": "None"})
        store.set_status(session.id, "submitted", ended_at=1.0, active_seconds=1.0)
        return session.id


async def test_the_app_grades_a_submitted_session_that_lost_its_grade(tmp_path: Path) -> None:
    sid = _lost(tmp_path)
    org = FakeOrg()
    options = PlayOptions(tasks=str(SAMPLE), participant="ann", db=tmp_path / "sessions.db")
    app = CrmArenaApp(options, org_factory=lambda org_type: org)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
    with Store(tmp_path / "sessions.db") as store:
        grade = store.grade(sid)
        assert grade is not None and grade.reward == 1.0  # "None" on a None task
        assert grade.protocol == "workbench"
