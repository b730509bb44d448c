"""What `serve` lets in and leaves behind (issue 38): Host and Origin checked on the pages and
the websocket (403 and a log line for another site; `--allow-origin` for a proxy), a pasted
novel refused with the process ended, and no app process left after a `kill -9` of the server."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from pathlib import Path

import pytest

from crmarena_tui.commands._serve_guard import allowed_netlocs, refusal
from tests.support.serve_guard_support import descendants, serving, wait_until_gone

aiohttp = pytest.importorskip("aiohttp")


def test_the_allow_list_names_the_server_only() -> None:
    allowed = allowed_netlocs("127.0.0.1", 8000, extra=["https://study.example.org"])
    assert refusal("127.0.0.1:8000", None, allowed) is None
    assert refusal("localhost:8000", "http://localhost:8000", allowed) is None
    assert refusal("[::1]:8000", "http://[::1]:8000", allowed) is None
    assert refusal("study.example.org", "https://study.example.org", allowed) is None
    assert refusal("study.example.org:80", None, allowed)  # the proxy's https port only
    assert refusal("127.0.0.1:8000", "http://evil.example", allowed)
    assert refusal("127.0.0.1:8000", "null", allowed)
    assert refusal("127.0.0.1:8000", "http://127.0.0.1:9999", allowed)
    assert refusal("evil.example:8000", None, allowed)  # a DNS-rebinding page
    assert refusal(None, None, allowed)
    # --host extends it: a server on a LAN address is named by it, not by loopback names
    lan = allowed_netlocs("192.168.1.5", 8000)
    assert refusal("192.168.1.5:8000", "http://192.168.1.5:8000", lan) is None
    assert refusal("localhost:8000", None, lan)


async def _first_screen(ws: aiohttp.ClientWebSocketResponse, word: bytes) -> bytes:
    received = b""
    deadline = time.monotonic() + 30
    while word not in received and time.monotonic() < deadline:
        msg = await asyncio.wait_for(ws.receive(), timeout=max(deadline - time.monotonic(), 0.1))
        if msg.type not in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT):
            break
        received += msg.data if isinstance(msg.data, bytes) else msg.data.encode()
    return received


def test_another_site_is_refused_and_the_server_itself_let_in(tmp_path: Path) -> None:
    with serving(
        tmp_path, "--db", str(tmp_path / "s.db"), "--allow-origin", "https://proxy.example"
    ) as server:
        ws_url = server.url.replace("http", "ws") + "/ws?width=100&height=30"
        mine = f"http://127.0.0.1:{server.port}"

        async def visit() -> tuple[list[int], bytes]:
            statuses = []
            async with aiohttp.ClientSession() as http:
                for headers in (
                    {"Origin": "http://evil.example"},  # a page of another site
                    {"Host": f"evil.example:{server.port}"},  # a DNS-rebinding page
                    {"Origin": f"http://localhost:{server.port + 1}"},  # another local port
                ):
                    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                        await http.ws_connect(ws_url, headers=headers)
                    statuses.append(refused.value.status)
                page = await http.get(server.url + "/", headers={"Host": "evil.example"})
                statuses.append(page.status)
                proxied = await http.get(
                    server.url + "/",
                    headers={"Host": "proxy.example", "Origin": "https://proxy.example"},
                )
                statuses.append(proxied.status)
                async with http.ws_connect(ws_url, headers={"Origin": mine}) as ws:
                    return statuses, await _first_screen(ws, b"CRMArena")

        statuses, screen = asyncio.run(asyncio.wait_for(visit(), timeout=90))
        log = server.log.read_text(errors="replace")
    assert statuses == [403, 403, 403, 403, 200]
    assert b"CRMArena" in screen  # the server's own origin: the app
    assert "refused GET /ws from 127.0.0.1: Origin 'http://evil.example' is not this server" in (
        log
    )
    assert f"Host 'evil.example:{server.port}' is not this server" in log


def test_a_pasted_novel_is_refused_and_its_process_ends(tmp_path: Path) -> None:
    """100,000 characters in one message close the connection (the websocket's limit), and the
    connection's process is gone soon after, instead of spinning at 100% CPU."""
    with serving(tmp_path, "--db", str(tmp_path / "s.db")) as server:

        async def paste() -> tuple[set[int], aiohttp.WSMsgType]:
            async with (
                aiohttp.ClientSession() as http,
                http.ws_connect(server.url.replace("http", "ws") + "/ws") as ws,
            ):
                await _first_screen(ws, b"CRMArena")
                apps = descendants(server.proc.pid)
                await ws.send_str(json.dumps(["stdin", "\x1b[200~" + "x" * 100_000 + "\x1b[201~"]))
                while (msg := await ws.receive()).type not in (
                    aiohttp.WSMsgType.CLOSE,
                    aiohttp.WSMsgType.CLOSED,
                    aiohttp.WSMsgType.CLOSING,
                ):
                    pass
                return apps, msg.type

        apps, closing = asyncio.run(asyncio.wait_for(paste(), timeout=90))
        assert apps, "the connection started no process"
        assert not wait_until_gone(apps, 20), "the app process outlived its connection"
        assert server.proc.poll() is None  # the server goes on


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
@pytest.mark.parametrize("reaped", [True, False], ids=["reaped", "left-a-zombie"])
def test_kill_9_of_serve_leaves_no_app_process(tmp_path: Path, reaped: bool) -> None:
    with serving(tmp_path, "--db", str(tmp_path / "s.db")) as server:

        async def connect_and_kill() -> set[int]:
            async with aiohttp.ClientSession() as http:
                tabs = [
                    await http.ws_connect(server.url.replace("http", "ws") + "/ws")
                    for _ in range(2)
                ]
                for ws in tabs:
                    await _first_screen(ws, b"CRMArena")
                apps = descendants(server.proc.pid)
                os.kill(server.proc.pid, signal.SIGKILL)  # the server alone, not its group
                if reaped:  # else a zombie until its supervisor waits for it (serving's end)
                    server.proc.wait(timeout=10)
                for ws in tabs:
                    await ws.close()
                return apps

        apps = asyncio.run(asyncio.wait_for(connect_and_kill(), timeout=90))
        assert len(apps) >= 2
        assert not wait_until_gone(apps, 20), "app processes outlived the killed server"
