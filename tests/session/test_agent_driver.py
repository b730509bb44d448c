"""The agent driver: pause, single-step, resume, stop and take over an agent stepping through an
Episode from another thread; a human playing the user through a blocking queue."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from crmarena_tui.agents.agent import AgentStep
from crmarena_tui.agents.base import STOP
from crmarena_tui.agents.react import ReactAgent
from crmarena_tui.agents.reference import ReferenceAgent
from crmarena_tui.demo.generator import ensure_demo_org
from crmarena_tui.demo.tasks import demo_tasks
from crmarena_tui.orgs.local import LocalOrg
from crmarena_tui.session.agent_driver import AgentDriver, HumanUser, StepReport
from crmarena_tui.session.episode import Episode, EpisodeError
from crmarena_tui.session.service import SessionService
from crmarena_tui.settings.config import load_settings
from crmarena_tui.storage import Store
from crmarena_tui.storage.models import SessionSpec
from tests.fakes.scripted_llm import ScriptedFailure, ScriptedLLM
from tests.support.agents_llm_support import AGENT_ID, TinyOrg, make_task, react

WAIT = 10.0


class Run:
    """A driver running `agent` on `episode` in a thread, recording what it reports."""

    def __init__(self, agent, episode: Episode, *, paused: bool = False) -> None:
        self.reports: list[StepReport] = []
        self.states: list[str] = []
        self.driver = AgentDriver(
            on_step=self.reports.append, on_state=self.states.append, paused=paused
        )
        self.episode = episode
        self.thread = threading.Thread(target=self.driver.run, args=(agent, episode), daemon=True)
        self.thread.start()

    @property
    def actions(self) -> list[str]:
        return [r.step.action for r in self.reports]

    def halted(self) -> None:
        assert self.driver.wait_halted(WAIT), "the driver neither paused nor ended"

    def done(self) -> None:
        assert self.driver.wait_done(WAIT), "the driver did not end"
        self.thread.join(WAIT)


@pytest.fixture()
def store(tmp_path: Path):
    with Store(tmp_path / "sessions.db") as s:
        yield s


@pytest.fixture(scope="module")
def demo_org(shared_org_dir: Path):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CRMARENA_TUI_ORG_DIR", str(shared_org_dir))
        org = LocalOrg(ensure_demo_org("b2b"))
    yield org
    org.close()


def handle_time_task():
    return next(t for t in demo_tasks("b2b") if t.task == "handle_time" and not t.interactive)


def start(store: Store, agent, task, org, user=None) -> Episode:
    participant = store.participant(
        "agent", agent.name, model=agent.model, settings=agent.settings()
    )
    return Episode.start(
        store, SessionSpec(task, org, participant, settings=agent.settings()), user=user
    )


def react_agent(*replies) -> ReactAgent:
    return ReactAgent(ScriptedLLM(list(replies), model="scripted/test"))


QUERY = "SELECT Id, Name FROM User"


def three_queries_then_answer() -> ReactAgent:
    return react_agent(
        react("look", "execute", QUERY),
        react("again", "execute", QUERY),
        react("once more", "execute", QUERY),
        react("done", "respond", AGENT_ID),
    )


def test_the_reference_agent_runs_freely_to_its_grade(store: Store, demo_org) -> None:
    agent = ReferenceAgent()
    episode = start(store, agent, handle_time_task(), demo_org)
    run = Run(agent, episode)
    run.done()
    assert run.driver.state == "finished" and run.states == ["running", "finished"]
    assert run.actions == ["execute", "execute", "execute", "submit"]
    assert [r.index for r in run.reports] == [1, 2, 3, 4]
    last = run.reports[-1]
    assert last.submitted and last.step.grade.reward == 1.0 and episode.status == "submitted"
    # every event of the session was reported once, with the step that appended it
    reported = [e.seq for r in run.reports for e in r.events]
    assert reported == [e.seq for e in episode.events if e.seq > reported[0] - 1]
    assert [e.kind for e in run.reports[0].events] == ["thought", "query", "observation"]


def test_paused_single_step_advances_exactly_one_step(store: Store, demo_org) -> None:
    agent = ReferenceAgent()
    episode = start(store, agent, handle_time_task(), demo_org)
    run = Run(agent, episode, paused=True)
    run.halted()
    assert run.reports == [] and run.driver.state == "paused"
    assert episode.events[-1].kind == "pause"  # the clock stops while nobody lets it work
    run.driver.step()
    run.halted()
    assert run.actions == ["execute"] and run.driver.waiting
    assert episode.query_count == 1 and episode.paused
    run.driver.step()
    run.halted()
    assert run.actions == ["execute", "execute"] and episode.query_count == 2
    run.driver.resume()
    run.done()
    assert run.actions == ["execute", "execute", "execute", "submit"]
    assert episode.status == "submitted" and run.driver.state == "finished"


def test_pause_while_running_waits_after_the_step_in_flight(store: Store) -> None:
    entered, release = threading.Event(), threading.Event()
    replies = iter(
        [
            react("look", "execute", QUERY),
            react("more", "execute", QUERY),
            react("done", "respond", AGENT_ID),
        ]
    )

    def gated(messages, tools):
        entered.set()
        release.wait(WAIT)
        return next(replies)

    agent = ReactAgent(ScriptedLLM(gated, model="scripted/gated"))
    episode = start(store, agent, make_task(), TinyOrg())
    run = Run(agent, episode)
    assert entered.wait(WAIT)  # the first model call is in flight
    run.driver.pause()
    release.set()
    run.halted()
    assert run.actions == ["execute"] and run.driver.state == "paused"
    run.driver.resume()
    run.done()
    assert run.actions == ["execute", "execute", "submit"] and episode.status == "submitted"


def test_stop_leaves_the_session_in_progress_and_a_new_driver_resumes_it(store: Store) -> None:
    agent = three_queries_then_answer()
    task = make_task()
    episode = start(store, agent, task, TinyOrg())
    run = Run(agent, episode, paused=True)
    run.driver.step()
    run.halted()
    run.driver.step()
    run.halted()
    run.driver.stop()
    run.done()
    assert run.driver.state == "stopped" and run.actions == ["execute", "execute"]
    session = store.session(episode.session_id)
    assert session.status == "in_progress" and episode.paused
    # another run picks the same session up where it stopped (a fresh Episode, as after a restart)
    again = start(store, agent, task, TinyOrg())
    assert again.session_id == episode.session_id
    rerun = Run(agent, again)
    rerun.done()
    assert rerun.actions == ["execute", "submit"]  # the third query, then the answer
    assert again.query_count == 3 and again.status == "submitted"
    assert again.latest_grade().reward == 1.0


def test_a_model_failure_ends_the_run_and_keeps_the_session(store: Store) -> None:
    agent = react_agent(react("look", "execute", QUERY), ScriptedFailure("auth", "bad key"))
    episode = start(store, agent, make_task(), TinyOrg())
    run = Run(agent, episode)
    run.done()
    assert run.driver.state == "failed" and "auth" in (run.driver.error or "")
    assert run.actions == ["execute", "model_error"]
    assert episode.status == "in_progress"
    assert any(e.kind == "error" and e.payload.get("error_type") == "auth" for e in episode.events)


def test_an_agent_that_raises_fails_the_run_with_a_recorded_error(store: Store) -> None:
    class Broken:
        name = model = "broken"

        def settings(self):
            return {"model": "broken"}

        def steps(self, episode):
            yield AgentStep(turn=1, action="execute", text="SELECT Id FROM User")
            raise ValueError("solver bug")

    agent = Broken()
    episode = start(store, agent, make_task(), TinyOrg())
    run = Run(agent, episode)
    run.done()
    assert run.driver.state == "failed" and run.driver.error == "ValueError: solver bug"
    assert episode.events[-2].payload == {
        "event": "driver_error",
        "error": "ValueError: solver bug",
    }
    assert episode.status == "in_progress"


def test_take_over_forks_the_session_at_the_last_step_for_a_human(store: Store) -> None:
    agent = three_queries_then_answer()
    episode = start(store, agent, make_task(), TinyOrg())
    run = Run(agent, episode, paused=True)
    run.driver.step()
    run.halted()
    run.driver.step()
    run.halted()
    human = store.participant("human", "ann")
    forked = SessionService(load_settings()).take_over(run.driver, episode, human)
    assert run.driver.state == "stopped"
    assert forked.session.participant_id == human.id
    assert forked.session.parent_session_id == episode.session_id
    assert forked.session.fork_seq == run.driver.last_step_seq
    assert forked.session.kind == "takeover" and not forked.session.is_attempt
    kinds = [e.kind for e in forked.events]
    assert kinds.count("query") == 2 and kinds[-2:] == ["observation", "fork"]  # not the pause
    assert not forked.paused and not forked.finished
    # the human carries on from there; the agent's session stays open and says who took over
    forked.execute("SELECT Id FROM User")
    assert forked.submit(AGENT_ID).reward == 1.0
    assert episode.status == "in_progress"
    assert episode.events[-1].payload["event"] == "taken_over"
    assert episode.events[-1].payload["session"] == forked.session_id


def test_take_over_refuses_a_submitted_or_empty_session(store: Store, demo_org) -> None:
    agent = ReferenceAgent()
    episode = start(store, agent, handle_time_task(), demo_org)
    run = Run(agent, episode)
    run.done()
    with pytest.raises(EpisodeError, match="submitted"):
        SessionService(load_settings()).take_over(
            run.driver, episode, store.participant("human", "ann")
        )
    fresh = start(store, three_queries_then_answer(), make_task(idx=9), TinyOrg())
    idle = AgentDriver()
    with pytest.raises(EpisodeError, match="not done anything"):
        SessionService(load_settings()).take_over(idle, fresh, store.participant("human", "ann"))
    assert idle.state == "stopped"


def test_a_human_plays_the_user_and_the_agent_never_sees_the_hidden_request(store: Store) -> None:
    hidden = "Which agent closed cases fastest in the Zanzibar pilot? Give the Id."
    task = make_task(interactive=True, query=hidden, persona="You are the Zanzibar ops lead.")
    llm = ScriptedLLM(
        [
            react("ask", "respond", "Which quarter do you mean?"),
            react("look", "execute", QUERY),
            react("answer", "respond", f"It is {AGENT_ID}."),
        ],
        model="scripted/agent",
    )
    agent = ReactAgent(llm)
    turns: list[tuple[str, str]] = []
    asked = threading.Semaphore(0)

    def on_turn(kind: str, message: str) -> None:
        turns.append((kind, message))
        asked.release()

    user = HumanUser(on_turn)
    episode = start(store, agent, task, TinyOrg(), user=user)
    run = Run(agent, episode)
    assert asked.acquire(timeout=WAIT) and user.waiting
    assert turns == [("opening", "")] and run.reports == []  # the agent waits for the human
    user.answer("Hello, I need the fastest closer from last quarter.")
    assert asked.acquire(timeout=WAIT)
    assert turns[-1] == ("reply", "Which quarter do you mean?")
    user.answer("Q1 2024.")
    assert asked.acquire(timeout=WAIT)
    assert turns[-1] == ("reply", f"It is {AGENT_ID}.")
    user.stop()
    run.done()
    assert run.actions == ["respond", "execute", "submit"]
    assert episode.status == "submitted" and episode.latest_grade().reward == 1.0
    said = [(e.actor, e.text) for e in episode.events if e.kind == "message"]
    assert said[0] == ("user", "Hello, I need the fastest closer from last quarter.")
    assert said[-1] == ("user", STOP)
    seen = "\n".join(str(m.get("content")) for call in llm.calls for m in call)
    assert "Zanzibar" not in seen and "fastest closer" in seen


def test_stopping_while_the_agent_waits_for_the_human_user(store: Store) -> None:
    task = make_task(interactive=True)
    agent = react_agent(react("ask", "respond", "Which quarter?"))
    user = HumanUser()
    episode = start(store, agent, task, TinyOrg(), user=user)
    run = Run(agent, episode)
    user.answer("Hi, I need help.")
    for _ in range(200):
        if user.waiting and len(episode.history()) == 2:
            break
        threading.Event().wait(0.01)
    assert user.waiting
    user.leave()  # the human closed the screen: the run stops, it does not fail
    run.done()
    assert run.driver.state == "stopped" and run.driver.error is None
    assert episode.status == "in_progress"
    assert not any(e.payload.get("event") == "driver_error" for e in episode.events)
