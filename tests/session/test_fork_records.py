"""What a fork records: the step it continues after, numbered as the viewer numbers steps (and
exported so: `fork_seq` is that step, `fork_event_seq` the last event copied), the protocol
it runs under (the reference agent's fork: `workbench`), and a model agent's fork made only once
the model client is loaded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.agents.reference import ReferenceAgent
from crmarena_tui.screens.fork_dialog import ForkDialog
from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer
from crmarena_tui.screens.workspace import Workspace
from crmarena_tui.session.agent_driver import run_to_end
from crmarena_tui.session.episode import Episode
from crmarena_tui.session.service import SessionService
from crmarena_tui.settings.config import load_settings
from crmarena_tui.storage import Store
from crmarena_tui.storage.exporter import export_sessions
from crmarena_tui.storage.models import SessionSpec
from crmarena_tui.storage.steps import fork_step
from crmarena_tui.widgets.step_list import StepList
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.support.agents_llm_support import TinyOrg, make_task
from tests.support.app_support import SIZE, FakeOrg, screen_text, wait_for_workers
from tests.support.app_trajectory_support import push, research_app, seed


async def test_the_exported_fork_step_is_the_step_the_viewer_shows(tmp_path: Path) -> None:
    ids = seed(tmp_path / "sessions.db")
    app = research_app(tmp_path, FakeOrg())
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, TrajectoryViewer(ids["agent"]))
        steps = app.screen.query_one("#tv-steps", StepList)
        await pilot.press("l")  # the agent's second step (thought, usage, query, observation)
        at_seq = steps.current.last_seq
        await pilot.press("f")
        assert isinstance(app.screen, ForkDialog)
        assert f"session {ids['agent']} after step 2" in screen_text(app)
        await pilot.press("enter")  # continue as me
        await wait_for_workers(pilot, app)
        assert isinstance(app.screen, Workspace) and app.screen.fork
        child = app.screen.episode.session_id
        await push(pilot, TrajectoryViewer(child))
        assert f"fork of #{ids['agent']} after step 2" in screen_text(app)
    assert at_seq > 2  # the step's last event is not its number
    out = tmp_path / "sessions.jsonl"
    with Store(tmp_path / "sessions.db") as store:
        export_sessions(store, "jsonl", out)
    rows = {r["session_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert (rows[child]["fork_seq"], rows[child]["fork_event_seq"]) == (2, at_seq)
    assert rows[ids["agent"]]["fork_seq"] is None


def test_a_fork_records_its_step_and_older_forks_get_it_from_their_log(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        ana = store.participant("human", "ana")
        org = TinyOrg()
        run = Episode.start(store, SessionSpec(make_task(1), org, ana))
        run.execute("SELECT Id FROM User")  # step 1: events 1-2
        run.note("hm")  # step 2: event 3
        run.execute("SELECT Name FROM User")  # step 3: events 4-5
        forked = Episode.fork(store, run.session_id, 5, org, ana)
        mark = forked.events[-1]
        assert (mark.kind, mark.payload["at_seq"], mark.payload["at_step"]) == ("fork", 5, 3)
        assert fork_step(forked.events, 5) == 3
        # a fork of the fork: its own fork event counts, not the one copied from its parent
        forked.execute("SELECT Id FROM Case")
        again = Episode.fork(store, forked.session_id, forked.events[-1].seq, org, ana)
        assert fork_step(again.events, again.session.fork_seq) == 5
        # a fork stored before forks recorded their step: the step of its log ending at fork_seq
        old = [e.model_copy(update={"payload": {"from_session": 1}}) for e in forked.events]
        assert fork_step(old, 5) == 3


def test_a_fork_the_reference_agent_continues_runs_under_workbench(tmp_path: Path) -> None:
    service = SessionService(load_settings(protocol="upstream"))
    with Store(tmp_path / "s.db") as store:
        org = TinyOrg()
        bot = store.participant("agent", "openai/gpt-4o", model="openai/gpt-4o")
        run = service.start(store, service.spec(make_task(1), org, bot))
        run.execute("SELECT Id FROM User", actor="agent")
        assert run.protocol == "upstream" and run.session.protocol == "upstream"
        agent = ReferenceAgent()
        forked = service.fork_for_agent(store, run.session, run.events[-1].seq, org, agent)
        assert forked.protocol == "workbench" and forked.session.protocol == "workbench"
        run_to_end(agent, forked)
        assert forked.status == "submitted"
        assert store.grade(forked.session_id).protocol == "workbench"
        # a model agent's fork continues its session's protocol
        assert service.fork_protocol(run.session, "openai/gpt-4o") == "upstream"
        human = service.fork(
            store, run.session, run.events[-1].seq, org, store.participant("human", "ana")
        )
        assert human.protocol == "upstream"


async def test_a_model_agents_fork_says_it_loads_the_model_client_before_forking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from textual.widgets import Input

    from crmarena_tui.llm import client as llm
    from tests.screens.test_app_agent import until

    monkeypatch.setattr(llm, "_warmed", False)
    gate, real = threading.Event(), llm.load_litellm

    def load() -> None:
        gate.wait(30)
        real()

    monkeypatch.setattr(llm, "load_litellm", load)
    ids = seed(tmp_path / "sessions.db")
    answer = Reply.chat("<thought>Done.</thought><respond>005Wt000003NIvNIAW</respond>")
    with FakeOpenAIServer(fallback=lambda body: answer) as server:
        monkeypatch.setenv("CRMARENA_TUI_API_BASE", server.base_url)
        app = research_app(tmp_path, FakeOrg())
        async with app.run_test(size=SIZE) as pilot:
            await push(pilot, TrajectoryViewer(ids["ann"]))
            await pilot.press("f", "down", "down", "enter")
            app.screen.query_one("#fork-model", Input).value = "openai/fake-model"
            await pilot.press("enter")
            await until(pilot, lambda: "loading the model client" in screen_text(app), "a word")
            with Store(tmp_path / "sessions.db") as store:
                assert len(store.sessions()) == 9  # the fork is not made yet
            gate.set()
            await wait_for_workers(pilot, app)
            with Store(tmp_path / "sessions.db") as store:
                forks = [s for s in store.sessions() if s.kind == "fork"]
                assert len(forks) == 1 and forks[0].status == "submitted"
