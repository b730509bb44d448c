"""The model proxy: an OpenAI-compatible `POST /v1/chat/completions` on loopback that an outside
agent points its model client at, so its model calls are part of its sessions' trajectories.

`crmarena-tui mcp --model-proxy` serves it next to the MCP server, in the same process. Each
request goes to the model it names with its own parameters (tools, temperature, ...), under
`llm/client.py`'s retry loop and error rules: an `openai/...` model (or one with no provider
prefix) on an OpenAI-compatible base (`--proxy-api-base`, else the `api_base` setting) is sent
the request as written over one pooled HTTP client and answered with the server's own reply
(litellm's per-call work would cost more than the proxy's 5 ms budget; its cost map still gives
the price); any other model is called through litellm, as the project's own agents call it; a `stream: true` request is answered as OpenAI streams (server-sent
`chat.completion.chunk` events, then `data: [DONE]`), from the whole reply: the proxy waits for
the model's full reply before sending the first chunk (a departure from token-by-token
streaming, so the stored reply and usage are exact).

Which session a request belongs to: the request's key (`Authorization: Bearer KEY`).
`ProxySessions` hands each MCP client its own key (shown in `next_task`'s brief), made for its
lease holder id (`QueueWorker.holder`: `mcp:<server>:<mcp-session-id>`, `mcp:<server>:stdio`,
...); the key maps to the session that holder works under its lease (`LeaseBook.session_for`,
asked by `ProxySessions.route`, the one place that decides), so N clients at once each have
their calls recorded in their own session. The server's key (`--proxy-key`, printed at start) is
valid too: with an `X-Crmarena-Session: N` header the request belongs to session N when one of
this server's clients works it, without one to the only session they work.

What is recorded in the session, queued before the reply is sent so that every tool call the
agent makes after it finds it stored (`ProxyCall.events`): a `usage` event
(`source: proxy`, `calls: 1`, tokens, cost from litellm's prices, latency) then a `model_turn`
event (the model, the request's messages, the reply message, its text, the finish reason, the
latency). `messages` holds the messages new since the session's previous model turn when the
request repeats that turn's messages first (`earlier` says how many were left out), else all of
them. A provider failure is answered with the provider's status and an OpenAI-style error body,
and recorded as an `error` event (`source: proxy`). A request whose key names no open session is
still forwarded, and recorded nowhere.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from crmarena_tui.agents.proxy_forward import Forward, Passthrough, passes_through
from crmarena_tui.llm.client import Completion

SESSION_HEADER = "x-crmarena-session"
SOURCE = "proxy"
_STATUS = {
    "rate_limit": 429,
    "timeout": 504,
    "auth": 401,
    "bad_request": 400,
    "context_window": 400,
    "not_found": 404,
}
# stores (or queues, in order with the session's later tool calls) a turn's events in the
# session its holder works: record(holder, session_id, events)
Recorder = Callable[[str, int, list[tuple[str, dict[str, Any]]]], None]


class Holders(Protocol):
    """Who works which session: the MCP server's `LeaseBook` (storage/leases.py), or
    `OpenSessions` for a run's Python agents."""

    def session_for(self, holder: str) -> int | None: ...

    def holder_for(self, session_id: int) -> str | None: ...


