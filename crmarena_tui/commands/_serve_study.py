"""`serve --study`: the textual-serve server of a study, safe to expose (issues 28 and 38).

Behind the checks every `serve` has (`_serve_guard.py`: Host and Origin, message size, processes
ended with their browser and with the server), a connection is first *joining* (on the join
screen) and then *joined* (its participant's name and code matched: the join log holds a
`joined` row with the connection's name). Each browser connection starts a `play` process
(about 100 MB), so the server takes at most `--max-connections` joined connections (default:
twice the study's participants) and, apart from them, at most `--max-joining` joining ones
(default: twice the study's participants, at least 2); a joining connection that has not joined
within `--join-timeout` seconds of its join screen's first output (default 120; an app that
shows nothing in that time is closed too) is closed. When the joining places are all taken,
a new connection takes the place of the oldest one that has shown its join screen for
`--join-grace` seconds (default `SILENT_GRACE`) with no key (that one is closed; its silence
counts from the app's first output, so a slow start on a loaded server is not silence): idle connections opened by someone without a join code therefore
neither keep a participant out nor stay, while a person typing on the join screen keeps their
place. A connection over either bound is answered `503` and logged on the server's output with
its time and address.

Each connection is named (the browser's address and the connection's number) and its `play`
process gets the name in `CRMARENA_TUI_CONNECTION`, so the join screen logs every try with it
(`studies/joins.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import shlex
from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from crmarena_tui.commands._serve_guard import guarded_server_class, log_line, with_serve_pid
from crmarena_tui.studies.joins import CONNECTION_ENV

# The connection the running request handler serves (each aiohttp request is its own task).
_CONNECTION: ContextVar[str] = ContextVar("connection", default="")
JOIN_TIMEOUT = 120.0
SILENT_GRACE = (
    10.0  # seconds a joining connection may stay silent before a newcomer takes its place
)


def participant_count(db: Path, study: str) -> int:
    from crmarena_tui.storage import Store
    from crmarena_tui.studies.db import get_study, participants

    with Store(db) as store:
        return len(participants(store, get_study(store, study)))


def default_max_connections(db: Path, study: str) -> int:
    """Twice the study's participants (a participant may open a second tab), at least 2."""
    return max(2, 2 * participant_count(db, study))


def default_max_joining(db: Path, study: str) -> int:
    """Twice the study's participants (all of them arriving at once, some with a second tab),
    at least 2."""
    return max(2, 2 * participant_count(db, study))


def command_for(command: str, connection: str) -> str:
    """The shell command of one connection's `play` process: `command` with the connection's
    name in its environment."""
    return f"{CONNECTION_ENV}={shlex.quote(connection)} {command}" if connection else command


def joined_among(db: Path, study: str, names: list[str]) -> set[str]:
    """Blocking: which of the connections `names` have joined `study` (the join log)."""
    from crmarena_tui.storage import Store
    from crmarena_tui.studies.db import get_study
    from crmarena_tui.studies.joins import joined_connections

    with Store(db) as store:
        return joined_connections(store, get_study(store, study), names)


def study_server(
    command: str,
    *,
    db: Path,
    study: str,
    max_connections: int,
    max_joining: int,
    join_timeout: float = JOIN_TIMEOUT,
    join_grace: float = SILENT_GRACE,
    **options: Any,
) -> Any:
    """A guarded textual-serve `Server` running `command` per connection within the bounds
    above (`options`: `guarded_server`'s)."""
    from aiohttp import web

    base = guarded_server_class()

    class StudyServer(base):  # type: ignore[misc,valid-type]
        def __init__(self) -> None:
            self._numbers = itertools.count(1)
            self.joining: set[str] = set()
            self.joined: set[str] = set()
            # joining connections showing their app with no key sent yet, oldest first:
            # (since, websocket)
            self.silent: dict[str, tuple[float, web.WebSocketResponse]] = {}
            super().__init__(command, **options)

        @property
        def open_connections(self) -> int:
            return len(self.joining) + len(self.joined)

        def process_command(self) -> str:
            return with_serve_pid(command_for(self.command, _CONNECTION.get()))

        async def refresh(self) -> None:
            """Move the joining connections that have joined since to `joined`."""
            if self.joining:
                names = sorted(self.joining)
                done = await asyncio.to_thread(joined_among, db, study, names)
                self.joining -= done
                self.joined |= done

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            where = request.remote or "unknown address"
            await self.refresh()
            if len(self.joined) < max_connections and len(self.joining) >= max_joining:
                await self.close_oldest_silent(where)
            if len(self.joined) >= max_connections or len(self.joining) >= max_joining:
                bound = (
                    "--max-connections"
                    if len(self.joined) >= max_connections
                    else ("--max-joining")
                )
                log_line(
                    f"refused a connection from {where}: {len(self.joined)} joined and"
                    f" {len(self.joining)} joining open, the most {bound} allows"
                )
                raise web.HTTPServiceUnavailable(text="The study is full: try again later.\n")
            name = f"{where} #{next(self._numbers)}"
            self.joining.add(name)
            _CONNECTION.set(name)
            try:
                return await super().handle_websocket(request)
            finally:
                self.joining.discard(name)
                self.joined.discard(name)

        async def close_oldest_silent(self, where: str) -> None:
            """Close the oldest joining connection silent for `join_grace` seconds, if any."""
            now = asyncio.get_running_loop().time()
            for name, (since, websocket) in self.silent.items():
                if now - since >= join_grace:
                    del self.silent[name]
                    self.joining.discard(name)
                    log_line(
                        f"closed connection {name}: no key in {now - since:.0f} s on the join"
                        f" screen, its place given to a connection from {where}"
                    )
                    await websocket.close()
                    return

        async def connected(self, websocket: web.WebSocketResponse, service: Any) -> None:
            name = _CONNECTION.get()
            loop = asyncio.get_running_loop()
            heard = _Heard(service, lambda: self.silent.pop(name, None))
            write = service.remote_write_bytes

            async def shown(data: bytes) -> None:  # silence counts from the app's first output
                service.remote_write_bytes = write
                heard.shown.set()
                if not heard.heard:
                    self.silent[name] = (loop.time(), websocket)
                await write(data)

            service.remote_write_bytes = shown
            watch = asyncio.create_task(self.close_if_not_joined(websocket, name, heard))
            try:
                await super().connected(websocket, heard)
            finally:
                self.silent.pop(name, None)
                watch.cancel()

        async def close_if_not_joined(
            self, websocket: web.WebSocketResponse, name: str, heard: _Heard
        ) -> None:
            # The time counts from the join screen's first output, so a slow start on a loaded
            # server takes none of it; an app that shows nothing in that time is closed too.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(heard.shown.wait(), join_timeout)
                await asyncio.sleep(join_timeout)
            await self.refresh()
            if name in self.joining:
                # its place is free at once, not once its app process has stopped
                self.joining.discard(name)
                log_line(f"closed connection {name}: not joined within {join_timeout:g} s")
                await websocket.close()

    return StudyServer()


class _Heard:
    """A connection's app service that calls `heard()` at the connection's first key (the
    browser's `stdin`), and is the service for the rest."""

    def __init__(self, service: Any, heard: Callable[[], object]) -> None:
        self._service = service
        self._heard: Callable[[], object] | None = heard
        self.shown = asyncio.Event()  # set at the app's first output

    @property
    def heard(self) -> bool:
        """Whether the browser has sent a key."""
        return self._heard is None

    async def send_bytes(self, data: bytes) -> Any:
        if self._heard is not None:
            heard, self._heard = self._heard, None
            heard()
        return await self._service.send_bytes(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._service, name)
