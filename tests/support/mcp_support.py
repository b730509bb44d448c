"""Helpers for the MCP tests and benchmarks (no tests here): a blocking client over the SDK's own
`mcp.Client` (stdio or streamable HTTP), and an adapter that drives the reference agent's own
decisions through the MCP tools, as an external agent would."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from crmarena_tui.agents.base import STOP
from crmarena_tui.agents.reference import ReferenceAgent
from crmarena_tui.orgs.base import QueryResult, is_sosl
from crmarena_tui.storage import Store
from crmarena_tui.tasks.model import Task

HEADER = re.compile(r"^Task (\d+) of (\d+) \(session (\d+); a (chat|single-turn) task")
ERROR = re.compile(r"^[A-Z][A-Z_]+: ")
OPENING = "## The user's opening message\n"
REQUEST = "## Request\n"
CLIENT = ("adapter-client", "9.1")


def server_command(db: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "crmarena_tui", "mcp", "--db", str(db), *args]


class SyncClient:
    """An `mcp.Client` held by one task on its own event loop thread (the SDK's cancel scopes
    must be entered and left by the same task), called synchronously."""

    def __init__(
        self,
        server: Any,
        *,
        headers: dict[str, str] | None = None,
        info: tuple[str, str] = CLIENT,
        mode: str = "auto",
    ) -> None:
        """`mode` "legacy": the `initialize` handshake (an MCP session, as the Agents SDK,
        pydantic-ai and LangChain's adapters connect); "auto": the SDK's stateless protocol."""
        import concurrent.futures

        self._server = server
        self._headers = headers
        self._info, self._mode = info, mode
        self._loop = asyncio.new_event_loop()
        self._requests: asyncio.Queue[Any] | None = None
        ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._done = asyncio.run_coroutine_threadsafe(self._main(ready), self._loop)
        ready.result(120)

    async def _main(self, ready: Any) -> None:
        from mcp import Client
        from mcp.types import Implementation

        server = self._server
        if isinstance(server, str) and (self._headers or self._mode == "legacy"):
            import httpx2  # the SDK's HTTP client
            from mcp.client.streamable_http import streamable_http_client

            http = httpx2.AsyncClient(headers=self._headers or {}, timeout=60)
            server = streamable_http_client(server, http_client=http)
        self._requests = asyncio.Queue()
        info = Implementation(name=self._info[0], version=self._info[1])
        try:
            async with Client(server, client_info=info, mode=self._mode) as client:
                ready.set_result(None)
                while (item := await self._requests.get()) is not None:
                    work, future = item
                    try:
                        future.set_result(await work(client))
                    except Exception as exc:  # noqa: BLE001 - handed to the caller
                        future.set_exception(exc)
        except Exception as exc:
            if not ready.done():
                ready.set_exception(exc)
            raise

    def _run(self, work: Any, timeout: float = 120) -> Any:
        import concurrent.futures

        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        assert self._requests is not None
        self._loop.call_soon_threadsafe(self._requests.put_nowait, (work, future))
        return future.result(timeout)

    def call(self, tool: str, **arguments: Any) -> str:
        result = self._run(lambda c: c.call_tool(tool, arguments))
        text = "".join(getattr(c, "text", "") for c in result.content)
        if result.is_error:
            raise ToolFailed(text)
        return text

    def tools(self) -> list[str]:
        return [t.name for t in self._run(lambda c: c.list_tools()).tools]

    def close(self) -> None:
        assert self._requests is not None
        self._loop.call_soon_threadsafe(self._requests.put_nowait, None)
        try:
            self._done.result(30)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)


class ToolFailed(RuntimeError):
    """A tool call answered with is_error."""


def stdio_client(db: Path, *args: str, **client: Any) -> SyncClient:
    from mcp import StdioServerParameters

    command = server_command(db, *args)
    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    return SyncClient(params, **client)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_http(db: Path, port: int, *args: str) -> subprocess.Popen[bytes]:
    """A server process on 127.0.0.1:`port`, once it accepts connections."""
    proc = subprocess.Popen(
        server_command(db, "--http", "--port", str(port), *args),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError((proc.stderr.read() if proc.stderr else b"").decode())
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the MCP server did not start")


class Brief:
    def __init__(self, text: str) -> None:
        match = HEADER.match(text)
        if match is None:
            raise ValueError(f"not a task brief: {text[:200]!r}")
        self.text = text
        self.number, self.total, self.session_id = (int(match.group(i)) for i in (1, 2, 3))
        self.interactive = match.group(4) == "chat"
        marker = OPENING if self.interactive else REQUEST
        self.request = text.split(marker, 1)[1]


class _Org:
    def __init__(self, today: Any) -> None:
        self.today = today


class McpEpisode:
    """What the reference agent calls on an Episode, carried out through the MCP tools. `task`
    is the adapter's own copy of the task (its type and visible metadata: redacted)."""

    def __init__(self, client: SyncClient, brief: Brief, task: Task) -> None:
        self.client = client
        self.brief = brief
        visible = task.redacted()
        if brief.interactive:
            visible = visible.model_copy(update={"query": ""})
        self.task = visible
        self.interactive = brief.interactive
        self.org = _Org(task.today())
        self.finished = False
        self._dialogue: list[dict[str, str]] = []
        if brief.interactive:
            self._dialogue.append({"role": "user", "content": brief.request})

    def opening(self) -> str:
        return self.brief.request

    def history(self) -> list[dict[str, str]]:
        return list(self._dialogue)

    @property
    def dialogue_over(self) -> bool:
        return any(m["role"] == "user" and m["content"] == STOP for m in self._dialogue)

    def record(self, kind: str, payload: dict[str, Any], actor: str = "agent") -> None:
        """Thoughts stay with the agent: an external agent's reasoning is its own."""

    def execute(self, text: str, actor: str = "agent") -> QueryResult:
        tool, arg = ("execute_sosl", "search") if is_sosl(text) else ("execute_soql", "query")
        try:
            out = self.client.call(tool, **{arg: text})
        except ToolFailed as exc:  # an org's error comes flagged as a tool error
            out = str(exc)
        if ERROR.match(out):
            return QueryResult(error=out.split("\n\n", 1)[0])
        return QueryResult(records=self._records(out))

    def _records(self, out: str) -> list[dict[str, Any]]:
        """A result's records: a paged one's batches fetched with query_more, in order."""
        found = json.loads(out.split("\n", 1)[0] if out.startswith("{") else out.split("\n\n")[0])
        if isinstance(found, list):
            return found
        records = list(found["records"])
        while not found["done"]:
            more = self.client.call("query_more", cursor=found["nextRecordsUrl"])
            found = json.loads(more.split("\n", 1)[0])
            records += found["records"]
        return records

    def say(self, text: str, actor: str = "agent") -> str | None:
        out = self.client.call("respond", content=text)
        reply = out.split("\n\nEpisode over:", 1)[0]
        self.finished = "Episode over:" in out
        self._dialogue += [{"role": "agent", "content": text}, {"role": "user", "content": reply}]
        return reply

    def submit(self, answer: str, actor: str = "agent") -> None:
        if not self.interactive:
            out = self.client.call("respond", content=answer)
            assert out.startswith("Submitted"), out
        self.finished = True


def trace(db: Path, participant: str | None = None) -> dict[tuple[str, int], tuple]:
    """Per task: the queries in order, the submitted answer, the reward."""
    with Store(db) as store:
        out = {}
        for session in store.sessions():
            name = store.get_participant(session.participant_id).name
            if participant is not None and name != participant:
                continue
            events = store.events(session.id)
            queries = [e.text for e in events if e.kind in ("query", "search")]
            answer = next(e.payload["answer"] for e in events if e.kind == "submit")
            grade = store.grade(session.id)
            out[(session.task_source, session.task_idx)] = (
                queries,
                answer,
                grade.reward if grade else None,
                session.status,
            )
        return out


def work_queue(client: SyncClient, tasks: list[Task]) -> list[int]:
    """The reference agent works every task the server hands out; the sessions' ids."""
    sessions = []
    while True:
        text = client.call("next_task")
        if text.startswith("The queue is done"):
            return sessions
        brief = Brief(text)
        episode = McpEpisode(client, brief, tasks[brief.number - 1])
        for _ in ReferenceAgent().steps(episode):
            pass
        sessions.append(brief.session_id)
