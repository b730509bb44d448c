"""`QueueWorker`: the MCP server's task queue and its Store, used on one worker thread, and which
client (lease holder) each call comes from (`crmarena_tui/session/mcp_server.py` serves the tools
over it). Every tool call runs on that thread; the model proxy's events (`record`) and refused
calls (`rejected`) are stored there too, in the session of the holder they come from; the proxy
reads the leases over a connection of its own (`lease_reader`).

Imports the MCP SDK at import time, as `mcp_server.py` does (only the `mcp` command imports it).
"""

import asyncio
import contextlib
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from crmarena_tui.agents.tool_env import ToolEnv
from crmarena_tui.session.task_queue import TaskQueue
from crmarena_tui.storage.leases import LeaseBook

T = TypeVar("T")
NO_TASK = "No task is open: call next_task first."


class QueueWorker:
    """The queue and its Store, made and used on one thread (`make_queue` runs there). Each
    client (an MCP session over HTTP; the one client of a stdio server) is a lease holder of its
    own (`holder`): it works its own task, leased in the database."""

    def __init__(self, make_queue: Callable[[], TaskQueue], *, stdio: bool = False) -> None:
        self._make_queue = make_queue
        self._queue: TaskQueue | None = None
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcp-queue")
        self.server_id = uuid.uuid4().hex[:12]
        self.stdio = stdio
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None
        self._reader: LeaseBook | None = None  # the model proxy's (`lease_reader`)
        self._reader_lock = threading.Lock()
        if stdio:  # over stdio the server lives as long as its client: renew while alive
            self._beat = threading.Thread(target=self._heartbeat, daemon=True, name="mcp-lease")
            self._beat.start()

    def warm(self) -> None:
        """Make the queue and the SOQL parser on the worker thread now, and wait for them: an
        HTTP server does so before it listens (the parser's build, a few tenths of a second,
        made four clients' first queries wait past the Agents SDK's 5 s under load). A stdio
        server does not: its one client's first query pays it, not its `tools/list`."""
        from crmarena_tui.orgs.soql.parser import get_parser

        def warm() -> None:
            assert self.queue is not None
            get_parser()

        with contextlib.suppress(Exception):  # (a queue that cannot be made says so at use)
            self._pool.submit(warm).result()

    @property
    def queue(self) -> TaskQueue:
        if self._queue is None:
            self._queue = self._make_queue()
        return self._queue

    def holder(self, ctx: Context) -> str:
        """The lease holder the caller is: over stdio the server's one client; over HTTP the
        client's MCP session (`mcp-session-id`, set by a client that made the `initialize`
        handshake: the Agents SDK, pydantic-ai, LangChain's adapters); a stateless client
        (protocol 2026-07-28, no session) is known by its handshake name and version."""
        if self.stdio:
            return f"mcp:{self.server_id}:stdio"
        headers = ctx.headers or {}
        session = headers.get("mcp-session-id")
        if session:
            return f"mcp:{self.server_id}:{session}"
        name, version = client_info(ctx)
        return f"mcp:{self.server_id}:client:{name}/{version}"

    def _heartbeat(self) -> None:
        while not self._stop.wait(self._interval()):
            if self._queue is None:
                continue
            try:
                self._pool.submit(self._renew, self._queue)
            except RuntimeError:  # the pool was shut down
                return

    @staticmethod
    def _renew(queue: TaskQueue) -> None:
        queue.leases.renew_holders(list(queue.current))

    def _interval(self) -> float:
        return self._queue.leases.timeout / 3 if self._queue is not None else 1.0

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` on the worker thread; a refusal (bad arguments, a verb the session's
        state does not allow, a task the caller holds no lease on) comes back to the client
        as the tool's one-line error."""
        from crmarena_tui.llm.client import LLMError
        from crmarena_tui.session.episode_log import EpisodeError

        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)
        except (EpisodeError, ValueError, TypeError) as exc:
            raise ToolError(f"error: {exc}") from None
        except LLMError as exc:  # the simulated user's or the judge's model
            raise ToolError(f"error: a model call failed: {exc}") from None

    def env(self, holder: str) -> ToolEnv:
        env = self.queue.env_of(holder)
        if env is None:
            raise ToolError(NO_TASK)
        return env

    def env_of(self, holder: str, session_id: int) -> ToolEnv | None:
        """On the worker thread: the task `holder` works when it is session `session_id` (its
        lease renewed: a model call shows its client alive), else None."""
        env = self.queue.current.get(holder)
        if env is None or env.session_id != session_id:
            return None
        self.queue.leases.renew_holders([holder])
        return env

    def record(
        self, holder: str, session_id: int, events: list[tuple[str, dict[str, Any]]]
    ) -> None:
        """Store `events` (the model proxy's) in session `session_id` if `holder` still works
        it. Queued on the worker thread, not awaited: every tool call the client makes after
        the proxy's reply is queued after them, so it sees them stored (a report_usage is not
        counted twice), and the reply does not wait for the fsync."""

        def record() -> None:
            env = self.env_of(holder, session_id)
            if env is not None:  # (finished too: the closing turn that reads "Submitted.")
                with self.queue.store.db.write():  # a turn's events: one transaction, one fsync
                    for kind, payload in events:
                        env.episode.record(kind, payload, actor="agent")

        self._pool.submit(record)

    async def rejected(self, ctx: Context, tool: str, arguments: dict[str, Any], text: str) -> None:
        """Store a call the server refused (mcp_errors.py) in the caller's open session, if
        it has one."""
        holder = self.holder(ctx)

        def record() -> None:
            env = self.queue.current.get(holder)
            if env is not None and not env.finished:
                payload = {"error": text, "source": "mcp", "tool": tool, "arguments": arguments}
                env.episode.record("error", payload, actor="agent")

        await self.call(record)

    def lease_reader(self) -> LeaseBook:
        """The queue's leases read over a database connection of their own, for the model
        proxy's threads (the queue's connection stays on the worker thread). Made on first
        use; closed with the worker."""
        from crmarena_tui.storage import Store

        with self._reader_lock:
            if self._reader is None:
                where = self._pool.submit(lambda: (self.queue.store.path, self.queue.leases))
                path, leases = where.result()
                self._reader = LeaseBook(
                    Store(path), pool=leases.pool, timeout=leases.timeout, clock=leases.clock
                )
            return self._reader

    def close(self) -> None:
        self._stop.set()

        def close() -> None:
            if self._queue is not None:
                for holder in list(self._queue.current):
                    self._queue.release(holder)
                self._queue.close()
                self._queue.store.close()

        self._pool.submit(close).result()
        self._pool.shutdown(wait=True)
        with self._reader_lock:
            if self._reader is not None:
                self._reader.store.close()


def client_info(ctx: Context) -> tuple[str | None, str | None]:
    """The client's name and version from the MCP handshake (`initialize`'s clientInfo)."""
    params = ctx.session.client_params
    info = params.client_info if params is not None else None
    return getattr(info, "name", None), getattr(info, "version", None)
