"""A run's participant is named by its configuration (`<model>/<strategy>[/aided]...`), as
imported runs are; a database whose agents were named by their model alone still resumes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from crmarena_tui.agents.react import ReactAgent
from crmarena_tui.agents.tool_calling import ToolCallingAgent
from crmarena_tui.session.runner import BatchRunner, RunOptions
from crmarena_tui.storage import Store
from tests.fakes.scripted_llm import ScriptedLLM
from tests.session.test_runner import TASKS, runner, solver
from tests.support.agents_llm_support import TinyOrg


def test_a_run_is_named_by_its_configuration(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    runner(db).run()
    aided = BatchRunner(
        db,
        TASKS[:1],
        RunOptions(agent="scripted/solver", aided=True),
        agent_factory=lambda: ReactAgent(ScriptedLLM(solver, model="scripted/solver"), aided=True),
        org_factory=lambda task: TinyOrg(),
    )
    assert aided.run().complete
    tools = ToolCallingAgent(ScriptedLLM(solver, model="scripted/solver"), privacy_aware=True)
    with Store(db) as store:
        made = aided.service.agent_participant(store, tools)
        aided_session = next(s for s in store.sessions() if s.aided)
        aided_name = store.get_participant(aided_session.participant_id).name
        names = sorted(p.name for p in store.participants("agent"))
    assert made.name == "scripted/solver/tool_call/privacy-aware"
    assert aided_name == "scripted/solver/react/aided"
    assert names == [
        "scripted/solver/react",
        "scripted/solver/react/aided",
        "scripted/solver/tool_call/privacy-aware",
    ]


def test_a_database_named_by_model_alone_still_resumes(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    holder: dict = {}

    def stop_after_first(task, step):
        holder["runner"].stop()

    first = holder["runner"] = runner(db, concurrency=1, on_step=stop_after_first)
    assert not first.run().complete
    with sqlite3.connect(db) as raw:  # as agents were named before configurations
        raw.execute("UPDATE participants SET name = 'scripted/solver'")
    report = runner(db).run()
    assert report.complete and report.results[0].resumed
    with Store(db) as store:
        assert [p.name for p in store.participants("agent")] == ["scripted/solver"]
        assert len(store.sessions()) == 4
