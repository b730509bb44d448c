"""A page of another site, open in the participant's browser, cannot open the app's websocket
(issue 38): headless chromium loads a page served from another origin on loopback whose script
opens `ws://127.0.0.1:PORT/ws` of a running `serve`; the server refuses it (403, logged) and the
page's socket never opens, while the server's own page connects. Skipped without Debian's
chromium (CI installs it: .ci/run)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
from pathlib import Path

import pytest

from tests.commands.test_serve import CHROMIUM, _free_port
from tests.support.serve_guard_support import serving

aiohttp = pytest.importorskip("aiohttp")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]

EVIL = """<!doctype html><title>another site</title><script>
window.result = "pending";
const ws = new WebSocket("ws://127.0.0.1:%d/ws");
ws.onopen = () => { window.result = "open"; };
ws.onclose = () => { if (window.result === "pending") window.result = "refused"; };
</script>"""


async def _evil_site(port: int, serve_port: int) -> object:
    from aiohttp import web

    async def page(_: web.Request) -> web.Response:
        return web.Response(text=EVIL % serve_port, content_type="text/html")

    app = web.Application()
    app.router.add_get("/", page)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner


async def _in_chromium(profile: Path, visits: list[tuple[str, str]]) -> list[object]:
    """Open each (url, expression) in headless chromium; the expression's value once it is no
    longer "pending"/false (at most 30 s each)."""
    proc = subprocess.Popen(
        [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
        + ["--disable-background-networking", f"--user-data-dir={profile}"]
        + ["--remote-debugging-port=0", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        devtools = None
        assert proc.stderr is not None
        for line in proc.stderr:
            if match := re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line):
                devtools = f"http://127.0.0.1:{match.group(1)}"
                break
        assert devtools, "chromium did not open its DevTools port"
        async with aiohttp.ClientSession() as http:
            targets = await (await http.get(devtools + "/json/list")).json()
            page = next(t for t in targets if t["type"] == "page")
            async with http.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                ids = iter(range(1, 10_000))

                async def call(method: str, **params: object) -> dict:
                    my_id = next(ids)
                    await ws.send_str(json.dumps({"id": my_id, "method": method, "params": params}))
                    while True:
                        msg = json.loads((await ws.receive()).data)
                        if msg.get("id") == my_id:
                            return msg.get("result", {})

                values: list[object] = []
                for url, expression in visits:
                    await call("Page.navigate", url=url)
                    value: object = None
                    for _ in range(60):
                        found = await call(
                            "Runtime.evaluate", returnByValue=True, expression=expression
                        )
                        value = found.get("result", {}).get("value")
                        if value not in (None, False, "pending"):
                            break
                        await asyncio.sleep(0.5)
                    values.append(value)
                return values
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def test_a_page_of_another_origin_is_refused_the_app_s_websocket(tmp_path: Path) -> None:
    with serving(tmp_path, "--db", str(tmp_path / "s.db")) as server:
        evil_port = _free_port()

        async def visit() -> list[object]:
            runner = await _evil_site(evil_port, server.port)
            try:
                return await _in_chromium(
                    tmp_path / "profile",
                    [
                        (f"http://127.0.0.1:{evil_port}/", "window.result"),
                        (server.url + "/", "!!document.querySelector('#terminal.-connected')"),
                    ],
                )
            finally:
                await runner.cleanup()  # type: ignore[attr-defined]

        evil, own = asyncio.run(asyncio.wait_for(visit(), timeout=120))
        log = server.log.read_text(errors="replace")
    assert evil == "refused"
    assert own is True  # the server's own page connects
    assert f"Origin 'http://127.0.0.1:{evil_port}' is not this server" in log
