"""`crmarena-tui mcp`: the task queue and its tools served over MCP (the official `mcp` SDK, 2.x).

Any MCP client (Claude Code, an Agents SDK or LangGraph graph, a custom scaffold) works the queue
with the tools `next_task`, `get_task`, `execute_soql`, `execute_sosl`, `query_more`,
`describe_object`, `respond` and `report_usage`. Their meaning is `agents/tool_env.py`'s `ToolEnv` and
`session/task_queue.py`'s `TaskQueue`; this module only carries them over the wire: stdio (over
pipes, read and written by the event loop itself), or streamable HTTP with an optional bearer
token.

Every tool call runs on one worker thread that owns the Store and the queue
(`session/mcp_worker.py` `QueueWorker`: the Store's connection and the orgs stay on one thread),
for the lease holder the call comes from (`QueueWorker.holder`), and the reply is sent only once the call has
returned, so every event it appends is stored (and fsynced) before the client hears of it. A
server killed mid-task resumes that session when it is started again.

This module imports the SDK at import time: only `commands/mcp.py` imports it, inside the command,
after it has answered a stdio client's `initialize` without it (`session/mcp_handshake.py`).
"""

import asyncio
import contextlib
import hmac
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from crmarena_tui.agents.model_proxy import ProxySessions
from crmarena_tui.agents.tool_env import TaskBrief
from crmarena_tui.session import mcp_handshake
from crmarena_tui.session.mcp_errors import RecordingServer, org_checked
from crmarena_tui.session.mcp_handshake import INSTRUCTIONS, SERVER_NAME, EarlyHandshake
from crmarena_tui.session.mcp_worker import QueueWorker, client_info
from crmarena_tui.session.task_queue import TaskQueue, is_sdk_default, mcp_participant_name


def brief_text(brief: TaskBrief) -> str:
    """The task as the agent reads it (the first line is stable: `Task N of M (session S; ...)`)."""
    if brief.interactive:
        kind = "a chat task: respond sends your message to the user and returns their reply"
    else:
        kind = "a single-turn task: respond submits your final answer"
    place = f"Task {brief.number} of {brief.total}" if brief.number else "Task"
    lines = [f"{place} (session {brief.session_id}; {kind})"]
    if brief.trials > 1:
        lines.append(
            f"Trial {brief.trial} of {brief.trials} of this task: a distinct attempt, "
            "started afresh (the org and the conversation know nothing of other trials)."
        )
    if brief.resumed:
        lines.append("Resumed: this session was left in progress; its earlier steps are kept.")
    if brief.finished:
        lines.append("This task has ended: call next_task for the next one.")
    lines += ["", "## System prompt", brief.system_prompt.rstrip(), ""]
    lines += ["## Request" if not brief.interactive else "## The user's opening message"]
    lines.append(brief.request)
    return "\n".join(lines)


def proxy_text(proxy: ProxySessions, holder: str) -> str:
    """The brief's closing lines when the model proxy serves: where to send model calls."""
    return (
        "\n\n## Model proxy\n"
        f"Send your model calls to the OpenAI-compatible base URL {proxy.base_url} with the API "
        f"key {proxy.key_for(holder)} (name the model as litellm does, e.g. "
        "openai/gpt-4o-mini): each call and its usage are recorded in this session."
    )


def client_name(ctx: Context, as_name: str | None) -> str:
    """The participant's name: `--as`, else the client's name and version from the handshake;
    a client known only by its SDK's default name (`mcp/0.1.0`) is refused without `--as`."""
    name, version = client_info(ctx)
    try:
        return mcp_participant_name(as_name, name, version)
    except ValueError as exc:
        raise ToolError(f"error: {exc}") from None


def client_record(ctx: Context, as_name: str | None) -> dict[str, Any]:
    """What a session records of who works it: the client's handshake name, `--as`."""
    name, version = client_info(ctx)
    out: dict[str, Any] = {"client": name, "client_version": version}
    if as_name:
        out["as"] = as_name
    if is_sdk_default(name):
        out["sdk_default_name"] = True
    return out


