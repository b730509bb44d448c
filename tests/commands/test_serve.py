"""`crmarena-tui serve`: the app behind textual-serve, on loopback, one app process per connection."""

from __future__ import annotations

import asyncio
import os
import shlex
import signal
import socket
import struct
import subprocess
import sys
import time
import urllib.request
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from crmarena_tui.cli import build_parser
from crmarena_tui.commands.serve import play_command

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")


def test_play_command_passes_options_through_quoted(tmp_path: Path) -> None:
    db = tmp_path / "my sessions.db"
    args = build_parser().parse_args(
        ["serve", "--tasks", "hf:b2b", "--org", "demo:b2b", "--db", str(db), "--as", "Ana O'Neil"]
    )
    argv = shlex.split(play_command(args, python="/opt/py 3/bin/python"))
    assert argv == [
        "/opt/py 3/bin/python",
        "-m",
        "crmarena_tui",
        "play",
        "--tasks",
        "hf:b2b",
        "--org",
        "demo:b2b",
        "--db",
        str(db.resolve()),
        "--as",
        "Ana O'Neil",
    ]
    assert (args.host, args.port) == ("127.0.0.1", 8000)
    assert build_parser().parse_args(["play", *argv[4:]]).participant == "Ana O'Neil"
    assert "--lenient" not in argv
    lenient = build_parser().parse_args(["serve", "--org", "demo", "--lenient"])
    argv = shlex.split(play_command(lenient, python="py"))
    assert argv[-1] == "--lenient" and build_parser().parse_args(["play", *argv[4:]]).lenient


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str, deadline: float) -> tuple[int, str]:
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return response.status, response.read().decode("utf-8", "replace")
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@pytest.fixture
def server(tmp_path: Path, demo_orgs: Path) -> Iterator[str]:
    """`serve` on a free loopback port, over the demo tasks (the default): the demo orgs and their
    tasks are built first (`demo_orgs`), so the app shows its task table, not the first-run
    build, whichever tests ran before."""
    port = _free_port()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "crmarena_tui",
            "serve",
            "--port",
            str(port),
            "--db",
            str(tmp_path / "s.db"),
        ],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        try:
            _get(url + "/", time.monotonic() + 20)
        except OSError:
            proc.kill()
            pytest.fail(
                f"serve did not answer within 20 s: {proc.communicate(timeout=5)[1].decode()[-2000:]}"
            )
        yield url
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # the server and the app processes it started
        proc.wait(timeout=10)


def test_serves_the_textual_page_on_loopback(server: str) -> None:
    status, page = _get(server + "/", time.monotonic() + 5)
    assert status == 200
    assert "textual-terminal" in page and "/static/js/textual.js" in page
    assert f"ws://{server.removeprefix('http://')}/ws" in page


def test_a_browser_connection_starts_the_app(server: str) -> None:
    aiohttp = pytest.importorskip("aiohttp")

    async def first_screen() -> bytes:
        received = b""
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(server.replace("http", "ws") + "/ws?width=100&height=30") as ws,
        ):
            deadline = time.monotonic() + 20
            while b"CRMArena" not in received and time.monotonic() < deadline:
                msg = await asyncio.wait_for(
                    ws.receive(), timeout=max(deadline - time.monotonic(), 0.1)
                )
                if msg.type not in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT):
                    break
                received += msg.data if isinstance(msg.data, bytes) else msg.data.encode()
        return received

    screen = asyncio.run(first_screen())
    assert b"\x1b[?1049h" in screen  # the app switched the browser terminal to its screen
    assert b"CRMArena" in screen


def _png_is_blank(data: bytes) -> bool:
    """True for a PNG of (nearly) one colour: its decompressed pixel stream then holds only a few
    distinct byte values, where any rendered text or border brings dozens (decoded with zlib only)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8 : pos + 8 + length]
        pos += 12 + length
    return len(set(zlib.decompress(idat))) <= 16


def _png(rows: list[bytes], width: int) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", width, len(rows), 8, 2, 0, 0, 0)
    pixels = b"".join(b"\x00" + row for row in rows)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(pixels))
        + chunk(b"IEND", b"")
    )


def test_blank_screenshot_detector() -> None:
    solid = _png([bytes([18, 18, 18]) * 40 for _ in range(30)], 40)
    text = _png([bytes((x * 7 + y * 13) % 256 for x in range(120)) for y in range(30)], 40)
    assert _png_is_blank(solid) and not _png_is_blank(text)


async def _browser_screenshots(url: str, profile: Path) -> tuple[bytes, bytes, bool]:
    """Open `url` in headless chromium over the DevTools protocol: a screenshot as soon as the page
    loads, then one after the app has connected and drawn; also whether it connected."""
    import base64
    import json
    import re

    import aiohttp

    proc = subprocess.Popen(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={profile}",
            "--window-size=1200,800",
            "--remote-debugging-port=0",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        devtools = None
        for line in proc.stderr:  # "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/..."
            if match := re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line):
                devtools = f"http://127.0.0.1:{match.group(1)}"
                break
        assert devtools, "chromium did not open its DevTools port"
        async with aiohttp.ClientSession() as http:
            pages = [
                t
                for t in await (await http.get(devtools + "/json/list")).json()
                if t["type"] == "page"
            ]
            async with http.ws_connect(pages[0]["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                ids = iter(range(1, 10_000))

                async def call(method: str, **params: object) -> dict:
                    my_id = next(ids)
                    await ws.send_str(json.dumps({"id": my_id, "method": method, "params": params}))
                    while True:
                        msg = json.loads((await ws.receive()).data)
                        if msg.get("id") == my_id:
                            return msg.get("result", {})

                async def shot() -> bytes:
                    return base64.b64decode(
                        (await call("Page.captureScreenshot", format="png"))["data"]
                    )

                async def holds(expression: str) -> bool:
                    found = await call(
                        "Runtime.evaluate", returnByValue=True, expression=expression
                    )
                    return bool(found["result"].get("value"))

                await call("Page.navigate", url=url)
                deadline = time.monotonic() + 20
                while not await holds("document.readyState === 'complete'"):
                    assert time.monotonic() < deadline, "the page never loaded"
                    await asyncio.sleep(0.05)
                splash = await shot()
                deadline = time.monotonic() + 30
                while not (
                    connected := await holds("!!document.querySelector('#terminal.-connected')")
                ):
                    if time.monotonic() > deadline:
                        return splash, await shot(), False
                    await asyncio.sleep(0.2)
                # the app's first frames: until the screen holds the task table (far more detail
                # than the splash) or the deadline, after which the test's asserts say which
                deadline = time.monotonic() + 30
                app = await shot()
                while _png_is_blank(app) or len(app) <= 3 * len(splash):
                    if time.monotonic() > deadline:
                        break
                    await asyncio.sleep(0.2)
                    app = await shot()
                return splash, app, connected
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")
def test_headless_browser_shows_the_app(server: str, tmp_path: Path) -> None:
    splash, app, connected = asyncio.run(
        asyncio.wait_for(_browser_screenshots(server + "/", tmp_path / "profile"), timeout=90)
    )
    (tmp_path / "app.png").write_bytes(app)
    assert connected, "the page never connected to an app process"
    assert not _png_is_blank(app)
    # the app's screen (a table of tasks) holds far more detail than the connecting splash
    assert len(app) > 3 * len(splash), (len(app), len(splash))
