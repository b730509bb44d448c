"""Headless chromium driven over the DevTools protocol, for the browser tests of `serve`: a tab
whose keys are typed into the page (xterm.js sends them as it would a person's) and whose screen
is read from the websocket frames the page receives, through pyte. Skipped without Debian's
chromium (CI installs it: .ci/run)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

aiohttp = pytest.importorskip("aiohttp")
pyte = pytest.importorskip("pyte")

CHROMIUM = Path("/usr/bin/chromium")


@contextlib.contextmanager
def chromium(profile: Path) -> Iterator[str]:
    """Headless chromium with a fresh profile; its DevTools base URL. Killed on leaving."""
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
        assert proc.stderr is not None
        for line in proc.stderr:
            if match := re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line):
                yield f"http://127.0.0.1:{match.group(1)}"
                return
        raise AssertionError("chromium did not open its DevTools port")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


KEYS = {  # key name -> (key, code, virtual key code, text, modifiers)
    "tab": ("Tab", "Tab", 9, "\t", 0),
    "enter": ("Enter", "Enter", 13, "\r", 0),
    "ctrl+r": ("r", "KeyR", 82, "", 2),
    "ctrl+s": ("s", "KeyS", 83, "", 2),
}


class Page:
    """One chromium tab driven over the DevTools protocol; the app's screen kept by pyte."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.ids = iter(range(1, 1_000_000))
        self.pending: dict[int, asyncio.Future] = {}
        self.screen = pyte.Screen(120, 40)
        self.stream = pyte.ByteStream(self.screen)
        self.changed = asyncio.Event()
        self.frames = 0
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for msg in self.ws:
            data = json.loads(msg.data)
            if "id" in data and data["id"] in self.pending:
                self.pending.pop(data["id"]).set_result(data.get("result", {}))
            elif data.get("method") == "Network.webSocketFrameReceived":
                response = data["params"]["response"]
                if response["opcode"] == 2:  # binary: the terminal's bytes
                    self.stream.feed(base64.b64decode(response["payloadData"]))
                    self.frames += 1
                    self.changed.set()

    async def call(self, method: str, **params: object) -> dict:
        my_id = next(self.ids)
        future = asyncio.get_running_loop().create_future()
        self.pending[my_id] = future
        await self.ws.send_str(json.dumps({"id": my_id, "method": method, "params": params}))
        return await asyncio.wait_for(future, 60)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    async def wait_for(self, *words: str, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while not all(w in self.text() for w in words):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"never saw {words}; the screen:\n{self.text()}")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), timeout=min(left, 1.0))

    async def value(self, expression: str) -> object:
        """The page's value of a JavaScript `expression`."""
        found = await self.call("Runtime.evaluate", returnByValue=True, expression=expression)
        return found.get("result", {}).get("value")

    async def focus_terminal(self) -> None:
        await self.value("document.querySelector('.xterm-helper-textarea').focus()")

    async def type(self, text: str) -> None:
        await self.call("Input.insertText", text=text)

    async def key(self, name: str) -> None:
        key, code, vk, text, modifiers = KEYS[name]
        base = {"key": key, "code": code, "windowsVirtualKeyCode": vk, "modifiers": modifiers}
        await self.call("Input.dispatchKeyEvent", type="keyDown", text=text, **base)
        await self.call("Input.dispatchKeyEvent", type="keyUp", **base)


async def open_page(http: aiohttp.ClientSession, devtools: str, url: str) -> Page:
    """A new tab of the browser at `devtools`, its network watched, loading `url`."""
    async with http.put(f"{devtools}/json/new?about:blank") as made:
        target = await made.json()
    ws = await http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0)
    page = Page(ws)
    await page.call("Network.enable")
    await page.call("Page.enable")
    await page.call("Page.navigate", url=url)
    return page