def build_server(
    make_queue: Callable[[], TaskQueue],
    *,
    as_name: str | None = None,
    stdio: bool = False,
    proxy: ProxySessions | None = None,
) -> tuple[MCPServer, QueueWorker]:
    """The MCP server over a queue made by `make_queue` (on the worker thread, at first use).
    Every tool returns text only (no structured copy: a brief would travel twice). Over stdio
    (`stdio`) the server renews its client's lease while it runs. `proxy`: the model proxy's
    sessions, whose keys are made for the clients' lease holders (each key is in its client's
    brief) and which read the leases to know who works what (`QueueWorker.lease_reader`)."""
    from crmarena_tui import __version__

    worker = QueueWorker(make_queue, stdio=stdio)
    server = RecordingServer(
        SERVER_NAME, version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )
    server.on_rejected = worker.rejected
    if proxy is not None and proxy.holders is None:
        proxy.holders = worker.lease_reader

    def next_brief(name: str, holder: str, client: dict[str, Any]) -> str:
        queue = worker.queue
        env = queue.next_task(name, holder, client)
        if env is None:
            left = queue.unfinished(name)
            if left:
                return (
                    f"No task is free: the {left} unfinished of {queue.describe()} are worked by "
                    "other clients. Call next_task again later (a task whose client vanished "
                    f"is handed out again after {queue.leases.timeout:g} s)."
                )
            return (
                f"The queue is done: all {queue.describe()} have a finished session. "
                "There is nothing left to work."
            )
        text = brief_text(env.task_brief())
        return text if proxy is None else text + proxy_text(proxy, holder)

    @server.tool(
        structured_output=False,
        description="Open the next unfinished task of the queue (or the one in progress)",
    )
    async def next_task(ctx: Context) -> str:
        name, holder = client_name(ctx, as_name), worker.holder(ctx)
        return await worker.call(next_brief, name, holder, client_record(ctx, as_name))

    @server.tool(
        structured_output=False, description="The current task again: system prompt and request"
    )
    async def get_task(ctx: Context) -> str:
        holder = worker.holder(ctx)
        return await worker.call(lambda: brief_text(worker.env(holder).task_brief()))

    @server.tool(
        structured_output=False,
        description="Run one SOQL query in the org; the records, or CODE: message",
    )
    async def execute_soql(query: str, ctx: Context) -> str:
        holder = worker.holder(ctx)
        return org_checked(await worker.call(lambda: worker.env(holder).execute_soql(query)))

    @server.tool(
        structured_output=False,
        description="Run one SOSL search (FIND {...} RETURNING ...) in the org",
    )
    async def execute_sosl(search: str, ctx: Context) -> str:
        holder = worker.holder(ctx)
        return org_checked(await worker.call(lambda: worker.env(holder).execute_sosl(search)))

    @server.tool(
        structured_output=False,
        description="The next batch of a paged query result: its nextRecordsUrl as the cursor",
    )
    async def query_more(cursor: str, ctx: Context) -> str:
        holder = worker.holder(ctx)
        return org_checked(await worker.call(lambda: worker.env(holder).query_more(cursor)))

    @server.tool(
        structured_output=False,
        description="An object's fields: name, type, description and relationships",
    )
    async def describe_object(name: str, ctx: Context) -> str:
        holder = worker.holder(ctx)
        return org_checked(await worker.call(lambda: worker.env(holder).describe_object(name)))

    @server.tool(
        structured_output=False,
        description="Send your message: in a single-turn task it submits your final answer; in a "
        "chat task it goes to the user and their reply comes back. `usage` (optional): "
        "{model, prompt_tokens, completion_tokens, cost} of the model calls behind it",
    )
    async def respond(ctx: Context, content: str, usage: dict[str, Any] | None = None) -> str:
        holder = worker.holder(ctx)
        return await worker.call(lambda: worker.env(holder).respond(content, usage=usage))

    @server.tool(
        structured_output=False,
        description="Report the model and token usage of your calls (fills cost columns); "
        "`calls`: how many model calls the figures total (default 1)",
    )
    async def report_usage(
        ctx: Context,
        model: str | None = None,
        prompt_tokens: int | None = None,
        completion_tokens: int | None = None,
        cost: float | None = None,
        calls: int | None = None,
    ) -> str:
        holder = worker.holder(ctx)
        counted = {} if calls is None else {"calls": calls}
        return await worker.call(
            lambda: worker.env(holder).report_usage(
                model, prompt_tokens, completion_tokens, cost, **counted
            )
        )

    return server, worker


