"""`crmarena-tui run` end to end in process: task file, scripted or loopback model, summary, resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.storage import Store
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.fakes.scripted_llm import ScriptedFailure, register_script, unregister_script
from tests.support.agents_llm_support import AGENT_ID, OTHER_ID, TinyOrg, make_task, react


def solver(messages, tools):
    if not any(
        m["content"].startswith("Salesforce instance output")
        for m in messages
        if m["role"] == "user"
    ):
        return react("look", "execute", "SELECT Id, Name FROM User")
    return react("found", "respond", AGENT_ID)


@pytest.fixture
def task_file(tmp_path: Path) -> Path:
    rows = []
    for idx, (kind, answer) in enumerate(
        [
            ("handle_time", AGENT_ID),
            ("handle_time", OTHER_ID),
            ("transfer_count", AGENT_ID),
            ("lead_routing", AGENT_ID),
        ]
    ):
        row = make_task(idx, task=kind, answer=answer).row()
        for key in ("source", "org_type", "interactive"):
            row.pop(key)
        rows.append(row)
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(rows))
    return path


@pytest.fixture
def tiny_org(monkeypatch: pytest.MonkeyPatch) -> list:
    """Every org resolves to a fresh TinyOrg (the org engine is tested elsewhere); the task
    file's real tasks find their upstream snapshot fetched (routing is tested elsewhere)."""
    from crmarena_tui.session.org_resolve import Available

    opened: list = []

    def fake_open(spec, *, org_type="b2b", today=None, lenient=False):
        opened.append((spec, org_type))
        org = TinyOrg()
        org.lenient = lenient  # type: ignore[attr-defined]  # a local org's mode
        return org

    everything = Available(frozenset({"b2b", "b2c", "original"}))
    monkeypatch.setattr("crmarena_tui.session.org_resolve.open_org", fake_open)
    monkeypatch.setattr(Available, "probe", classmethod(lambda cls, env=None: everything))
    return opened


@pytest.fixture
def scripted():
    register_script("cli", lambda: solver)
    yield "scripted/cli"
    unregister_script("cli")


def run(*args: str) -> int:
    return main(["run", *args])


def test_run_prints_a_summary_table_and_stores_graded_sessions(
    tiny_org, task_file, tmp_path, scripted, capsys
) -> None:
    db = tmp_path / "s.db"
    code = run(
        "--agent", scripted, "--tasks", str(task_file), "--db", str(db), "--concurrency", "2"
    )
    out, err = capsys.readouterr()
    assert code == 0
    assert "handle_time" in out and "transfer_count" in out and "overall" in out
    assert "0.500" in out and "0.750" in out  # handle_time 1 of 2, overall 3 of 4
    assert "4 submitted" in out
    with Store(db) as store:
        sessions = store.sessions()
        assert len(sessions) == 4 and {s.status for s in sessions} == {"submitted"}
        assert store.participants("agent")[0].model == scripted


def test_lenient_runs_are_recorded_and_kept_apart_from_strict_ones(
    tiny_org, task_file, tmp_path, scripted, capsys, monkeypatch
) -> None:
    """Each session stores its org's mode; a lenient run does not resume or skip strict ones
    (under workbench: upstream refuses lenient orgs,
    tests/agents/test_agent_protocol_upstream.py)."""
    db = tmp_path / "s.db"
    base = ("--agent", scripted, "--tasks", str(task_file), "--db", str(db))
    assert run(*base, "--protocol", "workbench") == 0
    assert run(*base, "--protocol", "workbench", "--lenient") == 0
    monkeypatch.setenv("CRMARENA_TUI_LENIENT", "1")  # the setting does what --lenient does
    monkeypatch.setenv("CRMARENA_TUI_PROTOCOL", "workbench")  # and so does this one
    assert run(*base) == 0
    out, _ = capsys.readouterr()
    assert "4 skipped" in out  # the third run found the lenient sessions of the second
    with Store(db) as store:
        modes = sorted(s.settings.get("org_mode") for s in store.sessions())
    assert modes == ["lenient"] * 4 + ["strict"] * 4


def test_json_summary_filters_and_limit(tiny_org, task_file, tmp_path, scripted, capsys) -> None:
    code = run(
        "--agent",
        scripted,
        "--tasks",
        str(task_file),
        "--db",
        str(tmp_path / "s.db"),
        "--task",
        "handle_time,lead_routing",
        "--limit",
        "2",
        "--format",
        "json",
    )
    summary = json.loads(capsys.readouterr().out)
    assert code == 0
    assert summary["tasks"] == 2
    assert summary["by_task"] == {"handle_time": {"n": 2, "mean": 0.5}}
    assert summary["overall"] == {"n": 2, "mean": 0.5}


def test_a_second_run_resumes_instead_of_starting_over(
    tiny_org, task_file, tmp_path, capsys
) -> None:
    db = tmp_path / "s.db"

    def flaky(messages, tools):
        if sum(m["role"] == "assistant" for m in messages) == 1:  # every task's second call
            raise ScriptedFailure("server", "upstream overloaded")
        return solver(messages, tools)

    args = (
        "--agent",
        "scripted/flaky",
        "--tasks",
        str(task_file),
        "--db",
        str(db),
        "--format",
        "json",
    )
    register_script("flaky", lambda: flaky)
    try:
        first_code = run(*args)
        first = json.loads(capsys.readouterr().out)
        with Store(db) as store:
            assert {s.status for s in store.sessions()} == {"in_progress"}
        register_script("flaky", lambda: solver)  # the provider is back
        second_code = run(*args)
        second = json.loads(capsys.readouterr().out)
        third_code = run(*args)
        third = json.loads(capsys.readouterr().out)
    finally:
        unregister_script("flaky")
    assert first_code == 1 and first["outcomes"] == {"unfinished": 4}
    assert "upstream overloaded" in first["failures"][0]["error"]
    assert second_code == 0 and second["outcomes"] == {"resumed": 4}
    assert third_code == 0 and third["outcomes"] == {"skipped": 4}
    assert third["overall"] == {"n": 4, "mean": 0.75}
    with Store(db) as store:
        assert len(store.sessions()) == 4


