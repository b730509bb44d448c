"""`crmarena-tui mcp` over stdio answers `initialize` before it imports the MCP SDK.

Importing the official SDK (`mcp.server.mcpserver`, its types built by pydantic) takes one to
two seconds on a loaded machine, and clients give up on a silent server after five (pydantic-ai
waits 5 s for `initialize`). So the command starts an `EarlyHandshake` first thing: a thread
reads the client's first line from the pipe and, when it is a well-formed `initialize` request,
answers it at once with the result the SDK gives for this server (the negotiated protocol
version, the server's name, version, instructions and capabilities). Then the command loads its
tasks and the SDK, and the SDK serves the connection from its first byte: the stdio transport
hands the SDK the very line already answered (so its session state, the client's name and the
negotiated version, are its own), and drops the SDK's reply to it, which it compares with the one
sent (a difference is reported on stderr; a test keeps them equal for every protocol version).

The 2026 protocol's first request, `server/discover` (FastMCP's client, so pydantic-ai's, sends it
instead of `initialize`), is answered the same way. A first line that is anything else (a
malformed request, another method) is not answered here: the SDK answers it, as without this
module. The module imports
nothing but the standard library; the SDK's list of protocol versions is read from its
`mcp_types/version.py` without importing the package.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

from crmarena_tui import __version__

SERVER_NAME = "crmarena-tui"
INSTRUCTIONS = """\
CRMArena-Pro tasks against a Salesforce-like org. Call next_task: it gives the system prompt \
(your role, the org's schema, the context) and the request. Work it with execute_soql, \
execute_sosl and describe_object (a large query result comes in batches: query_more fetches the \
next one); answer with respond (one call: in a single-turn task it submits your final answer; in \
a chat task it sends your message to the user and returns their reply). Then call next_task \
again, until it says the queue is done."""
# What `MCPServer` declares for a server with tools (it registers the prompt and resource
# handlers too, all with fixed lists); `tests/agents/test_mcp_handshake.py` checks it against the SDK.
CAPABILITIES: dict[str, Any] = {
    "prompts": {"listChanged": False},
    "resources": {"listChanged": False, "subscribe": False},
    "tools": {"listChanged": False},
}
# ... and what it declares in the 2026 protocol's `server/discover`
DISCOVER_CAPABILITIES: dict[str, Any] = {
    "prompts": {"listChanged": True},
    "resources": {"listChanged": True, "subscribe": True},
    "tools": {"listChanged": True},
}
ENVELOPE = "io.modelcontextprotocol/"  # the 2026 protocol's `_meta` keys


def handshake_versions() -> tuple[str, ...] | None:
    """The protocol versions the SDK negotiates in `initialize`, newest last; None when its
    version file cannot be read, and then nothing is answered early."""
    found = sdk_versions()
    return found[0] if found else None


def sdk_versions() -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The SDK's handshake versions and its 2026 (`server/discover`) versions, read from its
    `mcp_types/version.py` (importing `mcp_types` itself builds every type); None when the file
    cannot be read."""
    try:
        spec = importlib.util.find_spec("mcp_types")
        places = list(spec.submodule_search_locations or []) if spec else []
        if not places:
            return None
        path = Path(places[0]) / "version.py"
        module_spec = importlib.util.spec_from_file_location("_crmarena_mcp_versions", path)
        if module_spec is None or module_spec.loader is None:
            return None
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
        versions = tuple(module.HANDSHAKE_PROTOCOL_VERSIONS)
        modern = tuple(module.MODERN_PROTOCOL_VERSIONS)
    except Exception:  # an SDK laid out otherwise: the SDK answers, as before
        return None
    if not versions or not all(isinstance(v, str) for v in (*versions, *modern)):
        return None
    return versions, modern


def initialize_result(requested: str, versions: tuple[str, ...]) -> dict[str, Any]:
    """The `initialize` result for a client asking for protocol version `requested`: the same
    version when the SDK speaks it, else the SDK's newest handshake version."""
    return {
        "capabilities": CAPABILITIES,
        "instructions": INSTRUCTIONS,
        "protocolVersion": requested if requested in versions else versions[-1],
        "serverInfo": {"name": SERVER_NAME, "version": __version__},
    }


def discover_result(versions: tuple[str, ...]) -> dict[str, Any]:
    """The 2026 protocol's `server/discover` result for this server, as the SDK gives it."""
    return {
        "cacheScope": "private",
        "capabilities": DISCOVER_CAPABILITIES,
        "instructions": INSTRUCTIONS,
        "resultType": "complete",
        "supportedVersions": list(versions),
        "ttlMs": 0,
        "_meta": {ENVELOPE + "serverInfo": {"name": SERVER_NAME, "version": __version__}},
    }


def _client_info(info: Any) -> bool:
    return (
        isinstance(info, dict)
        and isinstance(info.get("name"), str)
        and isinstance(info.get("version"), str)
    )


def early_reply(
    line: bytes, versions: tuple[str, ...], modern: tuple[str, ...] = ()
) -> dict[str, Any] | None:
    """The reply to `line` when it is a well-formed `initialize` request of the handshake era
    (an id, a protocol version, capabilities and the client's name and version), or a
    well-formed `server/discover` of the 2026 protocol at a version of `modern` (FastMCP's
    client, so pydantic-ai's, asks that first); else None."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict):
        return None
    ident, params = message.get("id"), message.get("params")
    if message.get("jsonrpc") != "2.0" or not isinstance(params, dict):
        return None
    if isinstance(ident, bool) or not isinstance(ident, (int, str)):
        return None
    info, meta = params.get("clientInfo"), params.get("_meta")
    if message.get("method") == "server/discover":
        return _discover_reply(ident, params, modern)
    if message.get("method") != "initialize":
        return None
    if isinstance(meta, dict) and any(k.startswith(ENVELOPE) for k in meta):
        return None  # the 2026 envelope: the SDK's era rules decide
    well_formed = (
        isinstance(params.get("protocolVersion"), str)
        and isinstance(params.get("capabilities"), dict)
        and _client_info(info)
    )
    if not well_formed:
        return None
    result = initialize_result(params["protocolVersion"], versions)
    return {"jsonrpc": "2.0", "id": ident, "result": result}


def _discover_reply(
    ident: int | str, params: dict[str, Any], modern: tuple[str, ...]
) -> dict[str, Any] | None:
    """`server/discover` answered when its envelope is whole and its version one the SDK
    speaks (any other is the SDK's to refuse, with its own words)."""
    meta = params.get("_meta")
    if not modern or set(params) != {"_meta"} or not isinstance(meta, dict):
        return None
    info = meta.get(ENVELOPE + "clientInfo")
    well_formed = (
        meta.get(ENVELOPE + "protocolVersion") in modern
        and isinstance(meta.get(ENVELOPE + "clientCapabilities"), dict)
        and (info is None or _client_info(info))
        and all(k.startswith(ENVELOPE) or k == "progressToken" for k in meta)
    )
    if not well_formed:
        return None
    return {"jsonrpc": "2.0", "id": ident, "result": discover_result(modern)}


class EarlyHandshake:
    """Reads the client's first line from fd 0 on a thread and answers an `initialize` on fd 1
    (`early_reply`). `finish` waits for that line and returns every byte read, for the SDK's
    transport to read first; `settle` takes each line the SDK writes and says whether it goes on
    the wire (the SDK's own reply to the answered `initialize` does not)."""

    def __init__(self, wire_in: int = 0, wire_out: int = 1) -> None:
        self.wire_in, self.wire_out = wire_in, wire_out
        self.read = b""
        self.sent: dict[str, Any] | None = None
        self._thread = threading.Thread(target=self._answer, name="mcp-handshake", daemon=True)

    def start(self) -> EarlyHandshake:
        self._thread.start()
        return self

    def _answer(self) -> None:
        chunks: list[bytes] = []
        while True:
            try:
                chunk = os.read(self.wire_in, 1 << 16)
            except OSError:
                break
            chunks.append(chunk)
            if not chunk or b"\n" in chunk:
                break
        self.read = b"".join(chunks)
        line = self.read.split(b"\n", 1)[0]
        found = sdk_versions() if b"\n" in self.read else None
        reply = early_reply(line, *found) if found else None
        if reply is None:
            return
        data = (json.dumps(reply, separators=(",", ":")) + "\n").encode()
        try:
            while data:
                data = data[os.write(self.wire_out, data) :]
        except OSError:
            return
        self.sent = reply

    def finish(self) -> bytes:
        """Every byte read so far (the first line and whatever came with it), once the first
        line has come (or the input ended)."""
        self._thread.join()
        return self.read

    def settle(self, text: str) -> bool:
        """Whether the SDK's line `text` goes on the wire: not its reply to the `initialize`
        answered early (which, when it differs, is reported on stderr)."""
        if self.sent is None:
            return True
        try:
            message = json.loads(text)
        except ValueError:
            return True
        if not isinstance(message, dict) or "method" in message:
            return True
        if message.get("id") != self.sent["id"]:
            return True
        sent, self.sent = self.sent, None
        if message != sent:
            print(
                "crmarena-tui mcp: warning: the SDK's initialize reply differs from the one "
                f"sent early: {json.dumps(message)[:400]}",
                file=sys.stderr,
            )
        return False


def is_pipe(fd: int) -> bool:
    """A pipe or a socket (Node's clients hand a server a socket pair), as MCP clients start
    servers: the event loop can read and write it itself."""
    import stat

    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def start_early() -> EarlyHandshake | None:
    """The handshake started, when stdin and stdout are pipes (else the SDK's own transport
    serves the process's streams, handshake included)."""
    if not (is_pipe(0) and is_pipe(1)):
        return None
    return EarlyHandshake().start()
