"""Hub sources where users are (issue 28, item 12): the probe that decides whether `--tasks hf:...`
goes online honours `HF_ENDPOINT` (a mirror), `HF_HUB_OFFLINE` and the proxy variables, and
`--tasks hf:b2b` loads through `datasets` end to end from a loopback hub named by `HF_ENDPOINT`,
then again from the cache once that hub is gone."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from crmarena_tui.tasks import loaders
from tests.fakes.hub_server import FakeHub

PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.fixture
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)


class Proxy:
    """A forward HTTP proxy that answers every request itself, recording what it was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_HEAD(self) -> None:
                proxy.asked.append(self.path)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def proxy() -> Iterator[Proxy]:
    server = Proxy()
    yield server
    server.close()


def test_the_probe_asks_the_endpoint_hf_endpoint_names(
    no_proxies: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeHub("Salesforce/CRMArenaPro", {}) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.endpoint)
        assert loaders.hub_reachable(timeout=5)
        assert ("HEAD", "/api/datasets/Salesforce/CRMArenaPro") in hub.requests
        for value in ("1", "true", "YES"):
            monkeypatch.setenv("HF_HUB_OFFLINE", value)
            assert not loaders.hub_reachable(timeout=5)  # offline asked for: never online
        monkeypatch.delenv("HF_HUB_OFFLINE")
        asked = len(hub.requests)
    start = time.monotonic()
    assert not loaders.hub_reachable(timeout=5)  # the mirror is gone: nothing answers
    assert time.monotonic() - start < 4 and asked == 1


def test_the_probe_goes_through_the_proxy_the_environment_names(
    no_proxies: None, proxy: Proxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_ENDPOINT", "http://hub.mirror.invalid")  # no direct route to it
    assert not loaders.hub_reachable(timeout=3)
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    assert loaders.hub_reachable(timeout=5)
    assert proxy.asked == ["http://hub.mirror.invalid/api/datasets/Salesforce/CRMArenaPro"]
    monkeypatch.setenv("NO_PROXY", "hub.mirror.invalid")  # ... and not where it must not
    assert not loaders.hub_reachable(timeout=3)


def test_offline_the_message_says_why(no_proxies: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(loaders.TaskLoadError, match="HF_HUB_OFFLINE is set"):
        loaders.load_tasks("hf:b2b")


# ---------------------------------------------------------------- end to end through datasets

CARD = b"""---
configs:
- config_name: CRMArenaPro
  data_files:
  - split: b2b
    path: CRMArenaPro/b2b-00000-of-00001.parquet
---
# CRMArena-Pro (a few real rows, served from loopback)
"""


def _parquet(rows: list[dict]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows), out)
    return out.getvalue()


def _list_hub_tasks(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    argv = ["tasks", "list", "--tasks", "hf:b2b", "--format", "json", "--with-answers"]
    return subprocess.run(
        [sys.executable, "-m", "crmarena_tui", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )


def test_hf_b2b_loads_through_datasets_from_a_mirror_then_from_the_cache(
    tmp_path: Path, sample_rows_path: Path
) -> None:
    rows = json.loads(sample_rows_path.read_text())
    files = {"README.md": CARD, "CRMArenaPro/b2b-00000-of-00001.parquet": _parquet(rows)}
    env = {k: v for k, v in os.environ.items() if k.upper() not in PROXY_VARS}
    env.pop("HF_HUB_OFFLINE", None)
    env.pop("HF_DATASETS_OFFLINE", None)
    env.update(HF_HOME=str(tmp_path / "hf"), HF_DATASETS_CACHE=str(tmp_path / "hf" / "datasets"))
    with FakeHub("Salesforce/CRMArenaPro", files) as hub:
        env["HF_ENDPOINT"] = hub.endpoint
        online = _list_hub_tasks(env)
        asked = [path for _, path in hub.requests]
    assert online.returncode == 0, online.stderr
    assert any(p.endswith("/resolve/main/README.md") for p in asked)
    assert any(p.endswith("/CRMArenaPro/b2b-00000-of-00001.parquet") for p in asked)
    loaded = json.loads(online.stdout)
    assert [(t["idx"], t["query"], t["answer"]) for t in loaded] == [
        (r["idx"], r["query"], r["answer"] if r["answer"] is not None else [None]) for r in rows
    ]
    assert {(t["source"], t["org_type"], t["interactive"]) for t in loaded} == {
        ("hf:b2b", "b2b", False)
    }
    start = time.monotonic()
    cached = _list_hub_tasks(env)  # the mirror is gone: the probe says so, datasets' cache serves
    assert cached.returncode == 0, cached.stderr
    assert json.loads(cached.stdout) == loaded
    assert time.monotonic() - start < 60
