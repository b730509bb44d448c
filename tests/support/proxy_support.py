"""Helpers for the model proxy's tests and benchmark (no tests here): an MCP server built in this
process with the model proxy beside it, forwarding to a loopback model (tests/fakes)."""

from __future__ import annotations

import re
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from crmarena_tui.agents.model_proxy import ModelProxy, ProxySessions
from crmarena_tui.demo.sources import load_tasks
from crmarena_tui.session.mcp_server import build_server
from crmarena_tui.session.service import SessionService
from crmarena_tui.session.task_queue import TaskQueue
from crmarena_tui.settings.config import Settings
from crmarena_tui.storage import Store
from tests.support.mcp_support import SyncClient

PROXY = re.compile(r"base URL (\S+) with the API key (\S+) ")
PRICE_IN, PRICE_OUT = 2e-6, 5e-6  # the loopback model's price per token


def single_tasks(n: int = 2) -> list[Any]:
    return [t for t in load_tasks("demo:small") if t.task == "handle_time" and not t.interactive][
        :n
    ]


@contextmanager
def proxied(db: Path, api_base: str, tasks: list[Any] | None = None) -> Any:
    """(client, sessions, proxy): an in-process MCP client of a workbench queue whose server
    runs the model proxy (on a free port) in front of `api_base`."""
    tasks = tasks or single_tasks()
    service = SessionService(Settings(protocol="workbench"))
    sessions = ProxySessions()

    def make_queue() -> TaskQueue:
        return TaskQueue(Store(db), tasks, service)

    server, worker = build_server(make_queue, as_name="proxied-agent", proxy=sessions)
    proxy = ModelProxy(sessions, worker.record, api_base=api_base, max_retries=0)
    proxy.start("127.0.0.1", 0)
    client = SyncClient(server)
    try:
        yield client, sessions, proxy
    finally:
        client.close()
        proxy.stop()
        worker.close()


def priced(monkeypatch: Any, model: str = "openai/fake-model") -> None:
    """Give the loopback model a price in the project's price map (llm/prices.py, read before
    litellm's), for this test only: litellm's own maps are left alone, since registering a model
    there also fills caches no monkeypatch restores (a later test would find the price)."""
    from crmarena_tui.llm import prices

    entry = {
        "input_cost_per_token": PRICE_IN,
        "output_cost_per_token": PRICE_OUT,
        "litellm_provider": "openai",
        "mode": "chat",
    }
    known = {**prices.price_map(), model: entry, model.split("/", 1)[1]: entry}
    monkeypatch.setattr(prices, "price_map", lambda: known)
