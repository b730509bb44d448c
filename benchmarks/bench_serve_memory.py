"""Memory of `crmarena-tui serve` with 8 browser connections, against a bare Textual app served alike.

textual-serve starts one app process per browser connection. This benchmark plays 8 browsers with
headless websocket clients of textual-serve's protocol (the page's `/ws` endpoint: terminal output
arrives as binary frames, fed here into a terminal emulator, pyte), waits until every client's
screen shows the task list (`N tasks`; the bare app: its label), lets the processes settle, then
sums the memory of the server's whole process tree: resident (VmRSS), proportional (Pss: shared
pages split between the processes that share them) and peak (VmHWM). The baseline is
textual-serve serving a bare Textual app (a label and a footer) to 8 clients in the same run.

    python benchmarks/bench_serve_memory.py [--clients 8] [--tasks SRC]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pyte

ROOT = Path(__file__).resolve().parent.parent
COLUMNS, LINES = 180, 50
SETTLE_SECONDS = 3.0

BARE_SERVER = textwrap.dedent("""
    import sys
    from textual_serve.server import Server

    Server(sys.argv[1], host="127.0.0.1", port=int(sys.argv[2])).serve()
""")
BARE_APP = textwrap.dedent("""
    from textual.app import App
    from textual.widgets import Footer, Label

    class Bare(App):
        def compose(self):
            yield Label("BARE-FIRST-FRAME")
            yield Footer()

    Bare().run()
""")


@dataclass
class TreeMemory:
    """Memory of a server and the app processes under it, in kB."""

    server_rss: int
    apps: int
    apps_rss: int
    apps_pss: int
    apps_peak: int

    @property
    def total_rss(self) -> int:
        return self.server_rss + self.apps_rss


def _status_kb(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def _pss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    return 0


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def tree_memory(server_pid: int) -> TreeMemory:
    """The server's own RSS, and the app processes (the Python processes below it) summed."""
    tree, apps, todo = _children(), [], list(_children().get(server_pid, []))
    while todo:
        pid = todo.pop()
        todo.extend(tree.get(pid, []))
        if "python" in Path(f"/proc/{pid}/comm").read_text():
            apps.append(pid)
    return TreeMemory(
        server_rss=_status_kb(server_pid, "VmRSS"),
        apps=len(apps),
        apps_rss=sum(_status_kb(p, "VmRSS") for p in apps),
        apps_pss=sum(_pss_kb(p) for p in apps),
        apps_peak=sum(_status_kb(p, "VmHWM") for p in apps),
    )


