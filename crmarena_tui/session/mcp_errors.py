"""Every MCP tool call is an event, mistakes included: a call rejected on its arguments (a
missing or mistyped argument, a tool that does not exist) is answered in the Salesforce-style
`CODE: message` form the org's own errors take (`INVALID_ARGUMENT: limit must be an integer`,
not the SDK's pydantic text) and stored in the caller's open session (its lease holder's) as an
`error` event (actor agent, `source: mcp`, the tool and its arguments), so tool-use mistakes can
be labelled like any step.
An org's error (`MALFORMED_QUERY: ...`, `INVALID_TYPE: ...`), already stored by the tool, is
flagged `isError` for the client as well (`OrgError`).

`RecordingServer` is the SDK's `MCPServer` with this one change in `call_tool`; `on_rejected`
stores the event (the MCP server sets it to run on its queue's thread).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, TextContent
from pydantic import ValidationError

ORG_ERROR = re.compile(r"^[A-Z][A-Z_]+: ")
SOURCE = "mcp"
_TYPES = {
    "int": "an integer",
    "float": "a number",
    "string": "a string",
    "bool": "true or false",
    "dict": "an object",
    "list": "a list",
}
# on_rejected(context, tool, arguments, text): the caller's context says whose session it is
Rejected = Callable[[Context[Any, Any], str, dict[str, Any], str], Awaitable[None]]


class OrgError(ToolError):
    """A tool's answer that is an org's `CODE: message` error: already stored, sent flagged."""


def argument_error(exc: ValidationError) -> str:
    """The Salesforce-style text of arguments the tool's schema rejected."""
    parts = []
    for err in exc.errors():
        field = ".".join(str(p) for p in err.get("loc", ())) or "arguments"
        kind = str(err.get("type", ""))
        if kind == "missing":
            parts.append(f"{field} is required")
            continue
        wanted = next((v for k, v in _TYPES.items() if kind.startswith(k + "_")), None)
        parts.append(f"{field} must be {wanted}" if wanted else f"{field}: {err.get('msg')}")
    return "INVALID_ARGUMENT: " + "; ".join(parts)


class RecordingServer(MCPServer):
    """`MCPServer` whose refused calls are stored and answered as `CODE: message`."""

    on_rejected: Rejected | None = None

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        if context is None:  # as the SDK's own call_tool makes it, to know the caller
            context = Context(mcp_server=self, subscriptions=self._subscriptions)
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise
        except OrgError as exc:
            return _flagged(str(exc.__cause__ or exc))
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, OrgError):
                return _flagged(str(cause))
            if isinstance(cause, ValidationError):
                text = argument_error(cause)
            elif self._tool_manager.get_tool(name) is None:
                text = f"INVALID_TOOL: there is no tool {name!r}"
            else:
                text = str(exc).removeprefix(f"Error executing tool {name}: ")
            if self.on_rejected is not None:
                await self.on_rejected(context, name, dict(arguments or {}), text)
            return _flagged(text)


def _flagged(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def org_checked(text: str) -> str:
    """`text` as the tool's answer; raised as `OrgError` when it is an org's error."""
    if ORG_ERROR.match(text):
        raise OrgError(text)
    return text
