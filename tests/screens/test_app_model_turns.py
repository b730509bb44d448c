"""The trajectory viewer shows an outside agent's model calls through the model proxy (issue
37, item 3): each `model_turn` is a step between its tool calls, its detail the messages the
request added and the reply, with the call's usage."""

from __future__ import annotations

from pathlib import Path

from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer
from crmarena_tui.storage import Store
from crmarena_tui.widgets.step_list import StepList
from tests.support.app_support import SIZE, screen_text
from tests.support.app_trajectory_support import Q1, T0, Seeder, push, research_app

USAGE = {"model": "openai/fake-model", "prompt_tokens": 900, "completion_tokens": 40,
         "total_tokens": 940, "cost": 0.002, "calls": 1, "source": "proxy"}  # fmt: skip
CALL = {"id": "c1", "type": "function",
        "function": {"name": "execute_soql", "arguments": '{"query": "SELECT Id FROM Case"}'}}  # fmt: skip


def _seed(db: Path) -> int:
    store = Store(db, clock=lambda: T0)
    agent = store.participant("agent", "my-graph", settings={"strategy": "mcp"})
    first = {
        "model": "openai/fake-model",
        "messages": [{"role": "user", "content": "Which cases closed?"}],
        "earlier": 0,
        "reply": {"role": "assistant", "content": "", "tool_calls": [CALL]},
        "text": "",
        "tool_calls": ["execute_soql"],
        "latency_ms": 812.0,
    }
    second = {
        **first,
        "messages": [{"role": "tool", "tool_call_id": "c1", "content": "[...]"}],
        "earlier": 2,
        "reply": {"role": "assistant", "content": "Three cases."},
        "text": "Three cases.",
        "tool_calls": [],
    }
    steps = [
        ("agent", "usage", USAGE),
        ("agent", "model_turn", first),
        ("agent", "query", {"text": Q1}),
        ("system", "observation", {"observation": "[]", "total_size": 0}),
        ("agent", "usage", USAGE),
        ("agent", "model_turn", second),
        ("agent", "submit", {"answer": "None"}),
    ]
    session_id = Seeder(store).session(agent, 883, steps, 0.0)
    store.close()
    return session_id


async def test_model_turns_are_steps_between_the_tool_calls(tmp_path: Path) -> None:
    session_id = _seed(tmp_path / "sessions.db")
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, TrajectoryViewer(session_id))
        steps = app.screen.query_one("#tv-steps", StepList)
        assert [s.kind for s in steps.steps] == ["model_turn", "query", "model_turn", "submit"]
        text = screen_text(app)
        assert "openai/fake-model: calls execute_soql" in text
        assert "openai/fake-model: Three cases." in text
        assert "Model call · openai/fake-model · 812 ms" in text
        assert "Which cases closed?" in text and "usage: 900 prompt tokens" in text
        assert "→ execute_soql(" in text
        await pilot.press("l", "l")
        text = screen_text(app)
        assert "(the 2 messages of the previous model call first)" in text
        assert "reply:" in text and "Three cases." in text
