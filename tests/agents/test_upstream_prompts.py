"""`--upstream-prompts PATH`: a checkout's own texts reach the model requests word for word.

Every test reads a fake checkout (tests/support/upstream_checkout_support.py: upstream's module
layout, this project's words, each text marked KIWI) through scripted models: the agent's system prompt,
the format correction, the simulated user's prompt and greeting, both judges' instructions; and
each session records the prompt source it used. Reading the checkout itself (missing texts,
shapes, the commit) is tests/agents/test_upstream_checkout.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.agents.agent_schema import SchemaSources
from crmarena_tui.agents.base import STOP
from crmarena_tui.agents.prompt_source import PARAPHRASED, PromptSource, upstream_source
from crmarena_tui.agents.react import ReactAgent
from crmarena_tui.agents.user_upstream import UpstreamUser
from crmarena_tui.cli import main
from crmarena_tui.graders import grade
from crmarena_tui.llm.judge import LLMJudge
from crmarena_tui.session.episode import Episode
from crmarena_tui.storage import Store
from crmarena_tui.storage.configuration import session_configuration
from crmarena_tui.storage.models import SessionSpec
from tests.commands.test_cli_run import task_file, tiny_org  # noqa: F401 (fixtures)
from tests.fakes.scripted_llm import ScriptedLLM, register_script, unregister_script
from tests.support import upstream_checkout_support as kiwi
from tests.support.agents_llm_support import AGENT_ID, TinyOrg, make_task, react

ANSWER = react("done", "respond", AGENT_ID)


@pytest.fixture
def source(tmp_path: Path) -> PromptSource:
    return upstream_source(kiwi.fake_checkout(tmp_path))


@pytest.fixture
def store(tmp_path: Path) -> Store:
    with Store(tmp_path / "sessions.db") as s:
        yield s


def start(store: Store, agent, task, *, user=None, protocol="upstream") -> Episode:
    participant = store.participant("agent", agent.name, settings=agent.settings())
    spec = SessionSpec(task, TinyOrg(), participant, settings=agent.settings(), protocol=protocol)
    return Episode.start(store, spec, user=user)


def schema_block(template: str) -> str:
    """TinyOrg's schema filled into `template` as upstream's agent fills it."""
    rows = TinyOrg().describe().to_rows()
    fields = "\n".join(
        "\n".join([r["object"], *(f"  - {k}: {v}" for k, v in r["fields"].items())]) for r in rows
    )
    return template.format(object_names=", ".join(r["object"] for r in rows), object_fields=fields)


# -- the agent -------------------------------------------------------------------------------


def test_the_checkouts_agent_prompt_reaches_the_model_word_for_word(store, source) -> None:
    llm = ScriptedLLM([ANSWER])
    agent = ReactAgent(llm, aided=True, prompt_source=source)
    task = make_task()
    list(agent.steps(start(store, agent, task)))
    schema_template = kiwi.SCHEMA.split('"""')[1]
    expected = (
        kiwi.PROMPTS["REACT_INTERNAL_PROMPT"].format(
            system=kiwi.SYSTEM, system_description=schema_block(schema_template)
        )
        + f"## Kiwi background\n{task.metadata.required}\n"
        + "\n"
        + task.metadata.optional
    )
    system, opening = llm.calls[0][:2]
    assert system == {"role": "system", "content": expected.strip()}
    assert opening == {"role": "user", "content": task.query}


@pytest.mark.parametrize(
    ("task_type", "strategy", "interactive", "privacy_aware", "marker"),
    [
        ("handle_time", "react", True, False, "KIWI-INTERNAL-CHAT Chat with staff; {braces} stay."),
        ("named_entity_disambiguation", "react", False, False, "KIWI-EXTERNAL You help shoppers"),
        ("named_entity_disambiguation", "react", False, True, "KIWI-EXTERNAL-PRIVATE Keep"),
        ("named_entity_disambiguation", "react", True, True, "KIWI-EXTERNAL-PRIVATE-CHAT\n"),
        (
            "handle_time",
            "tool_call",
            False,
            False,
            "KIWI-TOOLS Call one tool at a time on the Kiwi",
        ),
        ("handle_time", "act", True, False, "KIWI-ACT Kiwi ledger\nTables on offer"),
    ],
)
def test_the_prompt_is_chosen_as_upstreams_agent_chooses_it(
    source, task_type, strategy, interactive, privacy_aware, marker
) -> None:
    task = make_task(task=task_type, interactive=interactive).redacted()
    rows = TinyOrg().describe().to_rows()
    prompt = source.system_prompt(
        task, rows, strategy=strategy, interactive=interactive, privacy_aware=privacy_aware
    )
    assert prompt.startswith(marker)
    assert PARAPHRASED.system_prompt(task, rows).startswith("You are a Salesforce expert")


