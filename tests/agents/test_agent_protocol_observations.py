"""What an agent writes and sees under the `upstream` protocol: the tags, the statements, the
observations and the model requests, as worked examples of upstream's code
(crm_sandbox/agents/chat_agent.py, crm_sandbox/env/connect_sandbox.py, simple-salesforce 1.12.6),
with the `workbench` contrast where they differ."""

from __future__ import annotations

import json
import sys
from collections import OrderedDict
from pathlib import Path

import pytest

from crmarena_tui.agents import prompts_upstream, upstream
from crmarena_tui.agents.react import ReactAgent, parse_reply, parse_upstream_reply
from crmarena_tui.orgs.base import QueryResult
from crmarena_tui.orgs.observation_text import ConnectorCrash, upstream_observation
from crmarena_tui.session.episode import Episode
from crmarena_tui.storage import Store
from crmarena_tui.storage.models import SessionSpec
from tests.fakes.scripted_llm import ScriptedLLM
from tests.support.agents_llm_support import AGENT_ID, TinyOrg, make_task, react

URL = "/services/data/v62.0/sobjects/"


def record(type_name: str, record_id: str, **fields) -> dict:
    return {"attributes": {"type": type_name, "url": f"{URL}{type_name}/{record_id}"}, **fields}


CASES = [
    record(
        "Case",
        "500A",
        Id="500A",
        Subject="Broken hinge",
        ClosedDate=None,
        Priority=None,
        Account=record("Account", "001A", Name="Acme"),
        Emails={
            "totalSize": 1,
            "done": True,
            "records": [record("EmailMessage", "02sA", Id="02sA")],
        },
    ),
    record(
        "Case",
        "500B",
        Id="500B",
        Subject="Late delivery",
        ClosedDate=None,
        Priority="High",
        Account=None,
        Emails=None,
    ),
]


# -- the observation ----------------------------------------------------------------------------


def test_the_observation_is_the_repr_upstream_printed() -> None:
    shown = upstream_observation(QueryResult(records=CASES, total_size=2))
    assert shown == (
        "[{'Id': '500A', 'Subject': 'Broken hinge', 'Priority': None, 'Account': "
        "OrderedDict([('attributes', OrderedDict([('type', 'Account'), "
        "('url', '/services/data/v59.0/sobjects/Account/001A')])), ('Name', 'Acme')]), "
        "'Emails': OrderedDict([('totalSize', 1), ('done', True), ('records', "
        "[OrderedDict([('attributes', OrderedDict([('type', 'EmailMessage'), "
        "('url', '/services/data/v59.0/sobjects/EmailMessage/02sA')])), ('Id', '02sA')])])])}, "
        "{'Id': '500B', 'Subject': 'Late delivery', 'Priority': 'High', 'Account': None, "
        "'Emails': None}]"
    )


def test_workbench_shows_json_without_attributes() -> None:
    shown = json.loads(QueryResult(records=CASES, total_size=2).observation())
    assert shown[0]["Account"] == {"Name": "Acme"} and shown[0]["Emails"] == [{"Id": "02sA"}]


@pytest.mark.skipif(
    sys.version_info >= (3, 12), reason="OrderedDict prints as upstream saw it only before 3.12"
)
def test_the_observation_matches_what_upstreams_connector_built() -> None:
    """Differential: the records decoded as simple-salesforce 1.12.6 decodes them
    (object_pairs_hook=OrderedDict), then shaped the way upstream's connector shapes them."""
    body = json.dumps(CASES).replace("v62.0", "v59.0")
    data = json.loads(body, object_pairs_hook=OrderedDict)
    keys = data[0].keys()
    for row in data:
        row.pop("attributes", None)
    null = [k for k in keys if all(r[k] is None for r in data)]
    expected = str([{k: v for k, v in r.items() if k not in null} for r in data])
    assert upstream_observation(QueryResult(records=CASES, total_size=2)) == expected


def test_only_the_first_records_keys_are_dropped_when_null_everywhere() -> None:
    rows = [{"Id": "1", "A": None}, {"Id": "2", "A": None, "B": None}]
    shown = upstream_observation(QueryResult(records=rows, kind="search"))
    assert shown == "[{'Id': '1'}, {'Id': '2', 'B': None}]"


def test_a_search_whose_records_differ_crashed_upstreams_connector() -> None:
    rows = [{"Id": "001A", "Name": "Acme"}, {"Id": "003A", "FirstName": "Dana"}]
    with pytest.raises(ConnectorCrash, match="KeyError: 'Name'"):
        upstream_observation(QueryResult(records=rows, kind="search"))


