"""The external agent's tools as plain Python (`ToolEnv`) and its task queue (`TaskQueue`): what
an agent is given, every call an event, the turn limits, resuming, usage; no MCP involved."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.agents.user_scripted import ScriptedUser
from crmarena_tui.session.org_pool import OrgPool
from crmarena_tui.session.service import SessionService
from crmarena_tui.session.task_queue import QueueOptions, TaskQueue, mcp_participant_name
from crmarena_tui.settings.config import Settings
from crmarena_tui.storage import Store
from tests.support.agents_llm_support import AGENT_ID, OTHER_ID, TinyOrg, make_task

SQL = "SELECT Id, Name FROM User"


def queue(
    db: Path, tasks=None, *, protocol: str = "workbench", store: Store | None = None, **options
) -> TaskQueue:
    org = TinyOrg()
    return TaskQueue(
        store or Store(db, durability="normal"),
        tasks or [make_task(1), make_task(2, answer=OTHER_ID)],
        SessionService(Settings(protocol=protocol)),
        QueueOptions(**options),
        orgs=OrgPool(None, factory=lambda org_type: org),
        user_factory=ScriptedUser,
    )


def kinds(env) -> list[str]:
    return [f"{e.actor}:{e.kind}" for e in env.episode.events]


def test_the_brief_has_prompt_request_and_place_never_the_answer(tmp_path: Path) -> None:
    env = queue(tmp_path / "s.db").next_task("agent-x")
    brief = env.task_brief()
    assert (brief.number, brief.total, brief.interactive, brief.resumed) == (1, 2, False, False)
    assert brief.request.startswith("Which agent had the shortest")
    assert "Handle time is closed date minus created date." in brief.system_prompt
    assert "execute_soql" in brief.system_prompt and "User:" in brief.system_prompt
    assert AGENT_ID not in json.dumps(brief.to_dict())
    assert "Domain Details" not in brief.system_prompt  # only with aided
    aided = queue(tmp_path / "a.db", aided=True).next_task("agent-x")
    assert "Q1 runs from January 1" in aided.task_brief().system_prompt


def test_queries_are_events_and_errors_are_salesforce_text(tmp_path: Path) -> None:
    env = queue(tmp_path / "s.db").next_task("agent-x")
    out = env.execute_soql(SQL)
    assert json.loads(out) == [
        {"Id": AGENT_ID, "Name": "Ann Lee"},
        {"Id": OTHER_ID, "Name": "Bo Chen"},
    ]
    assert env.execute_soql("SELECT bad FROM User") == "MALFORMED_QUERY: unexpected token: bad"
    assert json.loads(env.execute_sosl("FIND {Ann} RETURNING User(Id)")) == [{"Id": AGENT_ID}]
    assert kinds(env) == [
        "agent:query",
        "system:observation",
        "agent:query",
        "system:error",
        "agent:search",
        "system:observation",
    ]


def test_describe_object_gives_fields_and_relationships(tmp_path: Path) -> None:
    env = queue(tmp_path / "s.db").next_task("agent-x")
    case = json.loads(env.describe_object("case"))
    assert case["name"] == "Case"
    owner = next(f for f in case["fields"] if f["name"] == "OwnerId")
    assert owner["type"] == "reference" and owner["reference_to"] == "User"
    assert owner["relationship_name"] == "Owner"
    assert env.describe_object("Nope") == "INVALID_TYPE: sObject type 'Nope' is not supported."


def test_a_single_turn_respond_submits_and_grades(tmp_path: Path) -> None:
    q = queue(tmp_path / "s.db")
    env = q.next_task("agent-x")
    assert env.respond(AGENT_ID) == "Submitted."
    assert env.episode.status == "submitted" and env.episode.latest_grade().reward == 1.0
    assert env.execute_soql(SQL).startswith("This task has ended (submitted)")
    assert q.next_task("agent-x").task_brief().number == 2
    shown = queue(tmp_path / "g.db", show_grade=True).next_task("agent-x")
    assert shown.respond(OTHER_ID) == "Submitted. Reward: 0.000."


def test_the_queue_ends_and_says_which_tasks_are_done(tmp_path: Path) -> None:
    q = queue(tmp_path / "s.db")
    for answer in (AGENT_ID, OTHER_ID):
        q.next_task("agent-x").respond(answer)
    assert q.next_task("agent-x") is None
    assert q.counts() == {"done": 2, "in_progress": 0, "left": 0}


def test_the_turn_limit_ends_the_episode_as_the_model_agents_do(tmp_path: Path) -> None:
    env = queue(tmp_path / "s.db", max_turns=3).next_task("agent-x")
    assert env.execute_soql(SQL).startswith("[")
    env.execute_soql(SQL)
    last = env.execute_soql(SQL)
    assert "Episode over: the turn limit (3 actions without a respond) was reached" in last
    assert env.episode.status == "submitted"
    up = queue(tmp_path / "u.db", protocol="upstream", max_turns=2).next_task("agent-x")
    up.execute_soql(SQL)
    assert "Max turns reached; no answer was confirmed" in up.execute_soql(SQL)
    assert up.episode.latest_grade().metrics["end_reason"] == "Max turns reached"


def test_a_chat_task_talks_to_the_user_until_they_stop(tmp_path: Path) -> None:
    tasks = [make_task(1, interactive=True)]
    env = queue(tmp_path / "s.db", tasks).next_task("agent-x")
    brief = env.task_brief()
    assert brief.interactive and brief.request  # the user's opening, not the query itself
    assert brief.request != tasks[0].query
    reply = env.respond("Which quarter do you mean?")
    assert reply and env.episode.status == "in_progress"
    replies = [env.respond(AGENT_ID) for _ in range(3) if not env.finished]
    assert "Episode over: the user ended the conversation" in replies[-1]
    assert env.episode.status == "submitted" and env.episode.latest_grade().reward == 1.0


def test_a_session_left_in_progress_resumes_with_its_turns(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    first = queue(db, max_turns=3).next_task("agent-x")
    first.execute_soql(SQL)
    first.execute_soql(SQL)
    again = queue(db, max_turns=3).next_task("agent-x")
    assert again.session_id == first.session_id and again.task_brief().resumed
    assert "Episode over" in again.execute_soql(SQL)  # its third action: the count was kept
    other = queue(db, max_turns=3).next_task("agent-y")
    assert other.session_id != first.session_id  # another participant, another session


def test_usage_is_recorded_as_the_project_agents_record_it(tmp_path: Path) -> None:
    env = queue(tmp_path / "s.db").next_task("agent-x")
    env.report_usage(model="my-model", prompt_tokens=100, completion_tokens=20, cost=0.5)
    env.respond(AGENT_ID, usage={"model": "my-model", "prompt_tokens": 10, "completion_tokens": 2})
    usage = [e.payload for e in env.episode.events if e.kind == "usage"]
    assert [u["total_tokens"] for u in usage] == [120, 12]
    assert usage[0]["cost"] == 0.5 and usage[0]["model"] == "my-model"


def test_the_participant_is_an_mcp_agent_named_by_as_or_client() -> None:
    assert mcp_participant_name("me", "claude-code", "2.1") == "me"
    assert mcp_participant_name(None, "claude-code", "2.1") == "claude-code/2.1"
    with pytest.raises(ValueError, match="--as NAME"):  # no name: no participant
        mcp_participant_name(None, None, None)


def test_participant_row(tmp_path: Path) -> None:
    q = queue(tmp_path / "s.db")
    q.next_task("claude-code/2.1")
    assert q.participant is not None
    assert (q.participant.kind, q.participant.name) == ("agent", "claude-code/2.1")
    assert q.participant.settings["strategy"] == "mcp"


@pytest.mark.parametrize("protocol", ["workbench", "upstream"])
def test_observations_follow_the_protocol(tmp_path: Path, protocol: str) -> None:
    env = queue(tmp_path / "s.db", protocol=protocol).next_task("agent-x")
    out = env.execute_soql(SQL)
    assert out.startswith("[{'Id'" if protocol == "upstream" else '[{"Id"')


def test_bad_usage_is_refused_with_one_line(tmp_path: Path) -> None:
    env = queue(tmp_path / "s.db").next_task("agent-x")
    with pytest.raises(ValueError, match="prompt_tokens and completion_tokens are integers"):
        env.report_usage(model="m", prompt_tokens="many")  # type: ignore[arg-type]
    assert not [e for e in env.episode.events if e.kind == "usage"]


def test_a_session_resumed_at_its_turn_limit_ends_at_the_next_action(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    first = queue(db, max_turns=2).next_task("agent-x")
    first.execute_soql(SQL)
    first.execute_soql(SQL)  # the limit: ends here
    assert first.finished
    # a log cut between the limit and its submit: two queries, nothing after them
    again = queue(db, max_turns=2).next_task("agent-y")
    again.episode.execute(SQL, actor="agent")
    again.episode.execute(SQL, actor="agent")
    resumed = queue(db, max_turns=2).next_task("agent-y")  # the same session, now at its limit
    assert resumed.session_id == again.session_id
    out = resumed.execute_soql(SQL)
    assert out.startswith("Episode over: the turn limit (2 actions")
    assert resumed.episode.query_count == 2  # the third query was not run


def test_a_chat_stopped_by_the_user_before_its_submit_is_submitted_on_resume(
    tmp_path: Path,
) -> None:
    db = tmp_path / "s.db"
    tasks = [make_task(1, interactive=True), make_task(2)]
    env = queue(db, tasks).next_task("agent-x")
    env.task_brief()
    env.episode.say(AGENT_ID, actor="agent")  # as respond does, then the process dies ...
    while not env.episode.dialogue_over:
        env.episode.say(AGENT_ID, actor="agent")
    assert not env.finished  # ... before the submit
    nxt = queue(db, tasks).next_task("agent-x")
    assert nxt.task_brief().number == 2  # the chat was settled and submitted
    with Store(db) as store:
        chat = store.session(env.session_id)
        assert chat.status == "submitted" and store.grade(chat.id).reward == 1.0


def test_reported_usage_fills_the_exports_cost_columns(tmp_path: Path) -> None:
    from crmarena_tui.cli import main

    db = tmp_path / "s.db"
    env = queue(db).next_task("agent-x")
    env.execute_soql(SQL)
    env.respond(
        AGENT_ID, usage={"model": "m", "prompt_tokens": 900, "completion_tokens": 100, "cost": 0.25}
    )
    out = tmp_path / "all.jsonl"
    assert main(["export", "--format", "jsonl", "--out", str(out), "--db", str(db)]) == 0
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert (row["participant_name"], row["reward"]) == ("agent-x", 1.0)
    assert (row["prompt_tokens"], row["completion_tokens"], row["cost"]) == (900, 100, 0.25)


def test_usage_without_a_cost_is_priced_as_litellm_prices_the_model(tmp_path: Path) -> None:
    env = queue(tmp_path / "s.db").next_task("agent-x")
    env.report_usage(model="gpt-4o-mini", prompt_tokens=1000, completion_tokens=1000)
    env.report_usage(model="no-such-model-anywhere", prompt_tokens=10, completion_tokens=1)
    priced, unknown = [e.payload for e in env.episode.events if e.kind == "usage"]
    assert priced["cost"] is not None and 0 < priced["cost"] < 0.01
    assert unknown["cost"] is None
