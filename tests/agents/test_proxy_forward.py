"""The model proxy's pass-through to an OpenAI-compatible server (agents/proxy_forward.py):
the call's deadline holds without a thread of its own, and errors keep the provider's words."""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from crmarena_tui.agents.proxy_forward import Passthrough
from crmarena_tui.llm.client import LLMError


class Dripping(http.server.BaseHTTPRequestHandler):
    """Headers at once, then a byte at a time, never the whole reply."""

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.end_headers()
        try:
            while True:
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.02)
        except OSError:  # the proxy gave up and closed the connection
            return

    def log_message(self, *args: object) -> None:
        pass


class Refusing(Dripping):
    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("content-length") or 0))
        body = b'{"error": {"message": "the key is not valid for fake"}}'
        self.send_response(401)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def serving(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def passthrough(base: str, **kwargs: object) -> Passthrough:
    body = {"model": "openai/fake", "messages": []}
    client = Passthrough("openai/fake", body, api_base=base, max_retries=0, **kwargs)
    client.http = httpx.Client()
    return client


def test_a_reply_that_never_ends_is_given_up_at_the_calls_deadline() -> None:
    with serving(Dripping) as base:
        client = passthrough(base, timeout=30, deadline=0.3)
        with pytest.raises(LLMError) as failed:
            client.complete([{"role": "user", "content": "hi"}])
        assert failed.value.kind == "timeout"
        assert "deadline of 0.3 s" in str(failed.value)
        # no call thread left reading the reply (it would until its 30 s read timeout)
        assert not [t for t in threading.enumerate() if t.name == "llm-call"]


def test_a_refusal_keeps_the_providers_message_and_status() -> None:
    with serving(Refusing) as base, pytest.raises(LLMError) as failed:
        passthrough(base).complete([{"role": "user", "content": "hi"}])
    assert failed.value.kind == "auth"
    assert "the key is not valid for fake" in str(failed.value)
