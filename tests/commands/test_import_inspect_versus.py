"""`report --versus` pairs a run imported from an Inspect eval log (written by Inspect's own
writer, a test-only dependency) with a native run on the same tasks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.demo.sources import load_task_table
from crmarena_tui.storage import Store
from tests.support.inspect_support import grade, graded
from tests.support.spec_support import session_spec

WINS = {0: ("C", 1.0), 1: ("C", 0.0), 2: ("I", 1.0), 3: ("I", 0.0)}  # idx: (inspect's, native)


def _inspect_log(path: Path, tasks: dict[int, object]) -> Path:
    log_api = pytest.importorskip("inspect_ai.log")
    from inspect_ai.model import ChatMessageAssistant, ChatMessageUser
    from inspect_ai.scorer import Score

    samples = [
        log_api.EvalSample(
            id=idx,
            epoch=1,
            input=task.query,
            target="x",
            metadata={"task_idx": idx, "task_source": "demo"},
            messages=[ChatMessageUser(content=task.query), ChatMessageAssistant(content="x")],
            scores={"match": Score(value=WINS[idx][0], answer="x")},
        )
        for idx, task in tasks.items()
    ]
    spec = log_api.EvalSpec(
        created="2026-11-30T10:00:00+00:00", task="crm", model="openai/o3", solver="react",
        dataset=log_api.EvalDataset(samples=len(samples)), config=log_api.EvalConfig(),
    )  # fmt: skip
    log = log_api.EvalLog(status="success", eval=spec, samples=samples, plan=log_api.EvalPlan())
    log_api.write_eval_log(log, str(path))
    return path


def test_an_imported_inspect_run_is_paired_with_a_native_one(tmp_path: Path, capsys) -> None:
    table = load_task_table("demo")
    tasks = {idx: table.full(table[idx]) for idx in WINS}
    assert all(task.idx == idx for idx, task in tasks.items())
    db = tmp_path / "s.db"
    with Store(db) as store:
        native = store.participant("agent", "reference", model="reference", settings={"strategy": "scripted"})  # fmt: skip
        for idx, task in tasks.items():
            sid = store.create_session(session_spec(native, task, "local", "demo:b2b")).id
            store.append_event(sid, "agent", "submit", {"answer": "y"})
            store.set_status(sid, "submitted", ended_at=1.0e9, active_seconds=1.0)
            graded(store, sid, grade("y", WINS[idx][1], protocol="upstream"), 1.0e9)
    path = _inspect_log(tmp_path / "o3.eval", tasks)
    assert main(["import", str(path), "--db", str(db)]) == 0
    capsys.readouterr()
    assert (
        main(["report", "--db", str(db), "--versus", "openai/o3", "reference", "--format", "json"])
        == 0
    )
    paired = json.loads(capsys.readouterr().out)["paired"]
    assert paired["shared_tasks"] == 4
    overall = paired["overall"]
    assert (overall["a_success"], overall["b_success"]) == (0.5, 0.5)
    assert (overall["a_only"], overall["b_only"], overall["both"], overall["neither"]) == (
        1,
        1,
        1,
        1,
    )
