"""A chat task worked with keys only through `serve` (issue 36): the task opened from the
filter, the chat reached with its browser-safe key (f4: a browser keeps ctrl+t for a new tab), a
message sent, the answer submitted; checked in the database. Once over the server's websocket as
xterm.js sends keys, and once in headless chromium (keys dispatched to the page), when installed.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import closing
from pathlib import Path

import pytest

from tests.support.app_support import SAMPLE
from tests.support.soql_fixture_support import build_fixture_org

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
MESSAGE = "Which product do you mean?"
ANSWER = "None"

Send = Callable[[str], Awaitable[None]]  # keys as xterm.js writes them to the app
Shown = Callable[[bytes], Awaitable[None]]  # returns once the app has drawn this text


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def chat_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """`serve` on a chat task file (its name marks the tasks interactive) and a fixture org."""
    tasks = tmp_path / "b2b_interactive.json"
    tasks.write_text(SAMPLE.read_text())
    org = build_fixture_org(tmp_path / "org.db")
    db = tmp_path / "s.db"
    port = _free_port()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        **{name: str(tmp_path / name.lower()) for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME")},
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "crmarena_tui", "serve", "--port", str(port)]
        + ["--tasks", str(tasks), "--org", str(org), "--db", str(db), "--as", "ann"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    proc.kill()
                    pytest.fail(f"serve did not listen: {proc.communicate()[1].decode()[-2000:]}")
                time.sleep(0.2)
        yield url, db
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # the server and the app processes it started
        proc.wait(timeout=10)


def _events(db: Path) -> list[tuple[str, str, dict]]:
    if not db.exists():
        return []
    try:
        with closing(sqlite3.connect(db, timeout=5)) as conn:
            rows = conn.execute("SELECT actor, kind, payload FROM events ORDER BY session_id, seq")
            return [(a, k, json.loads(p)) for a, k, p in rows]
    except sqlite3.OperationalError:  # (the app has not made its tables yet)
        return []


async def _until(what: str, check: Callable[[], bool], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.2)


async def work_the_chat_task(send: Send, shown: Shown, db: Path) -> None:
    """Open the chat task, say one thing to the customer with f4 + typing, submit an answer.
    (Keys sent while a screen opens are key-integrity's subject: here each waits for its screen.)
    """
    await shown(b"CRMArena")
    await send("/")
    await send("named entity")
    await send("\r")
    await _until(  # the session is open: the customer's opening line is stored
        "the customer's opening line",
        lambda: any(k == "message" and a == "user" for a, k, _ in _events(db)),
    )
    await shown(b"Customer: ")  # the chat drawn
    await shown("▶ Query".encode())  # the editor marked as focused: the workspace is ready
    await send("\x1bOS")  # f4: the chat (a browser never sends ctrl+t)
    await shown("▶ Chat".encode())  # the chat pane marked as focused
    await send(MESSAGE)
    await send("\r")
    await _until(
        "the message sent",
        lambda: any(
            k == "message" and a == "human" and p.get("text") == MESSAGE for a, k, p in _events(db)
        ),
    )
    await send("\x13")  # ctrl+s: the submit dialog, its answer field focused
    await shown(b"Submit your final answer")
    await send(ANSWER)
    await send("\r")
    await _until("the submission", lambda: any(k == "submit" for _, k, _ in _events(db)))


def test_a_chat_task_worked_with_keys_over_the_servers_websocket(
    chat_server: tuple[str, Path],
) -> None:
    aiohttp = pytest.importorskip("aiohttp")
    url, db = chat_server

    async def session() -> None:
        async with (
            aiohttp.ClientSession() as http,
            http.ws_connect(url.replace("http", "ws") + "/ws?width=100&height=30") as ws,
        ):
            seen = b""

            async def read() -> None:
                nonlocal seen
                async for msg in ws:
                    if msg.type in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT):
                        data = msg.data
                        seen += data if isinstance(data, bytes) else data.encode()

            reader = asyncio.create_task(read())

            async def shown(text: bytes) -> None:
                await _until(text.decode(), lambda: text in seen)

            async def send(keys: str) -> None:
                for key in [keys] if keys.startswith("\x1b") else list(keys):
                    await ws.send_json(["stdin", key])
                    await asyncio.sleep(0)

            await work_the_chat_task(send, shown, db)
            reader.cancel()

    asyncio.run(asyncio.wait_for(session(), timeout=150))
    said = [p["text"] for a, k, p in _events(db) if k == "message" and a == "human"]
    assert said == [MESSAGE]
    submitted = [p for _, k, p in _events(db) if k == "submit"]
    assert len(submitted) == 1 and ANSWER in json.dumps(submitted[0])


# -- the same in headless chromium ------------------------------------------------------------

_SPECIAL = {  # key sequence -> (key, code, virtual key code, text, modifiers)
    "\r": ("Enter", "Enter", 13, "\r", 0),
    "\x1bOS": ("F4", "F4", 115, "", 0),
    "\x13": ("s", "KeyS", 83, "", 2),  # ctrl+s
}


@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")
def test_a_chat_task_worked_with_keys_in_headless_chromium(
    chat_server: tuple[str, Path], tmp_path: Path
) -> None:
    import aiohttp

    url, db = chat_server

    async def session() -> None:
        import base64
        import re

        proc = subprocess.Popen(
            [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu"]
            + ["--disable-background-networking", "--disable-component-update", "--no-first-run"]
            + ["--disable-sync", f"--user-data-dir={tmp_path / 'profile'}"]
            + ["--window-size=1200,800", "--remote-debugging-port=0", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            devtools = None
            for line in proc.stderr:  # "DevTools listening on ws://127.0.0.1:PORT/devtools/..."
                if match := re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line):
                    devtools = f"http://127.0.0.1:{match.group(1)}"
                    break
            assert devtools, "chromium did not open its DevTools port"
            async with aiohttp.ClientSession() as http:
                targets = await (await http.get(devtools + "/json/list")).json()
                page = next(t for t in targets if t["type"] == "page")
                async with http.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0) as cdp:
                    ids = iter(range(1, 100_000))
                    drawn = bytearray()  # what the app sent the page (its websocket frames)

                    async def call(method: str, **params: object) -> dict:
                        my_id = next(ids)
                        await cdp.send_str(
                            json.dumps({"id": my_id, "method": method, "params": params})
                        )
                        while True:
                            msg = json.loads((await cdp.receive()).data)
                            if msg.get("method") == "Network.webSocketFrameReceived":
                                frame = msg["params"]["response"]
                                data = frame.get("payloadData", "")
                                drawn.extend(
                                    base64.b64decode(data)
                                    if frame.get("opcode") == 2
                                    else data.encode()
                                )
                            if msg.get("id") == my_id:
                                return msg.get("result", {})

                    async def shown(text: bytes) -> None:
                        deadline = time.monotonic() + 60
                        while text not in drawn:
                            assert time.monotonic() < deadline, f"never drawn: {text!r}"
                            await call("Runtime.evaluate", expression="1")
                            await asyncio.sleep(0.2)

                    await call("Network.enable")

                    async def connected() -> bool:
                        found = await call(
                            "Runtime.evaluate",
                            returnByValue=True,
                            expression="!!document.querySelector('#terminal.-connected')",
                        )
                        return bool(found["result"].get("value"))

                    await call("Page.navigate", url=url + "/")
                    deadline = time.monotonic() + 30
                    while not await connected():
                        assert time.monotonic() < deadline, "the page never connected"
                        await asyncio.sleep(0.3)
                    await call(
                        "Runtime.evaluate",
                        expression="document.querySelector('.xterm-helper-textarea').focus()",
                    )

                    async def press(key: str, code: str, vk: int, text: str, mods: int) -> None:
                        common = {
                            "key": key,
                            "code": code,
                            "windowsVirtualKeyCode": vk,
                            "modifiers": mods,
                        }
                        down = "keyDown" if text else "rawKeyDown"
                        await call("Input.dispatchKeyEvent", type=down, text=text, **common)
                        await call("Input.dispatchKeyEvent", type="keyUp", **common)

                    async def send(keys: str) -> None:
                        if keys in _SPECIAL:
                            await press(*_SPECIAL[keys])
                            return
                        for ch in keys:
                            code = f"Key{ch.upper()}" if ch.isalpha() else ""
                            await press(ch, code, ord(ch.upper()), ch, 0)

                    await work_the_chat_task(send, shown, db)
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)

    asyncio.run(asyncio.wait_for(session(), timeout=180))
    said = [p["text"] for a, k, p in _events(db) if k == "message" and a == "human"]
    assert said == [MESSAGE]
    assert any(k == "submit" for _, k, _ in _events(db))