class OpenSessions:
    """`Holders` kept in memory: a run's Python agents (agents/python_proxy.py) say which
    session each holder opens and closes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: dict[str, int] = {}  # holder -> the session it has open

    def opened(self, holder: str, session_id: int | None) -> None:
        """The holder now works session `session_id` (None: none)."""
        with self._lock:
            if session_id is None:
                self._open.pop(holder, None)
            else:
                self._open[holder] = session_id

    def session_for(self, holder: str) -> int | None:
        with self._lock:
            return self._open.get(holder)

    def holder_for(self, session_id: int) -> str | None:
        with self._lock:
            return next((h for h, s in self._open.items() if s == session_id), None)


class ProxySessions:
    """The proxy's keys, one per holder (an MCP client's lease holder id,
    `QueueWorker.holder`), made once and kept across its tasks; `holders` (made on first use,
    off the MCP server's worker thread) says which session a holder works."""

    def __init__(
        self,
        server_key: str | None = None,
        holders: Callable[[], Holders] | None = None,
    ) -> None:
        self.server_key = server_key or "crm-" + secrets.token_urlsafe(18)
        self.base_url = ""  # set when the proxy listens
        self.holders = holders  # set by the MCP server when not given
        self._book: Holders | None = None
        self._lock = threading.Lock()
        self._holders: dict[str, str] = {}  # key -> holder
        self._keys: dict[str, str] = {}  # holder -> key
        self._turns: dict[int, tuple[int, str]] = {}  # session -> its last turn's messages

    def key_for(self, holder: str) -> str:
        """The holder's key (made on first use)."""
        with self._lock:
            key = self._keys.get(holder)
            if key is None:
                key = self._keys[holder] = "crm-" + secrets.token_urlsafe(18)
                self._holders[key] = holder
            return key

    def _lookup(self) -> Holders:
        if self._book is None:
            if self.holders is None:
                raise RuntimeError("the model proxy's sessions have no holders to ask")
            self._book = self.holders()
        return self._book

    def route(self, key: str, asked: int | None = None) -> tuple[str, int] | None:
        """The holder and session a request with `key` (and an `X-Crmarena-Session` of `asked`)
        belongs to: the session the key's holder works under its lease; None when the key is
        unknown or its holder works no session. The server's key names a session by the
        header, or the only session a holder of this proxy works. The one function that ties a
        model call to a session."""
        with self._lock:
            holder = self._holders.get(key)
            ours = list(self._keys)
            if holder is None and not secrets.compare_digest(key, self.server_key):
                return None
            book = self._lookup()
            if holder is not None:
                mine = book.session_for(holder)
                ok = mine is not None and (asked is None or asked == mine)
                return (holder, mine) if ok and mine is not None else None
            if asked is not None:
                worker = book.holder_for(asked)
                return (worker, asked) if worker in ours and worker is not None else None
            open_now = [(h, s) for h in ours if (s := book.session_for(h)) is not None]
            return open_now[0] if len(open_now) == 1 else None

    def session_for(self, key: str, asked: int | None = None) -> int | None:
        """The session of `route`, or None."""
        found = self.route(key, asked)
        return None if found is None else found[1]

    def known(self, key: str) -> bool:
        with self._lock:
            return key in self._holders or secrets.compare_digest(key, self.server_key)

    def new_messages(self, session_id: int, messages: list[Any]) -> tuple[list[Any], int]:
        """The messages to store for this turn and how many earlier ones they leave out (the
        session's previous turn's, when the request starts with them)."""
        digests = [_digest(m) for m in messages]
        with self._lock:
            earlier, digest = self._turns.get(session_id, (0, ""))
            self._turns[session_id] = (len(messages), _chain(digests))
        if 0 < earlier <= len(messages) and _chain(digests[:earlier]) == digest:
            return messages[earlier:], earlier
        return messages, 0


def _digest(message: Any) -> str:
    return hashlib.sha1(json.dumps(message, sort_keys=True, default=str).encode()).hexdigest()


def _chain(digests: list[str]) -> str:
    return hashlib.sha1("".join(digests).encode()).hexdigest()


@dataclass
class ProxyCall:
    """One forwarded request: what came back and what the session records of it."""

    model: str
    messages: list[Any]
    stream: bool
    completion: Completion | None = None
    failures: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    status: int = 200

    def reply(self) -> dict[str, Any]:
        """The OpenAI chat completion body (the provider's own, passed through)."""
        assert self.completion is not None
        raw = self.completion.raw
        if isinstance(raw, dict):
            return raw
        body: dict[str, Any] = raw.model_dump() if hasattr(raw, "model_dump") else dict(raw)
        body.pop("_hidden_params", None)
        return body

    def events(self, earlier: int, stored: list[Any]) -> list[tuple[str, dict[str, Any]]]:
        out: list[tuple[str, dict[str, Any]]] = [
            ("error", {**f, "source": SOURCE}) for f in self.failures
        ]
        done = self.completion
        if done is None:
            return out
        usage = {**done.usage(), "calls": 1, "source": SOURCE, "model": self.model}
        message = done.assistant_message()
        turn: dict[str, Any] = {
            "model": self.model,
            "messages": stored,
            "earlier": earlier,
            "reply": message,
            "text": done.text,
            "finish_reason": _finish_reason(done),
            "latency_ms": round(done.latency_ms, 1),
            "stream": self.stream,
        }
        if done.tool_calls:
            turn["tool_calls"] = [c.name for c in done.tool_calls]
        return [*out, ("usage", usage), ("model_turn", turn)]


def _finish_reason(done: Completion) -> str | None:
    try:
        if isinstance(done.raw, dict):
            return str(done.raw["choices"][0].get("finish_reason"))
        return str(done.raw.choices[0].finish_reason)
    except (AttributeError, IndexError, TypeError):
        return None


def stream_chunks(body: dict[str, Any], include_usage: bool) -> Iterator[str]:
    """A whole chat completion as OpenAI streams it: server-sent `data:` lines."""
    head = {k: body.get(k) for k in ("id", "created", "model", "system_fingerprint")}
    head["object"] = "chat.completion.chunk"

    def chunk(choices: list[dict[str, Any]], **extra: Any) -> str:
        return f"data: {json.dumps({**head, 'choices': choices, **extra})}\n\n"

    for choice in body.get("choices") or []:
        index, message = choice.get("index", 0), choice.get("message") or {}
        yield chunk([{"index": index, "delta": {"role": "assistant", "content": ""}}])
        if message.get("content"):
            yield chunk([{"index": index, "delta": {"content": message["content"]}}])
        for n, call in enumerate(message.get("tool_calls") or []):
            delta = {"index": n, "id": call.get("id"), "type": "function"}
            delta["function"] = call.get("function")
            yield chunk([{"index": index, "delta": {"tool_calls": [delta]}}])
        finish = choice.get("finish_reason") or "stop"
        yield chunk([{"index": index, "delta": {}, "finish_reason": finish}])
    if include_usage:
        yield chunk([], usage=body.get("usage"))
    yield "data: [DONE]\n\n"


class ModelProxy:
    """The proxy's ASGI app and its server thread. `record(holder, session_id, events)` stores
    a turn's events in the session `holder` works (nothing when it is no longer open), or
    queues them in order with the session's later tool calls; `api_base`: where models are called (None: where litellm
    calls the model by its name)."""

    def __init__(
        self,
        sessions: ProxySessions,
        record: Recorder,
        *,
        api_base: str | None = None,
        api_key: Any = None,
        max_retries: int = 2,
        timeout: float = 600,
    ) -> None:
        self.sessions = sessions
        self.record = record
        self.api_base, self.api_key = api_base, api_key  # the key: a SecretStr, never shown
        self.max_retries = max_retries
        self.timeout = timeout
        self._pool = ThreadPoolExecutor(max_workers=32, thread_name_prefix="model-proxy")
        self._http: Any = None  # the pooled HTTP client of pass-through requests
        self._server: Any = None
        self._thread: threading.Thread | None = None

    # -- serving ------------------------------------------------------------------------------
    def app(self) -> Any:
        from starlette.applications import Starlette
        from starlette.routing import Route

        routes = [
            Route(path, self.chat_completions, methods=["POST"])
            for path in ("/v1/chat/completions", "/chat/completions")
        ]
        return Starlette(routes=routes)

    def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        """Listen on `host:port` (0: a free port) in a thread of its own; the base URL."""
        import httpx
        import uvicorn

        from crmarena_tui.llm import prices
        from crmarena_tui.llm.client import load_litellm

        self._http = httpx.Client(timeout=self.timeout, limits=httpx.Limits(max_connections=64))
        # prices come from litellm's cost map: imported now, not during the first call
        threading.Thread(target=load_litellm, daemon=True, name="litellm-import").start()
        prices.warm()
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        bound = sock.getsockname()[1]
        config = uvicorn.Config(self.app(), log_level="warning", lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, daemon=True, name="model-proxy"
        )
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started and time.monotonic() < deadline:
            if not self._thread.is_alive():
                raise OSError(f"the model proxy could not listen on {host}:{bound}")
            time.sleep(0.01)
        self.sessions.base_url = f"http://{host}:{bound}/v1"
        return self.sessions.base_url

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
        self._pool.shutdown(wait=False, cancel_futures=True)
        if self._http is not None:
            self._http.close()

    # -- one request --------------------------------------------------------------------------
    async def chat_completions(self, request: Any) -> Any:
        from starlette.responses import JSONResponse, StreamingResponse

        key = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        if not self.sessions.known(key):
            return _error(401, "the model proxy needs its key: Authorization: Bearer KEY")
        asked_text = request.headers.get(SESSION_HEADER)
        try:
            asked = int(asked_text) if asked_text else None
            body = json.loads(await request.body())
            model, messages = body["model"], body["messages"]
            if not isinstance(model, str) or not isinstance(messages, list):
                raise TypeError
        except (ValueError, KeyError, TypeError):
            return _error(400, "a chat completion request: JSON with `model` and `messages`")
        call = ProxyCall(model, messages, bool(body.get("stream")))
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._pool, self._forward, call, body, key, asked)
        if call.completion is None:
            return _error(call.status, call.error or "the model call failed")
        reply = call.reply()
        if not call.stream:
            return JSONResponse(reply)
        usage = bool((body.get("stream_options") or {}).get("include_usage"))
        return StreamingResponse(stream_chunks(reply, usage), media_type="text/event-stream")

    def _forward(self, call: ProxyCall, body: dict[str, Any], key: str, asked: int | None) -> None:
        """Call the model (retrying as the project's own agents do), then record the turn in
        the session the key's holder works (looked up here, off the event loop: it reads the
        leases in the database)."""
        from crmarena_tui.llm.client import LLMError

        kind = Passthrough if passes_through(call.model, self.api_base) else Forward
        client = kind(
            call.model,
            body,
            api_base=self.api_base,
            api_key=self.api_key,
            max_retries=self.max_retries,
            timeout=self.timeout,
            on_event=call.failures.append,
        )
        if isinstance(client, Passthrough):
            client.http = self._http
        try:
            call.completion = client.complete(call.messages)
        except LLMError as exc:
            call.error, call.status = str(exc), _STATUS.get(exc.kind or "", 502)
        found = self.sessions.route(key, asked)
        if found is None:
            return
        holder, session = found
        stored, earlier = (
            self.sessions.new_messages(session, call.messages)
            if call.completion is not None
            else (call.messages, 0)
        )
        self.record(holder, session, call.events(earlier, stored))


def _error(status: int, message: str) -> Any:
    from starlette.responses import JSONResponse

    kind = "invalid_request_error" if status < 500 else "api_error"
    return JSONResponse({"error": {"message": message, "type": kind, "code": status}}, status)
