"""`crmarena-tui mcp` with the SDK's own client: over stdio and over streamable HTTP on loopback.

The reference agent's own decisions, driven through the MCP tools by a small adapter
(tests/support/mcp_support.py), score 1 on demo tasks with the same queries and answers as the
reference agent natively. The suite works one single-turn and one chat task of every demo task type (b2b)
and a few b2c tasks; the whole of demo:small goes through `benchmarks/bench_mcp.py`.
"""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path

import pytest

from crmarena_tui.demo.sources import load_tasks
from crmarena_tui.session.runner import BatchRunner, RunOptions
from crmarena_tui.storage import Store
from tests.support.mcp_support import (
    CLIENT,
    SyncClient,
    ToolFailed,
    free_port,
    start_http,
    stdio_client,
    trace,
    work_queue,
)

pytestmark = pytest.mark.slow
WORKBENCH = ("--protocol", "workbench")


def subset_file(tmp_path: Path) -> Path:
    """One single-turn and one chat task of every task type on b2b, and four b2c tasks."""
    small = load_tasks("demo:small")
    chosen = [
        t for i, t in enumerate(small) if (i < 264 and i % 6 == 0) or i in (264, 300, 400, 500)
    ]
    path = tmp_path / "subset.json"
    path.write_text(json.dumps([t.row() for t in chosen]), encoding="utf-8")
    return path


def test_the_reference_agent_through_mcp_matches_it_natively(tmp_path: Path) -> None:
    tasks_file = subset_file(tmp_path)
    tasks = load_tasks(str(tasks_file))
    native_db, mcp_db = tmp_path / "native.db", tmp_path / "mcp.db"
    report = BatchRunner(native_db, tasks, RunOptions(agent="reference")).run()
    assert report.complete
    client = stdio_client(mcp_db, "--tasks", str(tasks_file), *WORKBENCH)
    try:
        assert set(client.tools()) == {
            "next_task",
            "get_task",
            "execute_soql",
            "query_more",
            "execute_sosl",
            "describe_object",
            "respond",
            "report_usage",
        }
        sessions = work_queue(client, tasks)
    finally:
        client.close()
    assert len(sessions) == len(tasks) == 48
    assert {t.interactive for t in tasks} == {True, False}
    native = trace(native_db)
    through_mcp = trace(mcp_db, participant=f"{CLIENT[0]}/{CLIENT[1]}")
    assert set(through_mcp) == set(native)
    assert {v[2] for v in through_mcp.values()} == {1.0}
    assert {v[3] for v in through_mcp.values()} == {"submitted"}
    for key, (queries, answer, _, _) in native.items():
        assert through_mcp[key][:2] == (queries, answer), key
    with Store(mcp_db) as store:
        agent = store.participants("agent")[0]
        assert agent.settings["strategy"] == "mcp"


def test_errors_the_hidden_answer_and_the_end_of_the_queue(tmp_path: Path) -> None:
    args = ("--tasks", "demo:small", "--task", "handle_time", "--limit", "1", "--show-grade")
    client = stdio_client(tmp_path / "s.db", *args, *WORKBENCH, "--as", "tester")
    try:
        with pytest.raises(ToolFailed, match="No task is open: call next_task first"):
            client.call("execute_soql", query="SELECT Id FROM User")
        brief = client.call("next_task")
        task = load_tasks("demo:small")[0]
        assert task.query in brief and task.answer[0] not in brief
        assert client.call("get_task") == brief
        # an org's error is flagged as a tool error (issue 37, item 4), worded as the live org's
        with pytest.raises(ToolFailed) as failed:
            client.call("execute_soql", query="SELECT Nope FROM User")
        assert str(failed.value).startswith(  # line breaks kept
            "INVALID_FIELD: \nSELECT Nope FROM User\n       ^\nERROR at Row:1:Column:8\n"
            "No such column 'Nope' on entity 'User'"
        )
        assert client.call("respond", content="None") == "Submitted. Reward: 0.000."
        assert client.call("execute_soql", query="SELECT Id FROM User").startswith(
            "This task has ended (submitted)"
        )
        assert client.call("next_task").startswith("The queue is done: all 1 tasks")
    finally:
        client.close()
    with Store(tmp_path / "s.db") as store:
        (session,) = store.sessions()
        assert store.get_participant(session.participant_id).name == "tester"
        kinds = [e.kind for e in store.events(session.id)]
        assert kinds == ["query", "error", "submit", "grade"]


