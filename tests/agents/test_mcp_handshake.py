"""`crmarena-tui mcp` over stdio answers `initialize` before it imports the MCP SDK
(crmarena_tui/session/mcp_handshake.py), with the reply the SDK itself gives, and the SDK then
serves the connection as if it had answered."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from crmarena_tui.session.mcp_handshake import (
    early_reply,
    handshake_versions,
    initialize_result,
    sdk_versions,
)
from crmarena_tui.storage import Store


def initialize(version: str, ident: Any = 0, **params: Any) -> dict[str, Any]:
    body = {
        "protocolVersion": version,
        "capabilities": {"roots": {"listChanged": True}},
        "clientInfo": {"name": "gate-client", "version": "2.5"},
        **params,
    }
    return {"jsonrpc": "2.0", "id": ident, "method": "initialize", "params": body}


def sdk_replies(lines: list[str]) -> list[dict[str, Any]]:
    """What the SDK itself writes for our server given these input lines (its stdio transport
    over in-memory lines, as `mcp_server._serve_pipes` feeds it)."""
    import anyio
    from mcp.server.stdio import stdio_server

    from crmarena_tui.session.mcp_server import build_server

    def no_queue() -> Any:
        raise AssertionError("the handshake needs no queue")

    server, worker = build_server(no_queue, stdio=True)
    lowlevel = server._lowlevel_server
    written: list[str] = []

    class Lines:
        def __init__(self) -> None:
            self.left = list(lines)

        def __aiter__(self) -> Lines:
            return self

        async def __anext__(self) -> str:
            if not self.left:
                await anyio.sleep(0.2)  # let the replies out before the input ends
                raise StopAsyncIteration
            return self.left.pop(0) + "\n"

    class Out:
        async def write(self, text: str) -> None:
            written.append(text)

        async def flush(self) -> None:
            pass

    async def main() -> None:
        async with stdio_server(Lines(), Out()) as (read, write):  # type: ignore[arg-type]
            await lowlevel.run(read, write, lowlevel.create_initialization_options())

    try:
        anyio.run(main)
    finally:
        worker.close()
    return [json.loads(t) for t in written]


def test_the_sdks_protocol_versions_are_read_without_importing_it() -> None:
    probe = (
        "import sys\nfrom crmarena_tui.session.mcp_handshake import handshake_versions\n"
        "v = handshake_versions()\nprint(v[-1], 'mcp_types' in sys.modules, 'mcp' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    from mcp_types.version import LATEST_HANDSHAKE_VERSION

    assert done.stdout.split() == [LATEST_HANDSHAKE_VERSION, "False", "False"], done.stderr


def test_the_early_reply_is_the_sdks_for_every_protocol_version() -> None:
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    versions = handshake_versions()
    assert versions == tuple(HANDSHAKE_PROTOCOL_VERSIONS)
    for asked, ident in [*((v, 7) for v in versions), ("1999-01-01", "an-id")]:
        message = initialize(asked, ident)
        ours = early_reply(json.dumps(message).encode(), versions)
        assert ours is not None
        assert sdk_replies([json.dumps(message)])[0] == ours, asked
    assert initialize_result("1999-01-01", versions)["protocolVersion"] == versions[-1]


def discover(version: str, ident: Any = 3, **meta: Any) -> dict[str, Any]:
    envelope = {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "fastmcp", "version": "4.2.3"},
        **meta,
    }
    return {
        "jsonrpc": "2.0",
        "id": ident,
        "method": "server/discover",
        "params": {"_meta": envelope},
    }


def test_the_early_discover_reply_is_the_sdks() -> None:
    """The 2026 protocol's first request (FastMCP's client sends it instead of initialize)."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    found = sdk_versions()
    assert found is not None and found[1] == tuple(MODERN_PROTOCOL_VERSIONS)
    for version in found[1]:
        message = json.dumps(discover(version))
        ours = early_reply(message.encode(), *found)
        assert ours is not None
        assert sdk_replies([message])[0] == ours
    assert early_reply(json.dumps(discover("2099-01-01")).encode(), *found) is None
    bare = discover(found[1][-1])
    del bare["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
    assert early_reply(json.dumps(bare).encode(), *found) is None


@pytest.mark.parametrize(
    "line",
    [
        b"not json",
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}}).encode(),
        json.dumps(initialize("2025-06-18", ident=None)).encode(),
        json.dumps(initialize("2025-06-18", clientInfo={"name": "x"})).encode(),
        json.dumps(initialize("2025-06-18", capabilities=None)).encode(),
        json.dumps({**initialize("2025-06-18"), "jsonrpc": "1.0"}).encode(),
    ],
)
def test_a_first_line_that_is_no_well_formed_initialize_is_left_to_the_sdk(line: bytes) -> None:
    assert early_reply(line, ("2025-06-18",)) is None