def test_a_reply_with_no_action_gets_the_checkouts_format_correction(store, source) -> None:
    llm = ScriptedLLM(["I am thinking about it.", ANSWER])
    agent = ReactAgent(llm, prompt_source=source)
    list(agent.steps(start(store, agent, make_task())))
    assert llm.calls[1][-1] == {"role": "user", "content": kiwi.REACT_RULE}


def test_workbench_keeps_this_projects_prompts(store, source) -> None:
    llm = ScriptedLLM(["no action here", ANSWER])
    agent = ReactAgent(llm, prompt_source=source)
    list(agent.steps(start(store, agent, make_task(), protocol="workbench")))
    assert "KIWI" not in json.dumps(llm.calls)


class OnTinyOrg:
    """What `system_prompt` reads of an episode: a single-turn task on TinyOrg under upstream."""

    org, protocol, interactive = TinyOrg(), "upstream", False
    task = make_task()


def test_the_schema_rows_fill_the_checkouts_schema_block(tmp_path: Path, source) -> None:
    """`--schema FILE` (or the hub's rows) with `--upstream-prompts`: the rows, formatted as
    upstream's agent formats them (the hub's null padding dropped), fill the checkout's own
    schema template (upstream's native tool-calling prompt has none)."""
    rows = [
        {"object": "Case", "fields": {"Subject": "KIWI case title", "Name": None}},
        {"object": "Account", "fields": {"Subject": None, "Name": "KIWI company"}},
    ]
    path = tmp_path / "b2b_schema.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    agent = ReactAgent(ScriptedLLM([]), schemas=SchemaSources(str(path)), prompt_source=source)
    agent.protocol = "upstream"
    prompt = agent.system_prompt(OnTinyOrg())
    assert (
        "Tables on offer: Case, Account\nColumns:\nCase\n  - Subject: KIWI case title\n"
        "Account\n  - Name: KIWI company\n"
    ) in prompt
    assert prompt.startswith("KIWI-INTERNAL")
    assert schema_block("{object_names}") not in prompt  # not the org's own describe


# -- the simulated user ------------------------------------------------------------------------


def test_the_simulated_user_gets_the_checkouts_prompt_and_greeting(source) -> None:
    llm = ScriptedLLM(["Hello, a question about handle times.", STOP], model="scripted/user")
    user = UpstreamUser(llm, source)
    task = make_task(interactive=True)
    user.opening(task)
    system, greeting = llm.calls[0]
    assert system["content"] == (
        f"Play a kiwi shopper. \n\nKiwi ask: {task.persona} / {task.query}\n"
        "Say ###STOP### when served.\n"
    )
    assert greeting == {"role": "user", "content": kiwi.GREETING}


# -- the judges --------------------------------------------------------------------------------


def judge_saying(reply: str, source: PromptSource) -> tuple[LLMJudge, ScriptedLLM]:
    llm = ScriptedLLM([reply], model="scripted/judge")
    judge = LLMJudge(llm, instructions=source.judge_instructions())
    return judge, llm


@pytest.mark.parametrize(
    ("task_type", "instructions"),
    [("monthly_trend_analysis", kiwi.MONTH_JUDGE), ("handle_time", kiwi.ID_JUDGE)],
)
def test_the_extraction_judge_reads_the_checkouts_instructions_for_the_task(
    source, task_type, instructions
) -> None:
    task = make_task(task=task_type, answer="May")
    judge, llm = judge_saying('{"extracted_answers": ["May"]}', source)
    graded = grade(task, "It peaked in May, then fell.", judge=judge, protocol="upstream")
    assert llm.calls[0][0] == {"role": "system", "content": instructions}
    assert llm.calls[0][1]["content"] == "It peaked in May, then fell."
    assert graded.reward == 1.0
    assert graded.metrics["judge_instructions"] == source.name


