"""`serve`'s links to a step (issue 41): `http://HOST:PORT/view/SESSION[:STEP]` opens that
session in the trajectory viewer at that step, as `crmarena-tui view SESSION[:STEP]` does.

textual-serve's page (`/`) tells its script the websocket to open (`/ws`); the script adds the
terminal's size as a query. So the link is carried in the path: the page at `/view/LINK` names
the websocket `/ws/view/LINK`, and a connection there starts `view LINK` (`view_command`)
instead of `play`. A malformed link, a missing session or a step past the session's last is
answered `404` with one line saying which (`storage/step_links.py`), before any process starts.
Everything else is the guarded server's (`_serve_guard.py`). `serve --study` serves no links:
a study's participants see only their own queue.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from crmarena_tui.commands._serve_guard import guarded_server_class, with_serve_pid

# The link the running websocket handler serves ("" for `play`; each request is its own task).
_LINK: ContextVar[str] = ContextVar("link", default="")
# where textual-serve's page names its websocket (`ws://HOST:PORT/ws`), for its script
_WEBSOCKET = re.compile(r'(data-session-websocket-url="[^"]*/ws)"')


def link_problem(db: Path, text: str) -> tuple[str, str | None]:
    """Blocking: (the link as it is spelled canonically, why it cannot be opened or None)."""
    from crmarena_tui.storage import Store
    from crmarena_tui.storage.step_links import check_link, parse_link

    try:
        link = parse_link(text)
    except ValueError as exc:
        return text, str(exc)
    if not db.exists():
        return str(link), f"no sessions database at {db}"
    with Store(db) as store:
        return str(link), check_link(store, link)


def linked_server(
    command: str, *, view_command: Callable[[str], str], db: Path, **options: Any
) -> Any:
    """A guarded textual-serve `Server` running `command` per connection at `/`, and
    `view_command(LINK)` per connection at `/view/LINK` (`options`: `guarded_server`'s)."""
    from aiohttp import web

    base = guarded_server_class()

    class LinkedServer(base):  # type: ignore[misc,valid-type]
        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            app.router.add_get("/view/{link}", self.handle_link_page, name="link-page")
            app.router.add_get("/ws/view/{link}", self.handle_link_websocket, name="link-ws")
            return app

        async def _checked(self, request: web.Request) -> str:
            text = request.match_info["link"]
            link, problem = await asyncio.to_thread(link_problem, db, text)
            if problem:
                raise web.HTTPNotFound(text=problem + "\n")
            return link

        async def handle_link_page(self, request: web.Request) -> web.StreamResponse:
            """textual-serve's page, its websocket at `/ws/view/LINK`."""
            link = await self._checked(request)
            page = await self.handle_index(request)
            text, found = _WEBSOCKET.subn(rf'\1/view/{link}"', page.text or "", count=1)
            if not found:  # a textual-serve whose page names its websocket otherwise
                raise web.HTTPInternalServerError(text="this textual-serve serves no links\n")
            page.text = text
            return page

        async def handle_link_websocket(self, request: web.Request) -> web.WebSocketResponse:
            _LINK.set(await self._checked(request))
            return await self.handle_websocket(request)

        def process_command(self) -> str:
            link = _LINK.get()
            return with_serve_pid(view_command(link) if link else self.command)

    return LinkedServer(command, **options)
