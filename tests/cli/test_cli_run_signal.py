"""Ctrl-C during `crmarena-tui run` (a real process, a real local org, a model on loopback)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.storage import Store
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.support.agents_llm_support import make_task, react

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "crmarena_tui", "run", *args]


@contextmanager
def _ctrl_c_for_children() -> Iterator[None]:
    """A process started within gets Ctrl-C's usual handling even when this one ignores SIGINT.
    A shell starts a background command (`pytest ... &`) with SIGINT ignored, an ignored signal
    stays ignored across exec, and Python then installs no Ctrl-C handler: the `run` below
    would never see the interrupt and would work every task (exit 0), as Unix intends for it."""
    ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    if ignored:  # (handled, so the child starts with the default disposition)
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def test_ctrl_c_stops_cleanly_and_the_next_run_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from crmarena_tui.demo.generator import build_org

    org = tmp_path / "org.db"
    build_org(org, org_type="b2b", seed=0, scale=0.05)
    rows = []
    for idx in range(4):
        row = make_task(
            idx, query=f"Which agent handled case batch {idx} fastest? Give the Id."
        ).row()
        for key in ("source", "org_type", "interactive"):
            row.pop(key)
        rows.append(row)
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps(rows))
    db = tmp_path / "s.db"

    def busy(body):  # a model that keeps querying, slowly
        return Reply.chat(react("more", "execute", "SELECT Id, Name FROM User LIMIT 3"), delay=0.2)

    def done(body):
        return Reply.chat(react("done", "respond", "None"))

    with FakeOpenAIServer(fallback=busy) as server:
        args = (
            "--agent",
            "openai/fake-model",
            "--api-base",
            server.base_url,
            "--tasks",
            str(tasks),
            "--org",
            str(org),
            "--db",
            str(db),
            "--concurrency",
            "2",
            "--format",
            "json",
        )
        with _ctrl_c_for_children():
            proc = subprocess.Popen(
                _command(*args),
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=os.environ.copy(),
            )

        def tasks_at_the_model() -> int:  # both workers must be mid-task before the interrupt
            return len({json.dumps(r["messages"][:2]) for r in list(server.requests)})

        deadline = time.monotonic() + 60
        while (
            len(server.requests) < 4 or tasks_at_the_model() < 2
        ) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(server.requests) >= 4 and tasks_at_the_model() == 2, (
            "the run never reached the model"
        )
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 130, err
        assert ("\n" + err).endswith(  # (errors.Interrupted: its own line, no "error: ")
            "\nStopped: 2 session(s) left in progress. Run the same command again to resume.\n"
        ), err
        summary = json.loads(out)
        assert summary["interrupted"] and summary["outcomes"].get("unfinished") == 2
        with Store(db) as store:
            sessions = store.sessions()
            assert len(sessions) == 2 and {s.status for s in sessions} == {"in_progress"}
            queries_before = {
                s.id: sum(e.kind == "query" for e in store.events(s.id)) for s in sessions
            }
            assert all(n >= 1 for n in queries_before.values())

        server.fallback = done
        capsys.readouterr()
        # the next run: in this process (what is asked of it is not about a process of its own)
        code = main(["run", *args])
        again = capsys.readouterr()
    assert code == 0, again.err
    summary = json.loads(again.out)
    assert summary["outcomes"] == {"resumed": 2, "submitted": 2}
    with Store(db) as store:
        sessions = store.sessions()
        assert len(sessions) == 4 and {s.status for s in sessions} == {"submitted"}
        for session_id, before in queries_before.items():
            assert sum(e.kind == "query" for e in store.events(session_id)) == before
