"""`crmarena-tui serve`: the app behind textual-serve, on loopback, one app process per connection."""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
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

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")


def test_play_command_passes_options_through_quoted(tmp_path: Path) -> None:
    db = tmp_path / "my sessions.db"
    args = build_parser().parse_args(["serve", "--tasks", "hf:b2b", "--org", "demo:b2b",
                                      "--db", str(db), "--as", "Ana O'Neil"])
    argv = shlex.split(play_command(args, python="/opt/py 3/bin/python"))
    assert argv == ["/opt/py 3/bin/python", "-m", "crmarena_tui", "play", "--tasks", "hf:b2b",
                    "--org", "demo:b2b", "--db", str(db.resolve()), "--as", "Ana O'Neil"]
    assert (args.host, args.port) == ("127.0.0.1", 8000)
    assert build_parser().parse_args(["play", *argv[4:]]).participant == "Ana O'Neil"


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
def server(tmp_path: Path) -> Iterator[str]:
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.Popen(
        [sys.executable, "-m", "crmarena_tui", "serve", "--port", str(port), "--db", str(tmp_path / "s.db")],
        cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        try:
            _get(url + "/", time.monotonic() + 20)
        except OSError:
            proc.kill()
            pytest.fail(f"serve did not answer within 20 s: {proc.communicate(timeout=5)[1].decode()[-2000:]}")
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
        async with aiohttp.ClientSession() as session, \
                session.ws_connect(server.replace("http", "ws") + "/ws?width=100&height=30") as ws:
            deadline = time.monotonic() + 20
            while b"CRMArena" not in received and time.monotonic() < deadline:
                msg = await asyncio.wait_for(ws.receive(), timeout=max(deadline - time.monotonic(), 0.1))
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
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    return len(set(zlib.decompress(idat))) <= 16


def _png(rows: list[bytes], width: int) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, len(rows), 8, 2, 0, 0, 0)
    pixels = b"".join(b"\x00" + row for row in rows)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(pixels)) + chunk(b"IEND", b"")


def test_blank_screenshot_detector() -> None:
    solid = _png([bytes([18, 18, 18]) * 40 for _ in range(30)], 40)
    text = _png([bytes((x * 7 + y * 13) % 256 for x in range(120)) for y in range(30)], 40)
    assert _png_is_blank(solid) and not _png_is_blank(text)


@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")
def test_headless_browser_screenshot_is_not_blank(server: str, tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run",
             f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1000,700",
             "--virtual-time-budget=8000", f"--screenshot={shot}"]
    proc = subprocess.Popen([str(CHROMIUM), *flags, server + "/"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        proc.wait(timeout=90)
    except subprocess.TimeoutExpired:
        pytest.fail("chromium did not finish the screenshot within 90 s")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        shutil.rmtree(tmp_path / "profile", ignore_errors=True)
    assert shot.exists() and not _png_is_blank(shot.read_bytes())
