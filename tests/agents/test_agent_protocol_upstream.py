"""The agent loop under the `upstream` protocol, one worked example per fact of upstream's code
(crm_sandbox/agents/chat_agent.py, crm_sandbox/env/env.py, crm_sandbox/env/users.py), with the
`workbench` contrast where the two differ. Scripted models only: no network."""

from __future__ import annotations

from pathlib import Path

import pytest

from crmarena_tui.agents.base import STOP
from crmarena_tui.agents.react import ReactAgent
from crmarena_tui.agents.user_upstream import UpstreamUser
from crmarena_tui.session.agent_driver import run_to_end
from crmarena_tui.session.episode import Episode
from crmarena_tui.session.service import SessionService
from crmarena_tui.storage import Store
from crmarena_tui.storage.models import SessionSpec
from tests.fakes.scripted_llm import ScriptedLLM
from tests.support.agents_llm_support import AGENT_ID, TinyOrg, make_task, react

QUERY = react("look", "execute", "SELECT Id, Name FROM User")
ANSWER = react("done", "respond", AGENT_ID)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    with Store(tmp_path / "sessions.db") as s:
        yield s


def start(store: Store, agent, task=None, *, user=None, protocol="upstream") -> Episode:
    participant = store.participant("agent", agent.name, settings=agent.settings())
    task = task or make_task()
    return Episode.start(
        store,
        SessionSpec(task, TinyOrg(), participant, settings=agent.settings(), protocol=protocol),
        user=user,
    )


def chat_task():
    return make_task(interactive=True, query="Which agent was fastest last quarter? Give the Id.")


def user_saying(*replies: str) -> tuple[UpstreamUser, ScriptedLLM]:
    """An upstream-style simulated user whose model says `replies` in turn (the opening first)."""
    llm = ScriptedLLM(list(replies), model="scripted/user")
    return UpstreamUser(llm), llm


def ending(store: Store, episode: Episode) -> tuple[float, str | None, str | None]:
    grade = store.grade(episode.session_id)
    return grade.reward, grade.metrics.get("end_reason"), grade.extraction


# -- an answer counts only when the user confirms it --------------------------------------------


def test_a_correct_answer_confirmed_by_the_user_scores_1(store: Store) -> None:
    user, user_llm = user_saying("Hi, who handled cases fastest last quarter?", "###STOP###")
    agent = ReactAgent(ScriptedLLM([QUERY, ANSWER]))
    episode = start(store, agent, chat_task(), user=user)
    steps = list(agent.steps(episode))
    assert [s.action for s in steps] == ["execute", "submit"]
    assert steps[-1].end_reason == "user_stop" and steps[-1].grade.reward == 1.0
    assert store.grade(episode.session_id).answer == AGENT_ID


class RawUser:
    """A user simulator that says its lines as they are (a human playing the user, say)."""

    name = "raw"

    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)

    def opening(self, task) -> str:
        return self.lines[0]

    def reply(self, task, history) -> str:
        return self.lines[sum(1 for m in history if m["role"] == "user")]


def test_a_stop_anywhere_in_the_reply_confirms(store: Store) -> None:
    """Upstream looks for ###STOP### inside the reply, not for a reply that is only the token:
    the loop reads any simulator's reply so, and upstream's simulator records it as the token."""
    user, _ = user_saying("Perfect, thank you! ###STOP###")
    assert user.reply(chat_task(), [{"role": "user", "content": "x"}]) == STOP
    for simulator in (
        user_saying("Who?", "Great ###STOP###")[0],
        RawUser("Who?", "Great ###STOP###"),
    ):
        agent = ReactAgent(ScriptedLLM([ANSWER]))
        episode = start(store, agent, chat_task(), user=simulator)
        assert list(agent.steps(episode))[-1].grade.reward == 1.0


def test_a_correct_answer_never_confirmed_scores_0_at_the_user_turn_limit(store: Store) -> None:
    """Ten user replies without ###STOP###: the agent's next action ends the episode, reward 0,
    although every respond was the right Id (the workbench grades it: see the next test)."""
    replies = ["Who was fastest last quarter?"] + ["Hmm, are you sure?"] * 11
    user, user_llm = user_saying(*replies)
    agent = ReactAgent(ScriptedLLM([ANSWER] * 10 + [QUERY]))
    episode = start(store, agent, chat_task(), user=user)
    steps = list(agent.steps(episode))
    assert [s.action for s in steps] == ["respond"] * 10 + ["user_limit"]
    assert ending(store, episode) == (0.0, "Max user turns reached", "ended")
    assert store.session(episode.session_id).status == "submitted"
    said = [e for e in episode.events if e.kind == "message" and e.actor == "user"]
    assert len(said) == 11  # the opening and 10 replies
    assert episode.events[-3].kind == "observation"  # the last query still ran, unseen


def test_workbench_grades_the_same_unconfirmed_answer(store: Store) -> None:
    replies = ["Who was fastest last quarter?"] + ["Hmm, are you sure?"] * 11
    user, _ = user_saying(*replies)
    agent = ReactAgent(ScriptedLLM([ANSWER] * 10))
    episode = start(store, agent, chat_task(), user=user, protocol="workbench")
    steps = list(agent.steps(episode))
    assert steps[-1].grade.reward == 1.0 and store.grade(episode.session_id).extraction != "ended"


