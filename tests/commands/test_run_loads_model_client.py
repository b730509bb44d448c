"""`run` loads litellm before any session opens, saying so on the progress display, so its
import (seconds) is not the first session's active time: a model agent's clock starts at its
first model call. Measured in a fresh process, where litellm is not imported yet."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.llm import client as llm
from crmarena_tui.storage import Store
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.support.agents_llm_support import AGENT_ID, make_task, react

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent

# `crmarena-tui run` in a fresh interpreter, every org a TinyOrg (the org engine is not measured)
RUN_ON_TINY_ORGS = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
from tests.support.agents_llm_support import TinyOrg
from crmarena_tui.session import org_resolve as resolve

def open_org(spec, *, org_type="b2b", today=None, lenient=False):
    org = TinyOrg()
    org.lenient = lenient
    return org

resolve.open_org = open_org
resolve.Available.probe = classmethod(
    lambda cls, env=None: resolve.Available(frozenset({{"b2b", "b2c", "original"}}))
)
assert "litellm" not in sys.modules
import time
from crmarena_tui.llm import client as llm

load = llm.load_litellm

def load_and_say_when() -> None:
    load()
    print(f"litellm loaded at {{time.time()!r}}", file=sys.stderr, flush=True)

llm.load_litellm = load_and_say_when
from crmarena_tui.cli import main
sys.exit(main(sys.argv[1:]))
"""


def reply(messages: list[dict]) -> str:
    seen = any(
        m["role"] == "user" and m["content"].startswith("Salesforce instance output")
        for m in messages
    )
    return react("found", "respond", AGENT_ID) if seen else react("look", "execute", "SELECT Id")


def answer(body: dict) -> Reply:
    return Reply.chat(reply(body["messages"]), delay=0.05)


def task_file(tmp_path: Path, n: int) -> Path:
    rows = []
    for idx in range(n):
        row = make_task(idx).row()
        for key in ("source", "org_type", "interactive"):
            row.pop(key)
        rows.append(row)
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(rows))
    return path


@pytest.fixture
def tiny_org(monkeypatch: pytest.MonkeyPatch) -> None:
    from crmarena_tui.session.org_resolve import Available
    from tests.support.agents_llm_support import TinyOrg

    def fake_open(spec, *, org_type="b2b", today=None, lenient=False):
        org = TinyOrg()
        org.lenient = lenient  # type: ignore[attr-defined]
        return org

    everything = Available(frozenset({"b2b", "b2c", "original"}))
    monkeypatch.setattr("crmarena_tui.session.org_resolve.open_org", fake_open)
    monkeypatch.setattr(Available, "probe", classmethod(lambda cls, env=None: everything))


def test_the_model_client_is_loaded_and_said_so_before_any_session_opens(
    tiny_org, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(llm, "_warmed", False)  # as in a fresh process
    loaded: list[int] = []
    real = llm.load_litellm

    def load() -> None:
        with Store(tmp_path / "s.db") as store:
            loaded.append(len(store.sessions()))
        real()

    monkeypatch.setattr(llm, "load_litellm", load)
    with FakeOpenAIServer(fallback=answer) as server:
        code = main(
            [
                "run",
                "--agent",
                "openai/fake-model",
                "--api-base",
                server.base_url,
                "--tasks",
                str(task_file(tmp_path, 2)),
                "--db",
                str(tmp_path / "s.db"),
                "--format",
                "json",
            ]
        )
    assert code == 0
    assert loaded == [0]  # loaded once, before the first session
    assert "loading the model client..." in capsys.readouterr().err


def test_a_run_whose_models_need_no_litellm_loads_nothing(
    tiny_org, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.fakes.scripted_llm import register_script, unregister_script

    monkeypatch.setattr(llm, "_warmed", False)
    monkeypatch.setattr(llm, "load_litellm", lambda: pytest.fail("litellm was loaded"))
    register_script("no-litellm", lambda: lambda messages, tools: reply(messages))
    try:
        code = main(
            [
                "run",
                "--agent",
                "scripted/no-litellm",
                "--tasks",
                str(task_file(tmp_path, 1)),
                "--db",
                str(tmp_path / "s.db"),
                "--format",
                "json",
            ]
        )
    finally:
        unregister_script("no-litellm")
    assert code == 0
    assert "loading the model client" not in capsys.readouterr().err


def test_no_session_starts_before_the_model_client_is_loaded(tmp_path: Path) -> None:
    """In a fresh process, the import ends before the first session starts, so no session's
    active time holds it (compared as times, not durations: a loaded machine slows both)."""
    db = tmp_path / "s.db"
    with FakeOpenAIServer(fallback=answer) as server:
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                RUN_ON_TINY_ORGS,
                "run",
                "--agent",
                "openai/fake-model",
                "--api-base",
                server.base_url,
                "--tasks",
                str(task_file(tmp_path, 6)),
                "--db",
                str(db),
                "--format",
                "json",
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
            env=os.environ.copy(),
        )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["outcomes"] == {"submitted": 6}
    loaded = [float(t) for t in re.findall(r"litellm loaded at ([0-9.]+)", done.stderr)]
    with Store(db) as store:
        started = [s.started_at.timestamp() for s in store.sessions()]
    assert len(loaded) == 1 and len(started) == 6
    assert loaded[0] <= min(started), (loaded, sorted(started))
    assert "loading the model client..." in done.stderr


async def test_the_apps_agent_run_says_it_loads_the_model_client_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading
    import time

    from textual.widgets import Input, Select

    from crmarena_tui.screens.agent_run_screen import AgentRunScreen
    from tests.screens.test_app_agent import demo_app, until
    from tests.support.app_support import SIZE, screen_text, wait_for_workers

    monkeypatch.setattr(llm, "_warmed", False)
    gate, real = threading.Event(), llm.load_litellm

    def load() -> None:
        gate.wait(30)
        real()

    monkeypatch.setattr(llm, "load_litellm", load)
    with FakeOpenAIServer(
        fallback=lambda body: Reply.chat(react("x", "respond", "None"))
    ) as server:
        monkeypatch.setenv("CRMARENA_TUI_API_BASE", server.base_url)
        app = demo_app(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for_workers(pilot, app)
            await pilot.press("ctrl+g")
            dialog = app.screen
            dialog.query_one("#setup-agent", Select).value = "model"
            await pilot.pause()
            dialog.query_one("#setup-model", Input).value = "openai/fake-model"
            await pilot.press("ctrl+s")
            [screen] = [s for s in app.screen_stack if isinstance(s, AgentRunScreen)]
            await until(pilot, lambda: "loading the model client" in screen_text(app), "a word")
            time.sleep(0.2)
            assert screen.episode is None  # no session opens before the client is loaded
            with Store(tmp_path / "sessions.db") as store:
                assert store.sessions() == []
            gate.set()
            await until(pilot, lambda: screen.driver.ended, "the run's end", timeout=60)
            assert screen.episode is not None and screen.episode.status == "submitted"