class BearerToken:
    """ASGI middleware: every HTTP request must carry `Authorization: Bearer <token>`."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                body = json.dumps({"error": "a bearer token is required (--token)"}).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b"Bearer"),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


class HandshakeOnly:
    """ASGI middleware: over HTTP the server speaks the protocol's `initialize` era only. A
    request of the stateless 2026 era (an `MCP-Protocol-Version` header naming a version the
    handshake does not reach: `server/discover` and what follows it) carries no MCP session,
    so clients of one name and version could not be told apart, and would work each other's
    tasks (four pydantic-ai clients, all `fastmcp/4.2.3`, shared one). It is answered with the
    protocol's `-32022` error naming the handshake versions, on which the SDK's clients (and
    FastMCP's) fall back to `initialize`, and get an `mcp-session-id` each."""

    def __init__(self, app: Any) -> None:
        from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

        self.app = app
        self.versions = list(HANDSHAKE_PROTOCOL_VERSIONS)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            asked = headers.get(b"mcp-protocol-version", b"").decode("latin-1")
            if asked and asked not in self.versions:
                await self._refuse(asked, receive, send)
                return
        await self.app(scope, receive, send)

    async def _refuse(self, asked: str, receive: Any, send: Any) -> None:
        from mcp_types.jsonrpc import UNSUPPORTED_PROTOCOL_VERSION

        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        try:
            ident = json.loads(body).get("id")
        except (ValueError, AttributeError):
            ident = None
        error = {
            "code": UNSUPPORTED_PROTOCOL_VERSION,
            "message": f"protocol {asked} is not served here: connect with the initialize "
            "handshake (each client its own MCP session, so each works its own task)",
            "data": {"supported": self.versions, "requested": asked},
        }
        payload = json.dumps({"jsonrpc": "2.0", "id": ident, "error": error}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 400,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": payload})


def serve_stdio(server: MCPServer, early: EarlyHandshake | None = None) -> None:
    """Serve over this process's stdin and stdout. When both are pipes (as an MCP client
    starts a server) the event loop reads and writes them itself: the SDK's own stdio
    transport hands every line to a thread, three hand-offs per tool call. `early`: the
    handshake answered before the SDK was imported (`session/mcp_handshake.py`), whose bytes read
    the SDK reads first."""
    import anyio

    lowlevel = getattr(server, "_lowlevel_server", None)
    pipes = early is not None or all(mcp_handshake.is_pipe(fd) for fd in (0, 1))
    if lowlevel is None or not pipes:
        server.run("stdio")
        return
    anyio.run(_serve_pipes, lowlevel, early)


async def _serve_pipes(lowlevel: Any, early: EarlyHandshake | None = None) -> None:
    """The SDK's stdio transport (`stdio_server`) over line streams the event loop serves.
    As the SDK does, fd 0 reads the null device and fd 1 writes to stderr meanwhile, so
    nothing else in the process can write on the protocol's wire."""
    import os

    from mcp.server.stdio import stdio_server

    read_early = early.finish() if early is not None else b""
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)
    os.close(null)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 26, loop=loop)
    if read_early:
        reader.feed_data(read_early)
    await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader, loop=loop), os.fdopen(wire_in, "rb", 0)
    )
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(wire_out, "wb", 0)
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    out = _Out(writer, early)
    try:
        async with stdio_server(_Lines(reader), out) as (read_stream, write_stream):  # type: ignore[arg-type]
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
    finally:
        writer.close()


class _Lines:
    """`async for line in stdin`, as the SDK's transport reads its input."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader

    def __aiter__(self) -> "_Lines":
        return self

    async def __anext__(self) -> str:
        line = await self.reader.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


class _Out:
    """`await stdout.write(text)` and `flush()`, as the SDK's transport writes its output."""

    def __init__(self, writer: asyncio.StreamWriter, early: EarlyHandshake | None = None) -> None:
        self.writer = writer
        self.early = early

    async def write(self, text: str) -> None:
        if self.early is not None:
            if not self.early.settle(text):
                return
            if self.early.sent is None:
                self.early = None  # settled: the rest goes straight on the wire
        self.writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self.writer.drain()


LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _host_port(name: str, port: int) -> str:
    name = name.strip().lower()
    return f"[{name}]:{port}" if ":" in name and not name.startswith("[") else f"{name}:{port}"


def transport_security(host: str, port: int, allow_origins: Sequence[str] = ()) -> Any:
    """The SDK's DNS-rebinding protection for a server off loopback (issue 38): the `Host` header
    must be the address served on (or, on every address, a name of this machine, or loopback),
    or an `allow_origins` URL's host; an `Origin`, when sent, one of those. None on loopback,
    where the SDK turns the same checks on by itself."""
    import socket
    from urllib.parse import urlsplit

    from mcp.server.transport_security import TransportSecuritySettings

    if host in LOOPBACK:
        return None
    names = {host}
    if host in ("0.0.0.0", "::", ""):
        names = set(LOOPBACK) | {socket.gethostname(), socket.getfqdn()}
        with contextlib.suppress(OSError):
            names |= {str(i[4][0]) for i in socket.getaddrinfo(socket.gethostname(), None)}
    hosts = {_host_port(n, port) for n in names if n}
    origins = {f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")}
    for url in allow_origins:
        parts = urlsplit(url.strip())
        if parts.scheme in ("http", "https") and parts.hostname:
            origins.add(f"{parts.scheme}://{parts.netloc.lower()}")
            hosts.add(parts.netloc.lower())
            hosts.add(
                _host_port(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80))
            )
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=sorted(hosts),
        allowed_origins=sorted(origins),
    )


def http_app(
    server: MCPServer, host: str, port: int, token: str | None, allow_origins: Sequence[str] = ()
) -> Any:
    """The ASGI app `serve_http` runs: Host and Origin checked (`transport_security`), the
    handshake era only (`HandshakeOnly`), the token required when given."""
    security = transport_security(host, port, allow_origins)
    app: Any = HandshakeOnly(server.streamable_http_app(host=host, transport_security=security))
    return BearerToken(app, token) if token else app


def serve_http(
    server: MCPServer,
    host: str,
    port: int,
    token: str | None,
    allow_origins: Sequence[str] = (),
) -> None:
    import uvicorn

    app = http_app(server, host, port, token, allow_origins)
    print(f"crmarena-tui mcp: streamable HTTP at http://{host}:{port}/mcp", file=sys.stderr)
    uvicorn.run(app, host=host, port=port, log_level="warning")
