"""The ReAct and tool-calling agents driving a real Episode and sessions database."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from crmarena_tui.agents import prompts
from crmarena_tui.agents.factory import make_agent
from crmarena_tui.agents.react import ReactAgent, parse_reply
from crmarena_tui.agents.tool_calling import ToolCallingAgent
from crmarena_tui.agents.user_llm import LLMUser
from crmarena_tui.llm.client import Completion
from crmarena_tui.orgs.base import OBSERVATION_PREFIX
from crmarena_tui.session.agent_driver import run_to_end
from crmarena_tui.session.episode import Episode
from crmarena_tui.storage import Store
from crmarena_tui.storage.models import SessionSpec
from tests.fakes.scripted_llm import ScriptedFailure, ScriptedLLM, tool_call
from tests.support.agents_llm_support import AGENT_ID, SECRET, TinyOrg, make_task, react


@pytest.fixture
def store(tmp_path: Path) -> Store:
    with Store(tmp_path / "sessions.db") as s:
        yield s


def start(store: Store, agent, task=None, *, user=None) -> Episode:
    """A session under the workbench protocol: these tests hold this project's own loop
    (tests/agents/test_agent_protocol_upstream.py holds the upstream protocol's)."""
    participant = store.participant(
        "agent", agent.name, model=agent.name, settings=agent.settings()
    )
    return Episode.start(
        store,
        SessionSpec(
            task or make_task(),
            TinyOrg(),
            participant,
            settings=agent.settings(),
            protocol="workbench",
        ),
        user=user,
    )


def kinds(store: Store, episode: Episode) -> list[str]:
    return [f"{e.actor}:{e.kind}" for e in store.events(episode.session_id)]


# -- ReAct ---------------------------------------------------------------------------------------


def test_react_queries_reads_the_observation_and_submits_a_graded_answer(store: Store) -> None:
    llm = ScriptedLLM(
        [
            react("look up agents", "execute", "SELECT Id, Name FROM User"),
            react("Ann is fastest", "respond", AGENT_ID),
        ]
    )
    agent = ReactAgent(llm)
    episode = start(store, agent)
    steps = list(agent.steps(episode))
    assert [s.action for s in steps] == ["execute", "submit"]
    assert steps[-1].done and steps[-1].grade.reward == 1.0
    assert episode.status == "submitted"
    observation = llm.calls[1][-1]["content"]
    assert observation.startswith("Salesforce instance output: [")
    assert json.loads(observation.removeprefix(OBSERVATION_PREFIX))[0] == {
        "Id": AGENT_ID,
        "Name": "Ann Lee",
    }
    assert kinds(store, episode) == [
        "agent:usage",
        "agent:thought",
        "agent:query",
        "system:observation",
        "agent:usage",
        "agent:thought",
        "agent:submit",
        "system:grade",
    ]


def test_the_system_prompt_holds_schema_and_required_metadata_and_aided_adds_optional(
    store,
) -> None:
    plain, aided = (
        ScriptedLLM([react("t", "respond", "x")]),
        ScriptedLLM([react("t", "respond", "x")]),
    )
    run_to_end(ReactAgent(plain), start(store, ReactAgent(plain)))
    aided_agent = ReactAgent(aided, aided=True)
    run_to_end(aided_agent, start(store, aided_agent))
    system = plain.calls[0][0]["content"]
    assert "VoiceCallTranscript__c" in system and "UserTerritory2Association" in system
    assert "Handle time is closed date minus created date." in system
    assert "Q1 runs from January 1" not in system
    assert "Q1 runs from January 1" in aided.calls[0][0]["content"]
    assert plain.calls[0][1] == {"role": "user", "content": make_task().query}


def test_customer_facing_and_privacy_aware_prompts(store: Store) -> None:
    internal = prompts.system_prompt(make_task(), "S")
    external = prompts.system_prompt(make_task(task="knowledge_qa", metric="fuzzy_match"), "S")
    careful = prompts.system_prompt(make_task(task="knowledge_qa"), "S", privacy_aware=True)
    assert "customer-service agent" in external and "customer-service agent" not in internal
    assert "Confidentiality" in careful and "Confidentiality" not in external


def test_the_agent_never_sees_the_ground_truth(store: Store) -> None:
    task = make_task(answer=SECRET)
    llm = ScriptedLLM(
        [react("a", "execute", "SELECT Id FROM User"), react("b", "respond", AGENT_ID)]
    )
    agent = ReactAgent(llm, aided=True)
    episode = start(store, agent, task)
    run_to_end(agent, episode)
    shown = json.dumps(llm.calls)
    assert SECRET not in shown
    assert episode.latest_grade().reward == 0.0  # and it was graded against the hidden answer


def test_a_reply_without_an_action_gets_a_correction_and_an_error_event(store: Store) -> None:
    llm = ScriptedLLM(["I think it is Ann.", react("ok", "respond", AGENT_ID)])
    agent = ReactAgent(llm)
    episode = start(store, agent)
    steps = list(agent.steps(episode))
    assert [s.action for s in steps] == ["format_error", "submit"]
    assert not steps[0].ok and steps[0].observation == prompts.FORMAT_CORRECTION
    assert llm.calls[1][-2:] == [
        {"role": "assistant", "content": "I think it is Ann."},
        {"role": "user", "content": prompts.FORMAT_CORRECTION},
    ]
    errors = [e for e in store.events(episode.session_id) if e.kind == "error"]
    assert errors[0].payload["source"] == "format"


def test_reply_parsing_unwraps_fences_and_takes_the_first_action() -> None:
    fenced = parse_reply("<thought>q</thought><execute>```sql\nSELECT Id FROM Case\n```</execute>")
    assert (fenced.action, fenced.content) == ("execute", "SELECT Id FROM Case")
    both = parse_reply("<thought>x</thought><respond>A</respond><execute>SELECT 1</execute>")
    assert (both.action, both.content) == ("respond", "A")
    unclosed = parse_reply("<thought>x</thought>\n<execute>SELECT Id FROM Lead")
    assert (unclosed.action, unclosed.content) == ("execute", "SELECT Id FROM Lead")
    assert parse_reply("<thought>only thinking</thought>").action is None
    assert parse_reply("<respond>  </respond>").action is None


def test_a_query_error_comes_back_as_code_and_message(store: Store) -> None:
    llm = ScriptedLLM(
        [react("t", "execute", "SELECT bad FROM User"), react("t", "respond", "None")]
    )
    agent = ReactAgent(llm)
    steps = list(agent.steps(start(store, agent)))
    assert not steps[0].ok
    assert (
        llm.calls[1][-1]["content"]
        == "Salesforce instance output: MALFORMED_QUERY: unexpected token: bad"
    )


def test_the_turn_cap_ends_and_grades_the_session(store: Store) -> None:
    llm = ScriptedLLM(lambda messages, tools: react("more", "execute", "SELECT Id FROM User"))
    agent = ReactAgent(llm, max_turns=3)
    episode = start(store, agent)
    steps = list(agent.steps(episode))
    assert [s.action for s in steps] == ["execute"] * 3 + ["turn_limit"]
    assert len(llm.calls) == 3
    assert episode.status == "submitted" and episode.latest_grade().reward == 0.0


def test_model_retries_are_recorded_and_the_session_still_completes(store: Store) -> None:
    llm = ScriptedLLM(
        [
            react("a", "execute", "SELECT Id FROM User"),
            ScriptedFailure("rate_limit"),
            ScriptedFailure("timeout"),
            react("b", "respond", AGENT_ID),
        ]
    )
    agent = ReactAgent(llm)
    episode = start(store, agent)
    steps = list(agent.steps(episode))
    assert steps[-1].grade.reward == 1.0 and steps[-1].usage["attempts"] == 3
    errors = [e.payload for e in store.events(episode.session_id) if e.kind == "error"]
    assert [(e["source"], e["error_type"]) for e in errors] == [
        ("llm", "rate_limit"),
        ("llm", "timeout"),
    ]
    assert "Salesforce instance output" not in json.dumps(episode.trajectory()[-1])


def test_a_model_that_stays_down_leaves_a_resumable_session(store: Store) -> None:
    down = ScriptedLLM(
        [react("a", "execute", "SELECT Id, Name FROM User")] + [ScriptedFailure("server")] * 3,
        max_retries=2,
    )
    agent = ReactAgent(down)
    episode = start(store, agent)
    steps = list(agent.steps(episode))
    assert steps[-1].action == "model_error" and steps[-1].end_reason == "api_error"
    assert episode.status == "in_progress"

    back = ScriptedLLM([react("resume", "respond", AGENT_ID)])
    again = ReactAgent(back)
    resumed = start(store, again)
    assert resumed.session_id == episode.session_id
    steps = list(again.steps(resumed))
    assert steps[-1].grade.reward == 1.0
    replayed = back.calls[0]
    assert replayed[1]["content"] == make_task().query
    assert replayed[2]["content"].startswith("<thought>a</thought>")
    assert replayed[3]["content"].startswith('Salesforce instance output: [{"Id"')
    assert len(store.sessions()) == 1


def test_stopping_between_steps_and_resuming_continues_the_same_conversation(store: Store) -> None:
    first = ScriptedLLM([react("1", "execute", "SELECT bad FROM User"), "no action here"])
    agent = ReactAgent(first)
    episode = start(store, agent)
    steps = agent.steps(episode)
    next(steps), next(steps)
    steps.close()  # the app pressed stop
    assert episode.status == "in_progress"
    second = ScriptedLLM([react("3", "respond", AGENT_ID)])
    again = ReactAgent(second)
    resumed = start(store, again)
    list(again.steps(resumed))
    replayed = [(m["role"], m["content"]) for m in second.calls[0][2:]]
    assert replayed == [
        ("assistant", "<thought>1</thought>\n<execute>SELECT bad FROM User</execute>"),
        ("user", "Salesforce instance output: MALFORMED_QUERY: unexpected token: bad"),
        ("assistant", "no action here"),
        ("user", prompts.FORMAT_CORRECTION),
    ]


# -- multi-turn -----------------------------------------------------------------------------------


def test_multi_turn_sends_responds_to_the_user_and_submits_the_last_before_stop(
    store: Store,
) -> None:
    task = make_task(interactive=True, answer=SECRET)
    user_llm = ScriptedLLM(
        [
            "Hi, I need an agent's Id.",
            "The one with the shortest handle time.",
            "Thanks! ###STOP###",
        ]
    )
    agent_llm = ScriptedLLM(
        [
            react("ask", "respond", "Which agent do you mean?"),
            react("q", "execute", "SELECT Id FROM User"),
            react("answer", "respond", AGENT_ID),
        ]
    )
    agent = ReactAgent(agent_llm, max_turns=2)  # the count restarts after each respond
    episode = start(store, agent, task, user=LLMUser(user_llm))
    steps = list(agent.steps(episode))
    assert [s.action for s in steps] == ["respond", "execute", "submit"]
    assert steps[0].observation == "The one with the shortest handle time."
    assert steps[-1].end_reason == "user_stop" and steps[-1].text == AGENT_ID
    assert agent_llm.calls[0][1] == {"role": "user", "content": "Hi, I need an agent's Id."}
    assert task.query not in json.dumps(agent_llm.calls)  # the hidden instruction stays hidden
    assert task.persona not in json.dumps(agent_llm.calls)  # as upstream: the user's persona too
    assert SECRET not in json.dumps(agent_llm.calls) + json.dumps(user_llm.calls)
    user_view = user_llm.calls[-1]
    assert task.query in user_view[0]["content"] and task.persona in user_view[0]["content"]
    assert [m["role"] for m in user_view[1:]] == ["user", "assistant", "user", "assistant", "user"]


def test_the_llm_user_cleans_its_replies() -> None:
    user = LLMUser(ScriptedLLM(['"User: I need the Id."', "Great, thanks. ###STOP###", "   "]))
    task = make_task(interactive=True)
    assert user.opening(task) == "I need the Id."
    assert user.reply(task, [{"role": "agent", "content": AGENT_ID}]) == prompts.STOP
    assert user.reply(task, [{"role": "agent", "content": "?"}]) == prompts.STOP


# -- tool calling ---------------------------------------------------------------------------------


def test_tool_calling_agent_runs_tools_and_submits(store: Store) -> None:
    llm = ScriptedLLM(
        [
            Completion(
                text="",
                tool_calls=[
                    tool_call("execute_soql", "c1", query="SELECT Id FROM User"),
                    tool_call("execute_sosl", "c2", search="FIND {Ann}"),
                ],
            ),
            "I will answer now.",
            Completion(text="done", tool_calls=[tool_call("respond", "c3", content=AGENT_ID)]),
        ]
    )
    agent = ToolCallingAgent(llm)
    episode = start(store, agent)
    steps = list(agent.steps(episode))
    assert [s.action for s in steps] == ["execute", "format_error", "submit"]
    assert steps[-1].grade.reward == 1.0
    assert [t["function"]["name"] for t in llm.tools_seen[0]] == [
        "execute_soql",
        "execute_sosl",
        "respond",
    ]
    second = llm.calls[1]
    assert (
        second[-2]["role"] == "tool"
        and second[-2]["tool_call_id"] == "c1"
        and AGENT_ID in second[-2]["content"]
    )
    assert second[-1] == {
        "role": "tool",
        "tool_call_id": "c2",
        "content": "Not run: make one tool call per turn.",
    }
    assert llm.calls[2][-1] == {"role": "user", "content": prompts.TOOLS_CORRECTION}
    assert episode.query_count == 1


def test_tool_calling_agent_resumes_with_matching_tool_results(store: Store) -> None:
    first = ScriptedLLM(
        [
            Completion(
                text="", tool_calls=[tool_call("execute_soql", "c1", query="SELECT Id FROM User")]
            ),
            ScriptedFailure("auth"),
        ]
    )
    agent = ToolCallingAgent(first)
    episode = start(store, agent)
    assert [s.action for s in agent.steps(episode)] == ["execute", "model_error"]
    second = ScriptedLLM(
        [Completion(text="", tool_calls=[tool_call("respond", "c2", content=AGENT_ID)])]
    )
    again = ToolCallingAgent(second)
    list(again.steps(start(store, again)))
    replayed = second.calls[0]
    assert replayed[2]["tool_calls"][0]["id"] == "c1"
    assert replayed[3]["role"] == "tool" and replayed[3]["tool_call_id"] == "c1"
    assert store.sessions()[0].status == "submitted"


def test_make_agent_builds_each_strategy_with_its_settings() -> None:
    from tests.fakes.scripted_llm import register_script, unregister_script

    register_script("mk", lambda: ["x"])
    try:
        react_agent = make_agent("scripted/mk", aided=True)
        tools_agent = make_agent("scripted/mk", strategy="tool_call", privacy_aware=True)
    finally:
        unregister_script("mk")
    assert isinstance(react_agent, ReactAgent) and isinstance(tools_agent, ToolCallingAgent)
    assert react_agent.settings()["aided"] is True and react_agent.settings()["strategy"] == "react"
    assert (
        tools_agent.settings()["privacy_aware"] is True
        and tools_agent.settings()["strategy"] == "tool_call"
    )
    with pytest.raises(ValueError, match="unknown strategy"):
        make_agent("scripted/mk", strategy="telepathy")


def test_make_agent_reference_is_imported_only_when_asked_for() -> None:
    import subprocess

    code = (
        "import sys\n"
        "from crmarena_tui.agents.factory import make_agent\n"
        "before = 'crmarena_tui.agents.reference' in sys.modules\n"
        "agent = make_agent('reference')\n"
        "print(before, type(agent).__name__, agent.name, 'litellm' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "ReferenceAgent", "reference", "False"]
