"""Tasks go to their own org: demo tasks to the demo orgs; real tasks to `upstream:<type>`, else
`salesforce:<type>`, else a clear stop; re-runs and forks keep the session's org or say why not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.demo.task_origin import is_demo_task
from crmarena_tui.demo.tasks import demo_tasks
from crmarena_tui.session.org_resolve import (
    Available,
    NoOrgForTask,
    OrgSpecError,
    open_org,
    route_task,
    task_route,
)
from crmarena_tui.storage import Store
from crmarena_tui.tasks.loaders import load_task_file
from crmarena_tui.tasks.model import Task
from tests.support.snapshot_support import private_org_dir, snapshot_of_demo

NONE = Available()
UPSTREAM = Available(upstream=frozenset({"b2b"}))
LIVE = Available(salesforce=frozenset({"b2b"}))
BOTH = Available(upstream=frozenset({"b2b"}), salesforce=frozenset({"b2b"}))


def task(source: str = "hf:b2b", org_type: str = "b2b") -> Task:
    return Task(
        idx=7,
        task="handle_time",
        query="Who?",
        answer=["x"],
        reward_metric="exact_match",
        source=source,
        org_type=org_type,  # type: ignore[arg-type]
    )


def test_demo_tasks_keep_the_demo_orgs() -> None:
    assert route_task(task("demo"), None, BOTH, real=False).spec == "demo:b2b"
    assert route_task(task("demo", "b2c"), None, BOTH, real=False).spec == "demo:b2c"


def test_real_tasks_prefer_the_snapshot_then_the_live_org_then_stop() -> None:
    assert route_task(task(), None, BOTH, real=True).spec == "upstream:b2b"
    assert route_task(task(), None, LIVE, real=True).spec == "salesforce:b2b"
    with pytest.raises(NoOrgForTask) as stop:
        route_task(task(), None, NONE, real=True)
    message = str(stop.value)
    assert "crmarena-tui org fetch b2b" in message
    assert "SALESFORCE_B2B_USERNAME" in message and "SALESFORCE_B2B_SESSION_ID" in message
    with pytest.raises(NoOrgForTask, match="org fetch original.*SALESFORCE_USERNAME"):
        route_task(task("hf:original", "original"), None, UPSTREAM, real=True)


def test_an_org_the_user_names_wins_and_a_mismatch_is_said() -> None:
    route = route_task(task(), "demo", NONE, real=True)
    assert route.spec == "demo" and "will not match" in route.note
    assert route_task(task("demo"), "upstream:b2b", NONE, real=False).note.startswith("demo tasks")
    assert route_task(task(), "/x/org.db", NONE, real=True) == route_task(
        task(), "/x/org.db", BOTH, real=True
    )
    assert route_task(task(), "/x/org.db", NONE, real=True).note == ""


def test_re_runs_and_forks_keep_the_sessions_org_or_say_which_they_use(tmp_path: Path) -> None:
    live = route_task(task(), None, BOTH, real=True, session_org="salesforce:b2b")
    assert (live.spec, live.note) == ("salesforce:b2b", "")
    frozen = route_task(task(), None, UPSTREAM, real=True, session_org="salesforce:b2b")
    assert frozen.spec == "upstream:b2b"
    assert "ran on salesforce:b2b" in frozen.note and "imported snapshot" in frozen.note
    with pytest.raises(NoOrgForTask, match="org fetch b2b"):
        route_task(task(), None, NONE, real=True, session_org="salesforce:b2b")
    org_file = tmp_path / "mine.db"
    org_file.write_bytes(b"")
    assert route_task(task("demo"), None, NONE, real=False, session_org=str(org_file)).spec == str(
        org_file
    )
    gone = route_task(task(), None, LIVE, real=True, session_org=str(tmp_path / "gone.db"))
    assert gone.spec == "salesforce:b2b" and "is gone" in gone.note
    assert (
        route_task(task("demo"), None, NONE, real=False, session_org="/gone/demo-b2b.db").spec
        == "demo:b2b"
    )


def test_demo_exports_are_demo_tasks_and_other_files_are_real(
    tmp_path: Path, sample_rows_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "demo_b2b.jsonl"
    assert (
        main(["tasks", "export", "--tasks", "demo", "--task", "handle_time", "--out", str(out)])
        == 0
    )
    exported = load_task_file(out)
    assert exported and all(is_demo_task(t) for t in exported)
    older = tmp_path / "old_export_b2b.json"  # written before exports kept their source
    rows = [{k: v for k, v in t.row().items() if k != "source"} for t in demo_tasks("b2b")[:3]]
    older.write_text(json.dumps(rows))
    assert all(is_demo_task(t) for t in load_task_file(older))
    assert not any(is_demo_task(t) for t in load_task_file(sample_rows_path))
    renumbered = older.with_name("mine_b2b.json")
    renumbered.write_text(json.dumps([{**r, "idx": r["idx"] + 50_000} for r in rows]))
    assert not any(is_demo_task(t) for t in load_task_file(renumbered))


def test_what_is_available_is_read_from_the_orgs_folder_and_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = private_org_dir(monkeypatch, tmp_path / "orgs")
    assert Available.probe({}) == NONE
    (folder / "upstream-b2c.db").write_bytes(b"x")
    env = {
        "SALESFORCE_B2B_INSTANCE_URL": "https://x.my.salesforce.com",
        "SALESFORCE_B2B_SESSION_ID": "s",
    }
    assert Available.probe(env) == Available(frozenset({"b2c"}), frozenset({"b2b"}))
    env = {"SALESFORCE_USERNAME": "u", "SALESFORCE_PASSWORD": "p"}
    assert Available.probe(env).salesforce == frozenset({"original"})


def test_upstream_specs_open_the_fetched_snapshot_or_say_how_to_fetch_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    private_org_dir(monkeypatch, tmp_path / "orgs")
    with pytest.raises(OrgSpecError, match="org fetch b2b"):
        open_org("upstream:b2b")
    with pytest.raises(OrgSpecError, match="upstream:b2b, upstream:b2c or upstream:original"):
        open_org("upstream:b2x")
    snap = snapshot_of_demo(tmp_path / "dl", "b2b")
    assert main(["org", "import", str(snap), "--quiet"]) == 0
    with open_org("upstream:b2b") as org:
        assert (org.kind, org.ref, org.org_type) == ("upstream", "upstream:b2b", "b2b")
        assert org.query("SELECT COUNT() FROM Case").total_size == 153
    assert main(["query", "SELECT COUNT() FROM Lead", "--org", "upstream:b2b"]) == 0
    assert "COUNT(): 1465" in capsys.readouterr().out
    assert task_route(task(str(tmp_path / "mine.json")), None).spec == "upstream:b2b"


# ---------------------------------------------------------------- `run` end to end


def real_task_file(path: Path, task_type: str, n: int) -> Path:
    """Demo b2b tasks renumbered into a file of our own: real tasks as far as routing can tell,
    whose answers the demo org's snapshot holds."""
    rows = []
    for t in [t for t in demo_tasks("b2b") if t.task == task_type][:n]:
        row = t.row()
        row.pop("source")
        row["idx"] += 50_000
        rows.append(row)
    path.write_text(json.dumps(rows))
    return path