class Tab:
    """One headless browser tab: it reads the app's terminal output onto an emulated screen."""

    def __init__(self, url: str, marker: re.Pattern[str]) -> None:
        self.url, self.marker = url, marker
        self.screen = pyte.Screen(COLUMNS, LINES)
        self.stream = pyte.ByteStream(self.screen)
        self.shown = asyncio.Event()
        self.seconds = 0.0

    async def run(self, stop: asyncio.Event) -> None:
        """Connect, read until `marker` is on the screen, keep reading until `stop` is set."""
        start = time.perf_counter()
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(
                f"{self.url}/ws?width={COLUMNS}&height={LINES}", max_msg_size=0
            ) as ws,
        ):
            while not stop.is_set():
                try:
                    msg = await asyncio.wait_for(ws.receive(), timeout=0.2)
                except TimeoutError:
                    continue
                if msg.type in (aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                    return
                if msg.type != aiohttp.WSMsgType.BINARY:
                    continue
                self.stream.feed(msg.data)
                if not self.shown.is_set() and self.marker.search("\n".join(self.screen.display)):
                    self.seconds = time.perf_counter() - start
                    self.shown.set()


async def serve_and_connect(
    argv: list[str], port: int, marker: str, clients: int, env: dict[str, str]
) -> tuple[TreeMemory, list[float]]:
    """Start the server, connect `clients` tabs, wait until each shows `marker`, let the processes
    settle, and measure the server's process tree."""
    proc = subprocess.Popen(
        argv, env=env, cwd=ROOT, start_new_session=True, stdout=subprocess.DEVNULL
    )
    stop = asyncio.Event()
    try:
        await _wait_for_port(port)
        tabs = [Tab(f"http://127.0.0.1:{port}", re.compile(marker)) for _ in range(clients)]
        running = [asyncio.create_task(tab.run(stop)) for tab in tabs]
        try:
            await asyncio.wait_for(asyncio.gather(*(t.shown.wait() for t in tabs)), timeout=180)
        except TimeoutError:
            late = next(t for t in tabs if not t.shown.is_set())
            raise RuntimeError(
                "a tab never showed the app:\n" + "\n".join(late.screen.display)
            ) from None
        await asyncio.sleep(SETTLE_SECONDS)
        memory = tree_memory(proc.pid)
        stop.set()
        await asyncio.gather(*running)
        return memory, [t.seconds for t in tabs]
    finally:
        stop.set()
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


async def _wait_for_port(port: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            await asyncio.sleep(0.2)
    raise RuntimeError(f"nothing listens on port {port}")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _mb(kb: int) -> str:
    return f"{kb / 1024:8.1f} MB"


def report(clients: int, bare: TreeMemory, app: TreeMemory, times: dict[str, list[float]]) -> None:
    print(f"{clients} headless browser tabs per server, {COLUMNS}x{LINES}")
    print(f"{'':44}{'bare Textual app':>18}{'crmarena-tui':>18}{'ratio':>8}")
    rows = [
        ("app processes", bare.apps, app.apps),
        ("app processes, RSS summed", bare.apps_rss, app.apps_rss),
        ("app processes, PSS summed", bare.apps_pss, app.apps_pss),
        ("app processes, peak RSS summed", bare.apps_peak, app.apps_peak),
        ("server process (textual-serve), RSS", bare.server_rss, app.server_rss),
        ("server + apps, RSS", bare.total_rss, app.total_rss),
    ]
    for label, b, a in rows:
        if label == "app processes":
            print(f"{label:44}{b:>18}{a:>18}")
            continue
        print(f"{label:44}{_mb(b):>18}{_mb(a):>18}{a / b:7.2f}x")
    for name, seconds in times.items():
        print(f"slowest tab to show {name}: {max(seconds) * 1000:.0f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--tasks", default="demo", help="task source for serve (default: demo)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **{k: v for k, v in os.environ.items() if k != "CRMARENA_TUI_ORG_DIR"},
            "PYTHONPATH": str(ROOT),
            "XDG_DATA_HOME": f"{tmp}/data",
            "XDG_CONFIG_HOME": f"{tmp}/config",
            "XDG_CACHE_HOME": f"{tmp}/cache",
            "HF_HUB_OFFLINE": "1",
        }
        print("building the demo orgs...", file=sys.stderr)
        build = "from crmarena_tui.demo.generator import ensure_demo_org as e; e('b2b'); e('b2c')"
        subprocess.run([sys.executable, "-c", build], env=env, check=True)
        (Path(tmp) / "bare.py").write_text(BARE_APP)
        (Path(tmp) / "server.py").write_text(BARE_SERVER)
        port = _free_port()
        bare_cmd = f"{sys.executable} {tmp}/bare.py"
        bare_argv = [sys.executable, f"{tmp}/server.py", bare_cmd, str(port)]
        bare, bare_times = asyncio.run(
            serve_and_connect(bare_argv, port, "BARE-FIRST-FRAME", args.clients, env)
        )
        port = _free_port()
        app_argv = [sys.executable, "-m", "crmarena_tui", "serve", "--port", str(port)]
        app_argv += ["--tasks", args.tasks, "--as", "bench", "--db", f"{tmp}/sessions.db"]
        app, app_times = asyncio.run(
            serve_and_connect(app_argv, port, r"\b[\d,]+ tasks\b", args.clients, env)
        )
    report(args.clients, bare, app, {"the bare app": bare_times, "the task list": app_times})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