def test_a_respond_after_the_tenth_reply_still_reaches_the_user(store: Store) -> None:
    """Upstream's environment checks the limit before acting, then still asks the user: an 11th
    reply that says ###STOP### grades the respond."""
    replies = ["Who was fastest?"] + ["Are you sure?"] * 10 + [STOP]
    user, user_llm = user_saying(*replies)
    agent = ReactAgent(ScriptedLLM([ANSWER] * 11))
    episode = start(store, agent, chat_task(), user=user)
    steps = list(agent.steps(episode))
    assert len(steps) == 11 and steps[-1].end_reason == "user_stop"
    assert steps[-1].grade.reward == 1.0


def test_the_eleventh_reply_without_stop_ends_with_0(store: Store) -> None:
    replies = ["Who was fastest?"] + ["Are you sure?"] * 11
    user, _ = user_saying(*replies)
    agent = ReactAgent(ScriptedLLM([ANSWER] * 11))
    episode = start(store, agent, chat_task(), user=user)
    steps = list(agent.steps(episode))
    assert steps[-1].action == "user_limit" and steps[-1].observation == "Are you sure?"
    assert ending(store, episode) == (0.0, "Max user turns reached", "ended")


def test_one_rule_for_an_unconfirmed_respond_under_both_protocols(store: Store) -> None:
    """Workbench grades the last respond at the limit, marked unconfirmed; re-graded under
    upstream the same session scores 0, as an imported one does
    (tests/commands/test_regrade_imported.py)."""
    user, _ = user_saying("Who was fastest?", "Can you double-check?")
    agent = ReactAgent(ScriptedLLM([ANSWER] + [QUERY] * 20))
    episode = start(store, agent, chat_task(), user=user, protocol="workbench")
    steps = list(agent.steps(episode))
    assert steps[-1].action == "turn_limit"
    grade = store.grade(episode.session_id)
    assert (grade.reward, grade.answer, grade.protocol) == (1.0, AGENT_ID, "workbench")
    assert grade.metrics["unconfirmed"] is True
    assert grade.metrics["end_reason"] == "agent turn limit (20) reached"
    session = store.session(episode.session_id)
    again = Episode(store, session, TinyOrg(), protocol="upstream").regrade()
    assert (again.reward, again.answer, again.extraction) == (0.0, "", "ended")


def test_twenty_turns_after_an_unconfirmed_respond_end_with_0(store: Store) -> None:
    """The respond the user never confirmed is not graded: "Max turns reached", reward 0."""
    user, _ = user_saying("Who was fastest?", "Can you double-check?")
    agent = ReactAgent(ScriptedLLM([ANSWER] + [QUERY] * 20))
    episode = start(store, agent, chat_task(), user=user)
    steps = list(agent.steps(episode))
    assert [s.action for s in steps] == ["respond"] + ["execute"] * 20 + ["turn_limit"]
    assert ending(store, episode) == (0.0, "Max turns reached", "ended")
    assert store.grade(episode.session_id).answer == ""  # no answer was submitted
    [end] = [e for e in store.events(episode.session_id) if e.kind == "submit"]
    assert end.payload["last_respond"] == AGENT_ID  # the last respond, kept beside it
    said = [e.text for e in store.events(episode.session_id) if e.kind == "message"]
    assert AGENT_ID in said


def test_single_turn_twenty_turns_without_respond_score_0(store: Store) -> None:
    agent = ReactAgent(ScriptedLLM([QUERY] * 20))
    episode = start(store, agent)
    steps = list(agent.steps(episode))
    assert len(steps) == 21 and steps[-1].action == "turn_limit"
    assert ending(store, episode) == (0.0, "Max turns reached", "ended")


def test_single_turn_the_twentieth_turn_may_still_respond(store: Store) -> None:
    agent = ReactAgent(ScriptedLLM([QUERY] * 19 + [ANSWER]))
    episode = start(store, agent)
    steps = list(agent.steps(episode))
    assert steps[-1].action == "submit" and steps[-1].grade.reward == 1.0


def test_format_errors_count_as_turns(store: Store) -> None:
    agent = ReactAgent(ScriptedLLM(["I think it is Ann."] * 20))
    episode = start(store, agent)
    steps = list(agent.steps(episode))
    assert [s.action for s in steps].count("format_error") == 20
    assert ending(store, episode)[1] == "Max turns reached"


def test_an_ended_episode_keeps_its_0_when_graded_again(store: Store) -> None:
    agent = ReactAgent(ScriptedLLM([QUERY] * 20))
    episode = start(store, agent)
    list(agent.steps(episode))
    again = episode.regrade()
    assert again.reward == 0.0 and again.metrics["end_reason"] == "Max turns reached"


# -- the simulated user --------------------------------------------------------------------------