def test_count_shows_an_empty_list_and_errors_show_code_and_message() -> None:
    count = QueryResult(records=[], total_size=42, count_only=True)
    assert upstream_observation(count) == "[]"
    assert json.loads(count.observation()) == [{"count": 42}]  # workbench shows the count
    error = QueryResult(error="MALFORMED_QUERY: unexpected token: FROM")
    assert upstream_observation(error) == "MALFORMED_QUERY: unexpected token: FROM"


def test_aggregate_rows_lose_their_attributes() -> None:
    rows = [{"attributes": {"type": "AggregateResult"}, "expr0": 12.5}]
    assert upstream_observation(QueryResult(records=rows)) == "[{'expr0': 12.5}]"


# -- the tags ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        # <execute> is looked for first, anywhere: a respond written before it loses
        ("<respond>Ann</respond> then <execute>SELECT Id FROM User</execute>", "execute"),
        # closing tags are required
        ("<thought>x</thought><respond>005Wt000003NIqLIAW", None),
        # tags are case-sensitive
        ("<Thought>x</Thought><RESPOND>Ann</RESPOND>", None),
        # a blank execute counts as none, so the respond is taken
        ("<execute>  </execute><respond>Ann</respond>", "respond"),
    ],
)
def test_upstream_reads_the_action_as_upstream_does(reply: str, expected: str | None) -> None:
    assert parse_upstream_reply(reply).action == expected


def test_workbench_reads_the_same_replies_leniently() -> None:
    first = parse_reply("<respond>Ann</respond> then <execute>SELECT Id FROM User</execute>")
    assert first.action == "respond"  # the first action wins
    assert parse_reply("<thought>x</thought><respond>005Wt000003NIqLIAW").action == "respond"
    assert parse_reply("<RESPOND>Ann</RESPOND>").action == "respond"


# -- the statement -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("FIND {Acme} RETURNING Account(Name)", ("search", "FIND {Acme} RETURNING Account(Name)")),
        ("find {Acme} RETURNING Account", ("query", "find {Acme} RETURNING Account")),
        ("```sql\nSELECT Id,\n   Name\nFROM User\n```", ("query", "SELECT Id, Name FROM User")),
        ("Run this: ```SELECT  Id FROM User``` please", ("query", "SELECT Id FROM User")),
        ("```\nFIND {Acme}\n```", ("query", "FIND {Acme}")),  # a fenced search is sent as SOQL
        ("SELECT Id\n FROM User", ("query", "SELECT Id\n FROM User")),  # no fence: untouched
    ],
)
def test_statements_go_where_upstream_sent_them(content: str, expected: tuple) -> None:
    assert upstream.statement(content) == expected


def test_the_agent_sends_the_statement_to_that_endpoint(tmp_path: Path) -> None:
    org = TinyOrg()
    llm = ScriptedLLM(
        [
            react("s", "execute", "find {Ann} RETURNING User"),
            react("q", "execute", "```soql\nSELECT Id\nFROM User\n```"),
            react("a", "respond", AGENT_ID),
        ]
    )
    agent = ReactAgent(llm)
    with Store(tmp_path / "s.db") as store:
        me = store.participant("agent", agent.name)
        episode = Episode.start(store, SessionSpec(make_task(), org, me, protocol="upstream"))
        steps = list(agent.steps(episode))
        kinds = [e.kind for e in episode.events if e.kind in ("query", "search")]
    assert kinds == ["query", "query"] and org.queries[1] == "SELECT Id FROM User"
    assert steps[0].observation == steps[1].observation  # TinyOrg answers any query the same
    assert llm.calls[1][-1]["content"].startswith("Salesforce instance output: [{'Id': '005")


# -- the model request and the prompt -----------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "max_tokens", "temperature", "merged"),
    [
        ("openai/gpt-4o-2024-08-06", 2000, True, False),
        ("openai/o1-2024-12-17", 50_000, False, True),
        ("o3-mini-2025-01-31", 50_000, False, True),
        ("together_ai/deepseek-ai/DeepSeek-R1", 50_000, False, True),
        ("vertex_ai/gemini-2.5-flash-preview-04-17", 50_000, True, True),
        ("vertex_ai/gemini-2.5-pro-preview-03-25", 50_000, True, False),
        ("anthropic/claude-3-5-haiku-latest", 2000, True, False),
    ],
)
def test_model_rules(model: str, max_tokens: int, temperature: bool, merged: bool) -> None:
    rules = upstream.model_rules(model)
    assert rules.options.max_tokens == max_tokens
    assert rules.options.send_temperature is temperature
    assert rules.merge_system is merged


