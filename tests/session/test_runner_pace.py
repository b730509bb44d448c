"""`run --pace SECONDS` (issue 36): each agent waits SECONDS after a step before its next one, so
a presenter can follow the session live; the wait goes through an injected clock here."""

from __future__ import annotations

from pathlib import Path

import pytest

from crmarena_tui.agents.react import ReactAgent
from crmarena_tui.cli import main
from crmarena_tui.session.runner import BatchRunner, RunOptions
from crmarena_tui.storage import Store
from tests.fakes.scripted_llm import ScriptedLLM
from tests.session.test_runner import TASKS, solver
from tests.support.agents_llm_support import TinyOrg


def test_each_step_but_the_last_waits_the_pace_before_the_next(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    waits: list[tuple[float, int]] = []  # (seconds, events stored when the wait began)

    def wait(seconds: float) -> None:
        with Store(db) as store:
            waits.append((seconds, sum(len(store.events(s.id)) for s in store.sessions())))

    report = BatchRunner(
        db,
        TASKS[:2],
        RunOptions(agent="scripted/solver", concurrency=1, pace=2.5),
        agent_factory=lambda: ReactAgent(ScriptedLLM(solver, model="scripted/solver")),
        org_factory=lambda task: TinyOrg(),
        wait=wait,
    ).run()
    assert [r.outcome for r in report.results] == ["submitted", "submitted"]
    assert [r.steps for r in report.results] == [2, 2]  # a query, then the answer
    assert [seconds for seconds, _ in waits] == [2.5, 2.5]  # after each query; none at the end
    first, second = (stored for _, stored in waits)
    assert first > 0 and second > first  # the step was stored before its wait began


def test_no_pace_no_wait(tmp_path: Path) -> None:
    waits: list[float] = []
    BatchRunner(
        tmp_path / "s.db",
        TASKS[:1],
        RunOptions(agent="scripted/solver", concurrency=1),
        agent_factory=lambda: ReactAgent(ScriptedLLM(solver, model="scripted/solver")),
        org_factory=lambda task: TinyOrg(),
        wait=waits.append,
    ).run()
    assert waits == []


def test_the_cli_passes_the_pace_and_refuses_a_negative_one(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    seen: list[float] = []

    def fake_init(self, db_path, tasks, options, **kw) -> None:
        seen.append(options.pace)
        raise SystemExit(0)

    monkeypatch.setattr(BatchRunner, "__init__", fake_init)
    monkeypatch.setattr("crmarena_tui.commands.run._check", lambda *a: None)
    db = str(tmp_path / "s.db")
    assert main(["run", "--agent", "reference", "--pace", "-1", "--db", db]) == 2
    assert "--pace must be 0 or more seconds, not -1" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # (the runner stops there, the pace in hand)
        main(["run", "--agent", "reference", "--pace", "0.75", "--org", "demo", "--db", db])
    assert seen == [0.75]