def test_the_simulated_user_opens_and_never_sees_a_temperature(store: Store) -> None:
    user, user_llm = user_saying("Hi! I'm after the quickest agent from last quarter.", STOP)
    agent_llm = ScriptedLLM([ANSWER])
    agent = ReactAgent(agent_llm)
    task = make_task(interactive=True, query="Which agent was fastest? Give the Id.")
    episode = start(store, agent, task, user=user)
    list(agent.steps(episode))
    first = agent_llm.calls[0]
    assert first[1] == {
        "role": "user",
        "content": "Hi! I'm after the quickest agent from last quarter.",
    }
    assert "Which agent was fastest" not in first[0]["content"]  # the hidden request
    opening_call = user_llm.calls[0]
    assert opening_call[0]["role"] == "system" and task.query in opening_call[0]["content"]
    assert task.persona in opening_call[0]["content"]
    assert [m["role"] for m in opening_call[1:]] == ["user"]  # the agent's greeting
    assert all(not o.send_temperature for o in user_llm.options_seen)
    reply_call = user_llm.calls[1]
    assert reply_call[-1] == {"role": "user", "content": AGENT_ID}
    assert reply_call[-2]["role"] == "assistant"  # its own opening


def test_a_session_records_its_protocol_and_never_resumes_under_the_other(store: Store) -> None:
    agent = ReactAgent(ScriptedLLM([QUERY]))
    upstream = start(store, agent)
    workbench = start(store, agent, protocol="workbench")
    assert upstream.session_id != workbench.session_id
    assert store.session(upstream.session_id).settings["protocol"] == "upstream"
    assert store.session(workbench.session_id).settings["protocol"] == "workbench"
    assert start(store, agent).session_id == upstream.session_id  # same protocol: resumed


def test_a_resumed_upstream_session_continues_under_upstream(tmp_path: Path) -> None:
    """The session's protocol wins over the setting of the process that reopens it."""
    from crmarena_tui.settings.config import Settings

    with Store(tmp_path / "s.db") as store:
        first = ReactAgent(ScriptedLLM([QUERY]))
        episode = start(store, first)
        next(first.steps(episode))  # one query, then the process "dies"
        service = SessionService(Settings(protocol="workbench"))
        reopened = service.open(store, episode.session_id, TinyOrg())
        assert reopened.protocol == "upstream"
        second = ReactAgent(ScriptedLLM([QUERY] * 19))
        steps = list(second.steps(reopened))
        assert steps[-1].action == "turn_limit"
        assert ending(store, reopened)[1] == "Max turns reached"  # 1 + 19 turns: upstream's end
        replayed = second.client.calls[0]
        assert replayed[2]["content"] == QUERY  # stripped reply, as upstream keeps it
        assert replayed[3]["content"].startswith("Salesforce instance output: [{'Id'")


def test_the_reference_agent_runs_under_workbench(tmp_path: Path) -> None:
    from crmarena_tui.agents.reference import ReferenceAgent
    from crmarena_tui.settings.config import Settings

    service = SessionService(Settings(protocol="upstream"))
    assert service.protocol_for("reference") == "workbench"
    assert service.protocol_for("openai/gpt-4o") == "upstream"
    with Store(tmp_path / "s.db") as store:
        episode = service.start_agent(store, make_task(), TinyOrg(), ReferenceAgent())
        assert episode.protocol == "workbench"
        assert store.session(episode.session_id).settings["protocol"] == "workbench"


def test_a_driven_upstream_run_records_the_end_reason_for_the_live_view(store: Store) -> None:
    from crmarena_tui.widgets.agent_step_log import step_markup

    agent = ReactAgent(ScriptedLLM([QUERY] * 20))
    episode = start(store, agent)
    reports = []
    run_to_end(agent, episode, on_step=reports.append)
    assert "Ended:[/] Max turns reached" in step_markup(reports[-1])


def test_a_search_that_crashed_upstreams_connector_ends_the_episode_with_0(store: Store) -> None:
    """A search whose first record has a field another record lacks made upstream's connector
    raise; its runner recorded reward 0. The workbench shows the records."""
    from crmarena_tui.orgs.base import QueryResult

    class MixedOrg(TinyOrg):
        def search(self, sosl, *, today=None):
            rows = [
                {"Id": AGENT_ID, "Name": "Ann Lee"},
                {"Id": "003Wt000001AAAAIAA", "Title": "VP"},
            ]
            return QueryResult(records=rows, kind="search", total_size=2)

    search = react("s", "execute", "FIND {Ann} RETURNING User(Id, Name), Contact(Id, Title)")
    for protocol, expected in (("upstream", "connector_error"), ("workbench", "submit")):
        agent = ReactAgent(ScriptedLLM([search, ANSWER]))
        me = store.participant("agent", agent.name)
        episode = Episode.start(store, SessionSpec(make_task(), MixedOrg(), me, protocol=protocol))
        steps = list(agent.steps(episode))
        assert steps[-1].action == expected
    assert ending(store, episode)[0] == 1.0
    grades = [store.grade(s.id) for s in store.sessions()]
    assert grades[0].reward == 0.0
    assert grades[0].metrics["end_reason"] == "Connector error (KeyError: 'Name')"
