"""`mcp --http` off loopback checks Host and Origin (issue 38): the SDK's DNS-rebinding
protection, on by itself on loopback, is turned on with this server's names for any other
`--host` (`mcp_server.transport_security`), so a page of another site, or a DNS-rebinding one,
cannot drive the server."""

from __future__ import annotations

from typing import Any

import pytest

from crmarena_tui.session import mcp_server

pytest.importorskip("starlette")

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}
ACCEPT = "application/json, text/event-stream"


def _never() -> Any:
    raise AssertionError("no tool is called")


def _status(host: str, headers: dict[str, str], allow: list[str] | None = None) -> int:
    from starlette.testclient import TestClient

    server, _ = mcp_server.build_server(_never)
    app = mcp_server.http_app(server, host, 8765, None, allow or [])
    with TestClient(app, base_url="http://127.0.0.1:8765") as client:
        reply = client.post(
            "/mcp",
            json=INITIALIZE,
            headers={"Accept": ACCEPT, "Content-Type": "application/json"} | headers,
        )
        return reply.status_code


def test_off_loopback_a_foreign_host_or_origin_is_refused() -> None:
    assert _status("0.0.0.0", {"Host": "evil.example:8765"}) == 421
    assert _status("0.0.0.0", {"Host": "127.0.0.1:8765", "Origin": "http://evil.example"}) == 403
    assert _status("0.0.0.0", {"Host": "127.0.0.1:8765"}) == 200
    assert _status("10.1.2.3", {"Host": "10.1.2.3:8765", "Origin": "http://10.1.2.3:8765"}) == 200
    assert _status("10.1.2.3", {"Host": "localhost:8765"}) == 421


def test_allow_origin_lets_a_proxy_in() -> None:
    proxy = ["https://mcp.example.org"]
    headers = {"Host": "mcp.example.org", "Origin": "https://mcp.example.org"}
    assert _status("0.0.0.0", headers) == 421
    assert _status("0.0.0.0", headers, proxy) == 200


def test_settings_name_the_server() -> None:
    assert mcp_server.transport_security("127.0.0.1", 8765) is None  # the SDK's own on loopback
    settings = mcp_server.transport_security("0.0.0.0", 8765)
    assert settings.enable_dns_rebinding_protection
    assert "127.0.0.1:8765" in settings.allowed_hosts
    assert "evil.example:8765" not in settings.allowed_hosts