# The server with the SDK's import held back: the first `import mcp` waits until the test
# writes a byte into a FIFO. A reply to `initialize` can only come before that if the server
# answers it without the SDK.
GATED = """
import os, sys

class Gate:
    def find_spec(self, name, path=None, target=None):
        if name == "mcp" and self in sys.meta_path:
            sys.meta_path.remove(self)
            print("gate: mcp held", file=sys.stderr, flush=True)
            with open(os.environ["MCP_GATE"], "rb") as gate:
                gate.read(1)
        return None

sys.meta_path.insert(0, Gate())
from crmarena_tui.cli import main
raise SystemExit(main(sys.argv[1:]))
"""


def test_initialize_is_answered_before_the_sdk_is_imported(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    db = tmp_path / "s.db"
    args = ["mcp", "--db", str(db), "--tasks", "demo:small", "--limit", "1"]
    proc = subprocess.Popen(
        [sys.executable, "-c", GATED, *args, "--protocol", "workbench"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "MCP_GATE": str(gate)},
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    lines: queue.Queue[bytes] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()
    held: queue.Queue[bytes] = queue.Queue()
    threading.Thread(target=lambda: [held.put(x) for x in proc.stderr], daemon=True).start()

    def send(message: dict[str, Any]) -> None:
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()

    def reply(ident: int) -> dict[str, Any]:
        while True:  # (the timeout only keeps a broken server from hanging the suite)
            message = json.loads(lines.get(timeout=120))
            if message.get("id") == ident:
                return message

    try:
        send(initialize("2025-06-18", 0))
        first = reply(0)
        assert first["result"]["serverInfo"]["name"] == "crmarena-tui"
        while b"gate: mcp held" not in held.get(timeout=120):
            pass  # the server reached the SDK's import only now, the reply already sent
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        with open(gate, "wb") as opened:
            opened.write(b"x")
        tools = reply(1)["result"]["tools"]
        assert "next_task" in {t["name"] for t in tools}
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "next_task"}})
        brief = reply(2)["result"]["content"][0]["text"]
        assert brief.startswith("Task 1 of 1 (session ")
        assert lines.empty()  # the SDK's own reply to the early-answered initialize was dropped
    finally:
        proc.stdin.close()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:  # held at the gate: the server never answered
            proc.kill()
            proc.wait()
    with Store(db) as store:
        (session,) = store.sessions()
        # the SDK holds the handshake's client name: the session's participant is the client
        assert store.get_participant(session.participant_id).name == "gate-client/2.5"


def test_the_queue_and_the_soql_parser_are_made_before_the_first_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`mcp --http` warms its worker before it listens: the first query of each client does
    not wait on the parser's build (with four clients at once, the last waited past the Agents
    SDK's 5 s)."""
    from crmarena_tui.demo.sources import load_tasks
    from crmarena_tui.orgs.soql import parser
    from crmarena_tui.session.mcp_server import build_server
    from crmarena_tui.session.service import SessionService
    from crmarena_tui.session.task_queue import TaskQueue
    from crmarena_tui.settings.config import Settings

    monkeypatch.setattr(parser, "_parser", None)
    made: list[TaskQueue] = []

    def make_queue() -> TaskQueue:
        service = SessionService(Settings(protocol="workbench"))
        made.append(TaskQueue(Store(tmp_path / "s.db"), load_tasks("demo:small")[:1], service))
        return made[-1]

    _server, worker = build_server(make_queue)
    try:
        worker.warm()
        assert len(made) == 1 and parser._parser is not None
    finally:
        worker.close()
