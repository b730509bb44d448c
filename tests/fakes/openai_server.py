"""An OpenAI-compatible chat server on loopback, for tests that drive litellm end to end.

    with FakeOpenAIServer() as server:
        server.enqueue(Reply.chat("<thought>..</thought><respond>42</respond>"))
        server.enqueue(Reply(status=429, body={"error": {"message": "slow down"}}))
        LLMClient("openai/fake-model", api_base=server.base_url).complete(...)

Each POST to `/v1/chat/completions` takes the next queued `Reply` (status, JSON or raw body,
optional delay); with the queue empty the `fallback` responder (if any) answers, else a 500.
Every request body is kept in `requests`.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: dict[str, Any] | str = field(default_factory=dict)
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    drip: float = 0.0  # seconds between the body's bytes (a slow stream that never times out)

    @classmethod
    def chat(
        cls,
        text: str | None,
        *,
        tool_calls: list[dict[str, Any]] | None = None,
        prompt_tokens: int = 11,
        completion_tokens: int = 7,
        delay: float = 0.0,
    ) -> Reply:
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if tool_calls:
            message["tool_calls"] = tool_calls
        body = {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": "fake-model",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if tool_calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
        return cls(body=body, delay=delay)

    @staticmethod
    def tool(name: str, arguments: dict[str, Any] | str, call_id: str = "call_1") -> dict[str, Any]:
        args = arguments if isinstance(arguments, str) else json.dumps(arguments)
        return {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}


Fallback = Callable[[dict[str, Any]], Reply]


class FakeOpenAIServer:
    def __init__(self, fallback: Fallback | None = None) -> None:
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self.fallback = fallback
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    def _next(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
            if self._queue:
                return self._queue.popleft()
        if self.fallback is not None:
            return self.fallback(body)
        return Reply(
            status=500, body={"error": {"message": "no scripted reply", "type": "server_error"}}
        )

    def start(self) -> FakeOpenAIServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # silence the access log
                return

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                with owner._lock:
                    owner.headers.append({k.lower(): v for k, v in self.headers.items()})
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    reply = Reply(status=404, body={"error": {"message": f"no route {self.path}"}})
                else:
                    reply = owner._next(body)
                if reply.delay:
                    time.sleep(reply.delay)
                data = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                payload = data.encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    if reply.drip:
                        for k in range(len(payload)):
                            self.wfile.write(payload[k : k + 1])
                            self.wfile.flush()
                            time.sleep(reply.drip)
                    else:
                        self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