def test_streamable_http_with_a_token(tmp_path: Path) -> None:
    import httpx2

    port = free_port()
    args = ("--tasks", "demo:small", "--task", "handle_time,knowledge_qa", "--limit", "8")
    proc = start_http(tmp_path / "h.db", port, *args, *WORKBENCH, "--token", "s3cret")
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        refused = httpx2.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert refused.status_code == 401
        client = SyncClient(url, headers={"Authorization": "Bearer s3cret"})
        try:
            tasks = load_tasks("demo:small")
            picked = [t for t in tasks if t.task in ("handle_time", "knowledge_qa")][:8]
            sessions = work_queue(client, picked)
        finally:
            client.close()
    finally:
        proc.terminate()
        proc.wait(30)
    assert len(sessions) == 8
    BatchRunner(tmp_path / "native.db", picked, RunOptions(agent="reference")).run()
    native = trace(tmp_path / "native.db")
    through_mcp = trace(tmp_path / "h.db", participant=f"{CLIENT[0]}/{CLIENT[1]}")
    assert {v[2] for v in through_mcp.values()} == {1.0}
    assert {k: v[:2] for k, v in through_mcp.items()} == {k: v[:2] for k, v in native.items()}


def test_a_killed_server_resumes_the_session_with_its_events(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    args = ("--tasks", "demo:small", "--task", "handle_time", "--limit", "2", *WORKBENCH)
    proc = start_http(db, port := free_port(), *args)
    client = SyncClient(f"http://127.0.0.1:{port}/mcp")
    first = client.call("next_task")
    answer = client.call("execute_soql", query="SELECT Id, Name FROM User LIMIT 3")
    assert answer.startswith("[{")
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    with Store(db) as store:
        (session,) = store.sessions()
        kept = [(e.kind, e.text) for e in store.events(session.id)]
    assert ("query", "SELECT Id, Name FROM User LIMIT 3") in kept
    assert kept[-1][0] == "observation"
    proc = start_http(db, port := free_port(), *args)
    try:
        again = SyncClient(f"http://127.0.0.1:{port}/mcp")
        try:
            resumed = again.call("next_task")
            assert resumed.splitlines()[0] == first.splitlines()[0]  # the same task and session
            assert "Resumed: this session was left in progress" in resumed
            tasks = load_tasks("demo:small")
            work_queue(again, [t for t in tasks if t.task == "handle_time"])
        finally:
            again.close()
    finally:
        proc.terminate()
        proc.wait(30)
    with Store(db) as store:
        sessions = store.sessions()
        assert len(sessions) == 2 and {s.status for s in sessions} == {"submitted"}
        events = [(e.kind, e.text) for e in store.events(session.id)]
    assert events[: len(kept)] == kept
    assert {v[2] for v in trace(db).values()} == {1.0}


def test_the_sdks_own_stdio_transport_serves_too(tmp_path: Path) -> None:
    """Where stdin or stdout is not a pipe the server uses the SDK's stdio transport."""
    import os

    from mcp import StdioServerParameters

    force = (
        "import crmarena_tui.session.mcp_handshake as h; h.is_pipe = lambda fd: False; "
        "from crmarena_tui.cli import main; raise SystemExit(main())"
    )
    args = ["mcp", "--db", str(tmp_path / "s.db"), "--tasks", "demo:small", "--limit", "2"]
    params = StdioServerParameters(
        command=sys.executable, args=["-c", force, *args, *WORKBENCH], env=dict(os.environ)
    )
    client = SyncClient(params)
    try:
        sessions = work_queue(client, load_tasks("demo:small")[:2])
    finally:
        client.close()
    assert len(sessions) == 2
    assert {v[2] for v in trace(tmp_path / "s.db").values()} == {1.0}