def test_run_stops_on_real_tasks_without_a_real_org_and_runs_them_on_the_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = private_org_dir(monkeypatch, tmp_path / "orgs")
    tasks = real_task_file(tmp_path / "real_b2b.json", "handle_time", 3)
    db = tmp_path / "s.db"
    args = ["run", "--agent", "reference", "--tasks", str(tasks), "--db", str(db)]
    assert main([*args, "--format", "json"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "crmarena-tui org fetch b2b" in err
    assert "SALESFORCE_B2B_USERNAME" in err and not db.exists()

    snap = snapshot_of_demo(tmp_path / "dl", "b2b")
    assert main(["org", "import", str(snap), "--today", "2025-11-03", "--quiet"]) == 0
    assert (folder / "upstream-b2b.db").is_file()
    capsys.readouterr()
    assert main([*args, "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["overall"] == {"n": 3, "mean": 1.0}
    with Store(db) as store:
        sessions = store.sessions()
        assert {(s.org_kind, s.org_ref) for s in sessions} == {("upstream", "upstream:b2b")}


def test_play_stops_before_the_app_when_hub_tasks_have_no_real_org(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import crmarena_tui.app.app as app_module

    monkeypatch.setattr(app_module.CrmArenaApp, "run", lambda self: pytest.fail("app started"))
    assert main(["play", "--tasks", "hf:b2c_interactive"]) == 1
    err = capsys.readouterr().err
    assert "real b2c tasks (hf:b2c_interactive)" in err and "org fetch b2c" in err
    assert "Traceback" not in err
