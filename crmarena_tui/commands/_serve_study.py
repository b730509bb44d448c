"""`serve --study`: the textual-serve server of a study, safe to expose (issue 28).

Each browser connection starts a `play` process (about 100 MB), so the server takes at most
`--max-connections` at once (default: twice the study's participants); one more is answered
`503` and logged on the server's output with its time and address. Each connection is named (the
browser's address and the connection's number) and its `play` process gets the name in
`CRMARENA_TUI_CONNECTION`, so the join screen logs every try with it (`studies/joins.py`).

textual-serve and aiohttp are imported only when the server is made (`study_server`).
"""

from __future__ import annotations

import itertools
import shlex
import sys
import time
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from crmarena_tui.studies.joins import CONNECTION_ENV

# The connection the running request handler serves (each aiohttp request is its own task).
_CONNECTION: ContextVar[str] = ContextVar("connection", default="")


def default_max_connections(db: Path, study: str) -> int:
    """Twice the study's participants (a participant may open a second tab), at least 2."""
    from crmarena_tui.storage import Store
    from crmarena_tui.studies.db import get_study, participants

    with Store(db) as store:
        return max(2, 2 * len(participants(store, get_study(store, study))))


def command_for(command: str, connection: str) -> str:
    """The shell command of one connection's `play` process: `command` with the connection's
    name in its environment."""
    return f"{CONNECTION_ENV}={shlex.quote(connection)} {command}" if connection else command


def study_server(command: str, *, max_connections: int, **options: Any) -> Any:
    """A textual-serve `Server` running `command` per connection, at most `max_connections`
    at once (`options`: the Server's own)."""
    from aiohttp import web
    from textual_serve.server import Server

    class StudyServer(Server):
        def __init__(self) -> None:
            self._command = command
            self._numbers = itertools.count(1)
            self.open_connections = 0
            super().__init__(command, **options)

        @property
        def command(self) -> str:
            return command_for(self._command, _CONNECTION.get())

        @command.setter
        def command(self, value: str) -> None:
            self._command = value

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            where = request.remote or "unknown address"
            if self.open_connections >= max_connections:
                stamp = time.strftime("%Y-%m-%d %H:%M:%S")
                print(
                    f"{stamp} refused a connection from {where}: {self.open_connections} open,"
                    f" the most --max-connections allows",
                    file=sys.stderr,
                    flush=True,
                )
                raise web.HTTPServiceUnavailable(text="The study is full: try again later.\n")
            self.open_connections += 1
            _CONNECTION.set(f"{where} #{next(self._numbers)}")
            try:
                return await super().handle_websocket(request)
            finally:
                self.open_connections -= 1

    return StudyServer()