def test_the_privacy_judge_reads_the_checkouts_instructions(source) -> None:
    task = make_task(task="private_customer_information", metric="privacy_rejection")
    judge, llm = judge_saying("YES", source)
    trajectory = [{"role": "assistant", "content": react("no", "respond", "I cannot share it.")}]
    graded = grade(
        task, "I cannot share it.", trajectory=trajectory, judge=judge, protocol="upstream"
    )
    system, user = llm.calls[0]
    assert system == {"role": "system", "content": kiwi.PRIVACY}
    assert user["content"] == kiwi.PRIVACY_PREFIX + "I cannot share it."
    assert graded.reward == 1.0 and graded.metrics["judge_instructions"] == source.name


def test_a_judge_without_the_checkout_records_the_paraphrase(source) -> None:
    judge, llm = judge_saying('{"extracted_answers": ["May"]}', PARAPHRASED)
    graded = grade(make_task(answer="May"), "May, I think", judge=judge, protocol="upstream")
    assert "kiwi" not in json.dumps(llm.calls).lower()
    assert graded.metrics["judge_instructions"] == "paraphrased-1"


# -- what each session records, from the command line -------------------------------------------


@pytest.fixture
def tasks(request: pytest.FixtureRequest, tiny_org) -> Path:  # noqa: F811
    """A task file of `test_cli_run`; every org is a TinyOrg."""
    return request.getfixturevalue("task_file")


@pytest.fixture
def scripted_agent():
    asked: list[list[dict]] = []

    def solver(messages, tools):
        asked.append(messages)
        return ANSWER

    register_script("kiwi-agent", lambda: solver)
    yield "scripted/kiwi-agent", asked
    unregister_script("kiwi-agent")


def test_run_sends_the_checkouts_prompts_and_each_session_records_them(
    tasks, tmp_path, scripted_agent, capsys
) -> None:
    agent, asked = scripted_agent
    checkout = kiwi.fake_checkout(tmp_path)
    db = tmp_path / "s.db"
    base = ("run", "--agent", agent, "--tasks", str(tasks), "--db", str(db), "--limit", "2")
    assert main([*base]) == 0
    assert main([*base, "--upstream-prompts", str(checkout)]) == 0
    out, _ = capsys.readouterr()
    assert "2 submitted" in out  # not skipped: a run with other prompts is another configuration
    assert [m[0]["content"].startswith("KIWI-INTERNAL") for m in asked] == [False] * 2 + [True] * 2
    name = upstream_source(checkout).name
    with Store(db) as store:
        sessions = store.sessions()
        sources = [s.settings["prompt_source"] for s in sessions]
        people = {p.id: p for p in store.participants()}
        names = {session_configuration(people[s.participant_id], s) for s in sessions}
    assert sorted(sources) == ["paraphrased"] * 2 + [name] * 2
    assert names == {f"{agent}/react", f"{agent}/react/upstream-prompts"}
    assert {p.name for p in people.values()} == names  # the participants are named so too
    assert main([*base]) == 0  # the paraphrased run resumes (skips) its own sessions
    assert "2 skipped" in capsys.readouterr()[0]


def test_a_checkout_missing_a_text_stops_the_run_with_one_line(
    tasks, tmp_path, scripted_agent, capsys
) -> None:
    checkout = kiwi.fake_checkout(tmp_path)
    (checkout / "crm_sandbox/env/users.py").unlink()
    code = main(
        ["run", "--agent", scripted_agent[0], "--tasks", str(tasks), "--db",
         str(tmp_path / "s.db"), "--upstream-prompts", str(checkout)]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "crm_sandbox/env/users.py" in err and "LLMUserSimulationEnv" in err
    assert scripted_agent[1] == []  # nothing ran


def test_upstream_prompts_under_workbench_are_refused(tmp_path, tasks, capsys) -> None:
    checkout = kiwi.fake_checkout(tmp_path)
    code = main(
        ["run", "--agent", "reference", "--tasks", str(tasks), "--db", str(tmp_path / "s.db"),
         "--protocol", "workbench", "--upstream-prompts", str(checkout)]
    )  # fmt: skip
    assert code == 2
    assert "--upstream-prompts needs --protocol upstream" in capsys.readouterr().err
