"""Many clients on one queue, with the SDK's own client: each works its own task under a lease in
the database, over streamable HTTP (MCP sessions of one server) and over stdio (servers on one
database); a client that vanishes mid-task has its task finished by another, its events kept."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from crmarena_tui.demo.sources import load_tasks
from crmarena_tui.storage import Store
from crmarena_tui.tasks.model import Task
from tests.support.mcp_support import (
    Brief,
    McpEpisode,
    SyncClient,
    ToolFailed,
    free_port,
    start_http,
    stdio_client,
)

pytestmark = pytest.mark.slow
WORKBENCH = ("--protocol", "workbench")
PICK = ("--tasks", "demo:small", "--task", "handle_time,knowledge_qa", "--limit", "6")


def picked() -> list[Task]:
    tasks = load_tasks("demo:small")
    return [t for t in tasks if t.task in ("handle_time", "knowledge_qa")][:6]


def work(client: SyncClient, tasks: list[Task], worked: list[int]) -> None:
    """The reference agent works what the server hands this client, reporting its usage once
    per task (no cost: the server prices it), until the queue is done."""
    from crmarena_tui.agents.reference import ReferenceAgent

    while True:
        text = client.call("next_task")
        if text.startswith("The queue is done"):
            return
        if text.startswith("No task is free"):
            return  # the rest is worked by the other clients
        brief = Brief(text)
        client.call("report_usage", model="gpt-4o", prompt_tokens=1000, completion_tokens=100)
        episode = McpEpisode(client, brief, tasks[brief.number - 1])
        for _ in ReferenceAgent().steps(episode):
            pass
        worked.append(brief.session_id)


def in_parallel(clients: list[SyncClient], tasks: list[Task]) -> list[list[int]]:
    """Every client works the queue on a thread of its own, all at once."""
    worked: list[list[int]] = [[] for _ in clients]
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            work(clients[i], tasks, worked[i])
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(clients))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(600)
    assert not errors, errors
    return worked


def assert_worked_once(db: Path, tasks: list[Task]) -> list[Any]:
    """Every task has exactly one session, submitted, with one submit, one grade, one usage
    event (its cost known), and reward 1."""
    with Store(db) as store:
        sessions = store.sessions()
        assert sorted((s.task_source, s.task_idx) for s in sessions) == sorted(
            (t.source, t.idx) for t in tasks
        )
        for session in sessions:
            kinds = [e.kind for e in store.events(session.id)]
            assert session.status == "submitted", session.id
            assert kinds.count("submit") == 1 and kinds.count("grade") == 1, kinds
            usage = [e for e in store.events(session.id) if e.kind == "usage"]
            assert len(usage) == 1 and usage[0].payload["cost"] > 0
            assert store.grade(session.id).reward == 1.0
        return sessions


def test_two_clients_on_one_http_server_work_different_tasks(tmp_path: Path) -> None:
    db, port = tmp_path / "h.db", free_port()
    proc = start_http(db, port, *PICK, *WORKBENCH, "--as", "graph")
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        clients = [SyncClient(url, mode="legacy", info=("mcp", "0.1.0")) for _ in range(2)]
        try:
            first = [Brief(c.call("next_task")).session_id for c in clients]
            assert first[0] != first[1]  # each its own task at once
            worked = in_parallel(clients, picked())
        finally:
            for c in clients:
                c.close()
    finally:
        proc.terminate()
        proc.wait(30)
    assert all(worked) and not set(worked[0]) & set(worked[1])
    sessions = assert_worked_once(db, picked())
    with Store(db) as store:
        assert {store.get_participant(s.participant_id).name for s in sessions} == {"graph"}
        client = sessions[0].settings["mcp_client"]
        assert client["client"] == "mcp" and client["as"] == "graph"


def test_clients_that_would_speak_the_stateless_protocol_get_sessions_of_their_own(
    tmp_path: Path,
) -> None:
    """The SDK's client (and FastMCP's, pydantic-ai's) first tries the stateless 2026 protocol,
    which has no MCP session: the server answers it with -32022, so each falls back to the
    handshake and its own session; two clients of one name and version work two tasks."""
    import httpx

    db, port = tmp_path / "s.db", free_port()
    proc = start_http(db, port, *PICK, *WORKBENCH, "--as", "graph")
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        probe = {"jsonrpc": "2.0", "id": 7, "method": "server/discover", "params": {}}
        headers = {"mcp-protocol-version": "2026-07-28", "accept": "application/json"}
        refused = httpx.post(url, json=probe, headers=headers, timeout=60)
        assert refused.status_code == 400
        error = refused.json()["error"]
        assert refused.json()["id"] == 7 and error["code"] == -32022
        assert "2025-11-25" in error["data"]["supported"]
        clients = [SyncClient(url, mode="auto", info=("same-agent", "1.0")) for _ in range(2)]
        try:
            first = [Brief(c.call("next_task")).session_id for c in clients]
        finally:
            for c in clients:
                c.close()
    finally:
        proc.terminate()
        proc.wait(30)
    assert first[0] != first[1]


def test_two_stdio_servers_on_one_database_work_different_tasks(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    clients = [stdio_client(db, *PICK, *WORKBENCH, "--as", "graph") for _ in range(2)]
    try:
        # Each takes a task before either works: one server's slower start-up must not let the
        # other work the whole queue alone.
        first = [Brief(c.call("next_task")).session_id for c in clients]
        assert first[0] != first[1]  # each its own task at once
        worked = in_parallel(clients, picked())
    finally:
        for c in clients:
            c.close()
    assert all(worked) and not set(worked[0]) & set(worked[1])
    assert_worked_once(db, picked())


def test_a_killed_stdio_server_has_its_task_finished_by_another(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    clients = [stdio_client(db, *PICK, *WORKBENCH, "--as", "graph") for _ in range(3)]
    try:
        brief = Brief(clients[0].call("next_task"))
        clients[0].call("execute_soql", query="SELECT Id, Name FROM User LIMIT 2")
        with Store(db) as store:
            kept = [(e.kind, e.text) for e in store.events(brief.session_id)]
            ((pid,),) = store.read(
                "SELECT pid FROM leases WHERE session_id = ?", (brief.session_id,)
            )
        os.kill(pid, signal.SIGKILL)  # the first client's server dies mid-task
        worked = in_parallel(clients[1:], picked())
    finally:
        for c in clients:
            with contextlib.suppress(Exception):
                c.close()
    assert brief.session_id in worked[0] + worked[1]
    with Store(db) as store:
        events = [(e.kind, e.text) for e in store.events(brief.session_id)]
    assert events[: len(kept)] == kept  # resumed, its first steps kept
    assert ("query", "SELECT Id, Name FROM User LIMIT 2") in kept
    with Store(db) as store:
        assert len(store.sessions()) == 6
        assert {s.status for s in store.sessions()} == {"submitted"}


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def test_a_vanished_http_client_loses_its_task_after_the_timeout(tmp_path: Path) -> None:
    """Three MCP sessions on one server; the first stops calling mid-task. On the server's
    injected clock its lease lapses, another client resumes its session, and the first is
    told, in one line, that the task is no longer its own."""
    import uvicorn

    from crmarena_tui.session import mcp_server
    from crmarena_tui.session.service import SessionService
    from crmarena_tui.session.task_queue import TaskQueue
    from crmarena_tui.settings.config import load_settings
    from crmarena_tui.storage.leases import LeaseBook

    db, clock, tasks = tmp_path / "v.db", Clock(), picked()
    service = SessionService(load_settings(protocol="workbench"))

    def make_queue() -> TaskQueue:
        store = Store(db)
        leases = LeaseBook(store, pool="test", timeout=60, clock=clock)
        return TaskQueue(store, tasks, service, leases=leases)

    server, worker = mcp_server.build_server(make_queue, as_name="graph")
    port = free_port()
    app = server.streamable_http_app(host="127.0.0.1")
    uv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not uv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    url = f"http://127.0.0.1:{port}/mcp"
    clients = [SyncClient(url, mode="legacy") for _ in range(3)]
    try:
        brief = Brief(clients[0].call("next_task"))
        clients[0].call("execute_soql", query="SELECT Id FROM User LIMIT 1")
        clock.now += 61  # the first client has said nothing for longer than the timeout
        worked = in_parallel(clients[1:], tasks)
        with pytest.raises(ToolFailed) as refused:
            clients[0].call("execute_soql", query="SELECT Id FROM User LIMIT 1")
        message = str(refused.value)
        assert f"(session {brief.session_id}) is no longer yours" in message
        assert "\n" not in message
    finally:
        for c in clients:
            with contextlib.suppress(Exception):
                c.close()
        uv.should_exit = True
        thread.join(30)
        worker.close()
    assert brief.session_id in worked[0] + worked[1]
    with Store(db) as store:
        events = [e.kind for e in store.events(brief.session_id)]
    assert events[:2] == ["query", "observation"]  # the first client's steps
    assert events.count("submit") == 1


def test_an_sdks_default_name_is_refused_without_as(tmp_path: Path) -> None:
    args = ("--tasks", "demo:small", "--task", "handle_time", "--limit", "1", *WORKBENCH)
    client = stdio_client(tmp_path / "n.db", *args, info=("mcp", "0.1.0"))
    try:
        with pytest.raises(ToolFailed, match=r"default name of its MCP SDK.*--as NAME"):
            client.call("next_task")
    finally:
        client.close()
    with Store(tmp_path / "n.db") as store:
        assert store.sessions() == []
