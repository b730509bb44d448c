"""What `serve` (with or without `--study`) lets in (issue 38): the pages and the websocket only
for the addresses the server is reached by, each connection's input bounded, and each
connection's `play` process ended with it.

- Host and Origin: every request's `Host` header must name the server (the host and port it
  listens on; `localhost`, `127.0.0.1` and `[::1]` when it listens on loopback or on every
  address; the machine's names when on every address; `--public-url`'s and every
  `--allow-origin`'s), and an `Origin` header, when the browser sends one, must be one of them
  too. Anything else is answered `403` and logged: a page of another site open in the
  participant's browser (or a DNS-rebinding page) cannot open the app's websocket.
- A websocket message is at most `MAX_MESSAGE_BYTES` (a bigger one, such as a pasted novel,
  closes the connection), and a connection's process that does not quit within
  `STOP_SECONDS` of its browser leaving is terminated, then killed.
- Each `play` process gets this server's process id in `SERVE_PID_ENV`, and ends when the server
  does, even after a `kill -9` (`commands/_parent_watch.py`).

textual-serve and aiohttp are imported only when a server is made (`guarded_server`).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import os
import signal
import socket
import sys
import time
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from crmarena_tui.commands._parent_watch import SERVE_PID_ENV

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WILDCARDS = ("0.0.0.0", "::", "")
MAX_MESSAGE_BYTES = 64 * 1024  # a websocket message: keys, a paste of a page or two
STOP_SECONDS = 5.0  # a process that does not quit this long after its browser left is ended


def _netloc(host: str, port: int | None) -> str:
    """`host:port` as a Host header spells it (an IPv6 address in brackets), lower case."""
    host = host.strip().lower()
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"{host}:{port}" if port else host


def is_loopback(host: str) -> bool:
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def machine_names() -> set[str]:
    """This machine's names and addresses (for a server on every address), best effort."""
    names = {socket.gethostname(), socket.getfqdn()}
    with contextlib.suppress(OSError):
        for info in socket.getaddrinfo(socket.gethostname(), None):
            names.add(str(info[4][0]))
    return {n for n in names if n}


def origin_netloc(origin: str) -> str | None:
    """`http(s)://host[:port]` as `host:port` (the default port filled in); None when not one."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return _netloc(parts.hostname, port or (443 if parts.scheme == "https" else 80))


def allowed_netlocs(
    host: str, port: int, *, public_url: str | None = None, extra: Iterable[str] = ()
) -> frozenset[str]:
    """Every `host:port` the server may be named by in a request's Host or Origin: see the
    module's doc. `extra`: `--allow-origin` values (`https://study.example.org`)."""
    names = {host}
    if is_loopback(host) or host in WILDCARDS:
        names.update(LOOPBACK_NAMES)
    if host in WILDCARDS:
        names.update(machine_names())
    allowed = {_netloc(name, port) for name in names if name not in WILDCARDS}
    for url in [public_url or "", *extra]:
        if url and (netloc := origin_netloc(url)):
            allowed.add(netloc)
    return frozenset(allowed)


def refusal(host: str | None, origin: str | None, allowed: frozenset[str]) -> str | None:
    """Why a request with these Host and Origin headers is refused (None: it is let in). A Host
    without a port is read with port 80 or 443 (the browser left out its scheme's default)."""
    if not host:
        return "no Host header"
    named = host.strip().lower()
    ports = [""] if ":" in named.rsplit("]", 1)[-1] else [":80", ":443"]
    if not any(named + port in allowed for port in ports):
        return f"Host {host!r} is not this server"
    if origin is not None and origin_netloc(origin) not in allowed:
        return f"Origin {origin!r} is not this server"
    return None


def log_line(text: str) -> None:
    """One line on the server's output, with its time."""
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {text}", file=sys.stderr, flush=True)


def with_serve_pid(command: str) -> str:
    """`command` with this server's process id in its environment (`_parent_watch.py`)."""
    return f"{SERVE_PID_ENV}={os.getpid()} {command}"


async def end_process(process: Any, grace: float = STOP_SECONDS) -> None:
    """Terminate `process` (an asyncio subprocess) and its children if still running after
    `grace` seconds, then kill them."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, grace)):
        if process.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, sig)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(process.wait(), wait)


def guarded_server(command: str, *, allowed: frozenset[str], **options: Any) -> Any:
    """A textual-serve `Server` running `command` per connection behind the checks above
    (`options`: the Server's own). `serve --study` subclasses its class (`_serve_study.py`)."""
    return guarded_server_class()(command, allowed=allowed, **options)


def guarded_server_class() -> type:
    from aiohttp import web
    from textual_serve.app_service import AppService
    from textual_serve.server import Server

    class AppProcess(AppService):
        """The connection's `play` process, in its own process group (so it and what it starts
        end together), ended if it does not quit when asked."""

        async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
            environment = self._build_environment(width=width, height=height)
            self._process = process = await asyncio.create_subprocess_shell(
                self.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=environment,
                start_new_session=True,
            )
            assert process.stdin is not None
            self._stdin = process.stdin
            return process

        async def stop(self) -> None:
            process = self._process
            try:
                await asyncio.wait_for(super().stop(), STOP_SECONDS)
            except TimeoutError:
                log_line("a connection's app did not quit when its browser left: ending it")
            if process is not None:
                await end_process(process)

    class GuardedServer(Server):
        def __init__(self, command: str, *, allowed: frozenset[str], **options: Any) -> None:
            self.allowed = allowed
            super().__init__(command, **options)

        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            app.middlewares.append(self._check_request)
            return app

        @web.middleware
        async def _check_request(self, request: web.Request, handler: Any) -> Any:
            why = refusal(request.headers.get("Host"), request.headers.get("Origin"), self.allowed)
            if why:
                where = request.remote or "unknown address"
                log_line(f"refused {request.method} {request.path} from {where}: {why}")
                raise web.HTTPForbidden(text="Not allowed from this site.\n")
            return await handler(request)

        def process_command(self) -> str:
            """The command of the connection being opened."""
            return with_serve_pid(self.command)

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            """textual-serve's, with a bounded message size, the process in its own group and
            ended when the browser leaves (`AppProcess`)."""
            from textual_serve.server import to_int

            websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE_BYTES)
            width = to_int(request.query.get("width", "80"), 80)
            height = to_int(request.query.get("height", "24"), 24)
            service: AppProcess | None = None
            try:
                await websocket.prepare(request)
                service = AppProcess(
                    self.process_command(),
                    write_bytes=websocket.send_bytes,
                    write_str=websocket.send_str,
                    close=websocket.close,  # type: ignore[arg-type]  # (as textual-serve)
                    download_manager=self.download_manager,
                    debug=self.debug,
                )
                await service.start(width, height)
                await self.connected(websocket, service)
            except asyncio.CancelledError:
                await websocket.close()
            except Exception as error:  # as textual-serve: the connection ends, the server not
                log_line(f"a connection ended on {type(error).__name__}: {error}")
            finally:
                if service is not None:
                    await service.stop()
                if (failure := websocket.exception()) is not None:  # a heartbeat missed, too big
                    where = request.remote or "unknown address"
                    log_line(
                        f"a connection from {where} ended: {type(failure).__name__}: {failure}"
                    )
            return websocket

        async def connected(self, websocket: web.WebSocketResponse, service: Any) -> None:
            """Until the browser leaves: its messages to the process."""
            await self._process_messages(websocket, service)

    return GuardedServer