def test_an_o1_agent_gets_one_user_message_and_no_temperature(tmp_path: Path) -> None:
    llm = ScriptedLLM([react("a", "respond", AGENT_ID)], model="openai/o1-2024-12-17")
    agent = ReactAgent(llm)
    with Store(tmp_path / "s.db") as store:
        me = store.participant("agent", agent.name)
        episode = Episode.start(store, SessionSpec(make_task(), TinyOrg(), me, protocol="upstream"))
        list(agent.steps(episode))
    (message,) = llm.calls[0]
    assert message["role"] == "user" and message["content"].endswith("\n\n" + make_task().query)
    assert "# Context for this task" in message["content"]
    options = llm.options_seen[0]
    assert options.max_tokens == 50_000 and not options.send_temperature


def test_the_request_carries_the_token_cap_and_drops_the_temperature_over_http() -> None:
    from crmarena_tui.llm.client import LLMClient
    from tests.fakes.openai_server import FakeOpenAIServer, Reply

    with FakeOpenAIServer() as server:
        server.enqueue(Reply.chat("<respond>x</respond>"))
        server.enqueue(Reply.chat("<respond>x</respond>"))
        client = LLMClient("openai/o1-2024-12-17", api_base=server.base_url, max_retries=0)
        client.complete(
            [{"role": "user", "content": "hi"}], options=upstream.model_rules("o1").options
        )
        plain = LLMClient("openai/gpt-4o", api_base=server.base_url, max_retries=0)
        plain.complete(
            [{"role": "user", "content": "hi"}], options=upstream.model_rules("gpt-4o").options
        )
        o1, gpt = server.requests
    assert "temperature" not in o1 and 50_000 in (
        o1.get("max_tokens"),
        o1.get("max_completion_tokens"),
    )
    assert gpt["temperature"] == 0.0 and gpt["max_tokens"] == 2000


def test_privacy_rules_only_for_customer_facing_types() -> None:
    external = make_task(task="knowledge_qa", metric="fuzzy_match")
    internal = make_task(task="handle_time")
    marker = "# Privacy and confidentiality"
    assert marker in prompts_upstream.system_prompt(external, [], privacy_aware=True)
    assert marker not in prompts_upstream.system_prompt(internal, [], privacy_aware=True)
    assert marker not in prompts_upstream.system_prompt(external, [], privacy_aware=False)
    assert "customers" in prompts_upstream.system_prompt(external, [])
    assert "employee" in prompts_upstream.system_prompt(internal, [])


def test_the_prompt_holds_the_schema_context_and_in_aided_mode_the_details() -> None:
    rows = [{"object": "Case", "fields": {"Subject": "what it is about", "OwnerId": "the agent"}}]
    task = make_task()
    plain = prompts_upstream.system_prompt(task, rows)
    assert "Case\n  - Subject: what it is about\n  - OwnerId: the agent" in plain
    assert plain.index("Case\n  - Subject") < plain.index("Today's date: 2024-05-01")
    assert "ONLY the answer" in plain and "Q1 runs" not in plain
    assert plain.endswith("\n\n# Domain Details\nQ1 runs from January 1 to March 31.") is False
    aided = prompts_upstream.system_prompt(task, rows, aided=True)
    assert aided.endswith("\n# Domain Details\nQ1 runs from January 1 to March 31.")
    chat = prompts_upstream.system_prompt(task, rows, interactive=True)
    assert "ONLY the answer" not in chat and "ask them with a respond action" in chat


def test_the_worked_examples_teach_what_upstreams_teach() -> None:
    # Upstream's three examples (crm_sandbox/agents/prompts.py): a `SELECT COUNT()` answered with
    # the number OR a full sentence, a SOSL search answered with the fields (single-turn: name
    # and phone; multi-turn: the phone) OR a sentence, and records answered comma-separated.
    import re

    task = make_task()
    for interactive in (False, True):
        prompt = prompts_upstream.system_prompt(task, [], interactive=interactive)
        examples = prompt[prompt.index("# Example 1") : prompt.index("# The Salesforce instance")]
        assert "<execute> SELECT COUNT() FROM " in examples
        assert "<execute> FIND {" in examples and "{{" not in examples
        responds = re.findall(r"<respond> (.*?) </respond>", examples)
        assert responds[0] == "42" and responds[1].endswith(".") and " 42 " in responds[1]
        fields = "555-0100" if interactive else "Northwind, 555-0100"
        assert responds[2] == fields and len(responds[3].split()) > 4  # the fields, or a sentence
        assert responds[4] == "Laser One, Ink Pro"  # comma-separated
        assert examples.count(" OR <respond>") == 2
