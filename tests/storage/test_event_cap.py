"""A stored event's text is capped (issue 28): a 5 MB model reply is stored cut, with a marker
and its full length, whether an agent recorded it or an import wrote it, and the viewer says so."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from crmarena_tui.storage import Store
from crmarena_tui.storage.upstream import UpstreamImporter
from crmarena_tui.tasks.model import Task
from tests.support.spec_support import session_spec
from tests.support.upstream_results_support import react_item, write

HUGE = 5_000_000


@pytest.fixture
def task(sample_rows_path: Path) -> Task:
    return Task(**json.loads(sample_rows_path.read_text())[0], source="hf:b2b")


def _stored_payloads(db: Path) -> list[str]:
    with closing(sqlite3.connect(db)) as conn:
        return [r[0] for r in conn.execute("SELECT payload FROM events ORDER BY session_id, seq")]


def test_a_five_megabyte_reply_is_stored_cut_with_its_full_length(
    tmp_path: Path, task: Task
) -> None:
    reply = "<thought>" + "x" * HUGE + "</thought>"
    with Store(tmp_path / "s.db") as store:
        who = store.participant("agent", "gpt-4o/react", model="gpt-4o")
        session = store.create_session(session_spec(who, task, "local", "demo"))
        event = store.append_event(session.id, "agent", "thought", {"text": "hm", "reply": reply})
        short = store.append_event(session.id, "agent", "thought", {"reply": "<respond>1"})
        stored = store.events(session.id)
    assert event.payload["truncated"] == {"reply": len(reply)}
    kept = event.payload["reply"]
    assert kept.startswith("<thought>xxx") and len(kept) < 1_000_100
    assert kept.endswith(f"[… truncated: {len(reply):,} characters in all]")
    assert event.payload["text"] == "hm"  # a short field of the same event is whole
    assert short.payload == {"reply": "<respond>1"}  # a short event is stored as it was
    assert [e.payload for e in stored] == [event.payload, short.payload]
    assert max(len(p) for p in _stored_payloads(tmp_path / "s.db")) < 1_001_000


def test_the_cap_is_a_setting_and_reaches_nested_texts(
    tmp_path: Path, task: Task, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRMARENA_TUI_EVENT_TEXT_LIMIT", "1000")
    with Store(tmp_path / "s.db") as store:
        assert store.text_limit == 1000
        who = store.participant("agent", "gpt-4o/tool_call", model="gpt-4o")
        session = store.create_session(session_spec(who, task, "local", "demo"))
        calls = [{"name": "execute", "arguments": "a" * 5000}]
        event = store.append_event(session.id, "agent", "thought", {"tool_calls": calls})
    assert event.payload["truncated"] == {"tool_calls.0.arguments": 5000}
    assert event.payload["tool_calls"][0]["arguments"].startswith("a" * 1000 + "\n[…")


def test_an_imported_reply_over_the_cap_is_cut_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRMARENA_TUI_EVENT_TEXT_LIMIT", "100000")
    item = react_item()
    item["traj"][2]["content"] = "<thought>" + "y" * 300_000 + "</thought><execute>x</execute>"
    results = tmp_path / "results"
    write(results, "b2b/react_openai/results_o1-mini_react_case_routing.json", [item])
    with Store(tmp_path / "s.db") as store:
        assert UpstreamImporter(store).import_paths([results]).imported == 1
        events = store.events(store.sessions()[0].id)
    cut = [e for e in events if e.payload.get("truncated")]
    assert cut and all(max(e.payload["truncated"].values()) > 300_000 for e in cut)
    texts = [v for p in _stored_payloads(tmp_path / "s.db") for v in json.loads(p).values()]
    assert max(len(v) for v in texts if isinstance(v, str)) < 100_100  # (thought and reply)


async def test_the_viewer_marks_a_truncated_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer
    from crmarena_tui.widgets.step_list import StepList
    from tests.screens.test_app_trajectory import _detail
    from tests.support.app_support import SIZE, screen_text
    from tests.support.app_trajectory_support import push, research_app, sample_task

    monkeypatch.setenv("CRMARENA_TUI_EVENT_TEXT_LIMIT", "2000")
    with Store(tmp_path / "sessions.db") as store:
        who = store.participant("agent", "gpt-4o/react", model="gpt-4o")
        session = store.create_session(session_spec(who, sample_task(883), "local", "fake"))
        store.append_event(session.id, "agent", "thought", {"text": "t", "reply": "z" * 9000})
        store.append_event(session.id, "agent", "query", {"text": "SELECT Id FROM Case"})
        store.append_event(session.id, "agent", "query", {"text": "SELECT Id FROM User"})
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, TrajectoryViewer(session.id))
        steps = app.screen.query_one("#tv-steps", StepList)
        assert [s.summary[:1] for s in steps.steps] == ["✂", "S"]
        assert "✂ SELECT Id FROM Case" in screen_text(app)
        assert "✂ reply stored truncated: 9,000 characters in all" in _detail(app)
        await pilot.press("l")
        assert "truncated" not in _detail(app)
