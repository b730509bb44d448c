"""`study report` splits as `report` does (org type x single-turn / chat), names agents by their
configuration, has overall rows with their intervals, and names each row's grading protocol."""

from __future__ import annotations

import json
from pathlib import Path

from crmarena_tui.storage import Store
from crmarena_tui.studies import db
from crmarena_tui.studies.stats import wilson
from crmarena_tui.tasks.model import Task
from tests.support.spec_support import session_spec
from tests.support.study_support import cli, grade, task, work

MODEL = "openai/gpt-4o"


def _tasks(path: Path) -> list[Task]:
    b2b = [task(i, "handle_time", str(path)) for i in range(4)]
    b2c = [
        task(10 + i, "handle_time", str(path)).model_copy(
            update={"org_type": "b2c", "interactive": True}
        )
        for i in range(4)
    ]
    rows = [t.row() for t in [*b2b, *b2c]]
    for row in rows:
        del row["source"]
    path.write_text(json.dumps(rows))
    return [*b2b, *b2c]


def _agent(store: Store, strategy: str, the_task: Task, reward: float, protocol: str) -> None:
    settings = {"model": MODEL, "strategy": strategy, "aided": False, "privacy_aware": False}
    person = store.participant("agent", MODEL, model=MODEL, settings=settings)
    made = store.create_session(session_spec(person, the_task, "local", "demo", settings=settings))
    store.set_status(made.id, "submitted")
    store.add_grade(made.id, grade(reward).model_copy(update={"protocol": protocol}))


def test_splits_overall_rows_and_protocols(tmp_path: Path) -> None:
    tasks = _tasks(tmp_path / "tasks.json")
    dbfile = tmp_path / "s.db"
    code, _, err = cli(
        "study", "create", "pilot", "--tasks", str(tmp_path / "tasks.json"),
        "--per-task", "1", "--participants", "ana", "--db", str(dbfile),
    )  # fmt: skip
    assert code == 0, err
    with Store(dbfile) as store:
        study = db.get_study(store, "pilot")
        for t, r in zip(tasks, [1, 1, 1, 0, 1, 0, 0, 0], strict=True):
            work(store, "ana", t, study_id=study.id, reward=float(r))
        for t, r in zip(tasks[:4], [1, 1, 0, 0], strict=True):
            _agent(store, "react", t, float(r), "workbench")
        for t, r in zip(tasks[:4], [1, 0, 0, 0], strict=True):
            _agent(store, "tool_call", t, float(r), "upstream" if t.idx == 0 else "workbench")
    code, out, _ = cli("study", "report", "pilot", "--db", str(dbfile), "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert [(r["split"], r["task_type"], r["n"]) for r in report["types"]] == [
        ("b2b single", "handle_time", 4),
        ("b2c chat", "handle_time", 4),
    ]
    assert [r["human"]["value"] for r in report["types"]] == [0.75, 0.25]
    overall = {r["split"]: r for r in report["overall"]}
    assert list(overall) == ["b2b single", "b2c chat", "all"]
    every = overall["all"]
    low, high = wilson(4, 8)
    assert (every["n"], every["tasks"], every["human"]["value"]) == (8, 8, 0.5)
    assert (every["human"]["low"], every["human"]["high"]) == (round(low, 4), round(high, 4))
    assert every["protocol"] == "workbench"
    agents = [(a["agent"], a["protocol"], a["n"]) for a in report["types"][0]["agents"]]
    assert agents == [
        (f"{MODEL}/react", "workbench", 4),
        (f"{MODEL}/tool_call", "upstream", 1),
        (f"{MODEL}/tool_call", "workbench", 3),
    ]
    assert report["types"][1]["agents"] == []
    assert report["warnings"] and "upstream, workbench" in report["warnings"][0]
    code, out, _ = cli("study", "report", "pilot", "--db", str(dbfile))
    assert "warning: the rows' rewards come from more than one grading protocol" in out
    assert "all splits" in out and "b2c chat" in out
    assert f"{MODEL}/tool_call" in out