def test_the_agent_talks_to_an_openai_compatible_server_on_loopback(
    tiny_org, task_file, tmp_path, capsys, monkeypatch
) -> None:
    monkeypatch.setattr("crmarena_tui.llm.client.LLMClient._delay", lambda self, attempt: 0.01)
    with FakeOpenAIServer(
        fallback=lambda body: Reply.chat(solver(body["messages"], None))
    ) as server:
        server.enqueue(Reply(status=429, body={"error": {"message": "slow down"}}))
        code = run(
            "--agent",
            "openai/fake-model",
            "--api-base",
            server.base_url,
            "--tasks",
            str(task_file),
            "--task",
            "transfer_count",
            "--db",
            str(tmp_path / "s.db"),
            "--format",
            "json",
        )
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and summary["overall"] == {"n": 1, "mean": 1.0}
    assert len(server.requests) == 3  # the rate-limited call was retried
    with Store(tmp_path / "s.db") as store:
        events = store.events(store.sessions()[0].id)
        assert [e.payload["error_type"] for e in events if e.kind == "error"] == ["rate_limit"]
        usage = [e.payload for e in events if e.kind == "usage"]
        assert usage[0]["prompt_tokens"] == 11 and usage[0]["model"] == "fake-model"


def test_interactive_marks_tasks_multi_turn_with_the_scripted_user_under_workbench(
    tiny_org, task_file, tmp_path, scripted, capsys
) -> None:
    code = run(
        "--agent",
        scripted,
        "--tasks",
        str(task_file),
        "--db",
        str(tmp_path / "s.db"),
        "--interactive",
        "--limit",
        "1",
        "--format",
        "json",
        "--protocol",
        "workbench",
    )
    assert code == 0
    with Store(tmp_path / "s.db") as store:
        session = store.sessions()[0]
        assert session.interactive and session.user_simulator == "scripted"


def test_bad_arguments_fail_fast_with_a_message(tiny_org, task_file, tmp_path, capsys) -> None:
    db = str(tmp_path / "s.db")
    assert run("--agent", "scripted/none-such", "--tasks", str(task_file), "--db", db) == 1
    assert "unknown scripted model" in capsys.readouterr().err
    assert run("--agent", "x/y", "--tasks", str(task_file), "--task", "nope", "--db", db) == 2
    assert "unknown task type nope" in capsys.readouterr().err
    assert run("--tasks", str(task_file), "--db", db) == 2  # usage errors
    assert "--agent is required" in capsys.readouterr().err
    assert not Path(db).exists()


def test_real_tasks_never_run_on_the_demo_org_unless_asked(
    tmp_path, sample_rows_path, capsys
) -> None:
    """No --org and no real org: real tasks stop with a message naming the ways to get one. With
    --org demo they run there, with a note that says so (tasks: the 44 real sample rows)."""
    seen: list[str] = []

    def one_query(messages, tools):
        outputs = [
            m["content"] for m in messages if m["content"].startswith("Salesforce instance output")
        ]
        if not outputs:
            return react("look", "execute", "SELECT Id, Name FROM User ORDER BY Name LIMIT 2")
        seen.append(outputs[0])
        return react("done", "respond", "None")

    args = ["--agent", "scripted/demo", "--tasks", str(sample_rows_path), "--task", "handle_time"]
    args += ["--db", str(tmp_path / "s.db"), "--format", "json", "--protocol", "workbench"]
    register_script("demo", lambda: one_query)
    try:
        stopped = run(*args)
        err = capsys.readouterr().err
        assert stopped == 1 and "Traceback" not in err
        assert "crmarena-tui org fetch b2b" in err and "SALESFORCE_B2B_USERNAME" in err
        assert not (tmp_path / "s.db").exists()
        code = run(*args, "--org", "demo")
    finally:
        unregister_script("demo")
    out, err = capsys.readouterr()
    assert "note: the real b2b tasks" in err and "run on the demo org" in err
    summary = json.loads(out)
    assert code == 0 and summary["by_task"]["handle_time"]["n"] == 2
    records = json.loads(seen[0].removeprefix("Salesforce instance output: "))
    assert len(records) == 2 and all(r["Id"].startswith("005") for r in records)
    with Store(tmp_path / "s.db") as store:
        assert {s.org_kind for s in store.sessions()} == {"local"}
        # recorded as the org it is, not as a path in this machine's home (issue 29)
        assert {s.org_ref for s in store.sessions()} == {"demo:b2b"}


def test_a_db_that_is_not_a_sessions_database_is_one_line_not_a_traceback(
    tiny_org, task_file, tmp_path, scripted, capsys
) -> None:
    db = tmp_path / "notes.db"
    db.write_text("these are my notes, not a database\n" * 50)
    code = run("--agent", scripted, "--tasks", str(task_file), "--db", str(db))
    _, err = capsys.readouterr()
    assert code == 1
    lines = err.strip().splitlines()
    assert lines[-1].startswith("error: ") and str(db) in lines[-1]
    assert "Traceback" not in err and "NotASessionsDatabase" not in err
    assert db.read_text().startswith("these are my notes")  # left untouched
