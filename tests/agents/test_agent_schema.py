"""Upstream's schema text: under `upstream` the agent is shown the hub's schema rows (or the same
rows saved in a file, `--schema FILE`), formatted as upstream's agents format them; without
either, `run` and `mcp` stop with one line; `--schema builtin` is the recorded departure; every
agent session records its `schema_source`."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from crmarena_tui.agents.agent_schema import (
    AgentSchema,
    SchemaSources,
    SchemaUnavailable,
    described_by,
)
from crmarena_tui.agents.react import ReactAgent
from crmarena_tui.agents.tool_env import ToolEnv
from crmarena_tui.cli import main
from crmarena_tui.orgs.schema import FieldDef, ObjectDef, Schema
from crmarena_tui.orgs.snapshot_infer import NOT_IN_SCHEMA
from crmarena_tui.session.service import SessionService
from crmarena_tui.session.task_queue import TaskQueue
from crmarena_tui.settings.config import load_settings
from crmarena_tui.storage import Store
from crmarena_tui.tasks.loaders import load_tasks
from tests.fakes.scripted_llm import ScriptedLLM, register_script, unregister_script
from tests.orgs.test_org_routing import real_task_file
from tests.support.agents_llm_support import TinyOrg, make_task
from tests.support.snapshot_support import private_org_dir, snapshot_of_demo

# A hub-format schema of the project's own words: one row per object, each `fields` padded with
# null for the fields the other objects have, as the hub's parquet gives them.
FIELDS = {
    "Case": {
        "Subject": "What the customer wrote as the case's title.",
        "Status": "Where the case stands: New, Working or Closed.",
        "OwnerId": "The agent who holds the case (a User Id).",
    },
    "Account": {"Name": "The company's name.", "OwnerId": "The account manager (a User Id)."},
    "Issue__c": {"Name": "A short label for a known product problem."},
}
PADDED_ORDER = ("Name", "OwnerId", "Status", "Subject")  # the hub's struct holds every name once
BLOCK = (
    "\nCase, Account, Issue__c\n"
    "\n## Each object's fields, with their descriptions and dependencies:\n"
    "Case\n"
    "  - OwnerId: The agent who holds the case (a User Id).\n"
    "  - Status: Where the case stands: New, Working or Closed.\n"
    "  - Subject: What the customer wrote as the case's title.\n"
    "Account\n"
    "  - Name: The company's name.\n"
    "  - OwnerId: The account manager (a User Id).\n"
    "Issue__c\n"
    "  - Name: A short label for a known product problem.\n"
)
"""The block upstream's `_build_schema` makes of these rows, byte for byte (after the project's
own heading): names joined by ", ", then each object and its `  - field: description` lines."""


def hub_rows() -> list[dict[str, Any]]:
    return [
        {"object": obj, "fields": {name: fields.get(name) for name in PADDED_ORDER}}
        for obj, fields in FIELDS.items()
    ]


def write_hub_rows(path: Path) -> Path:
    """The rows as a JSON list (.json) or JSON Lines (.jsonl), as `datasets` saves a split."""
    rows = hub_rows()
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    else:
        path.write_text(json.dumps(rows), encoding="utf-8")
    return path


def file_label(path: Path) -> str:
    return f"file:{path.name}@{hashlib.sha256(path.read_bytes()).hexdigest()[:12]}"


class UpstreamOrg(TinyOrg):
    """A stand-in for `upstream:b2b` (the schema source looks at the org's kind only)."""

    kind = "upstream"
    ref = "upstream:b2b"


class Seen:
    """What the agent is shown, recorded by the episode stand-in's callers."""

    def __init__(self, org: Any, protocol: str = "upstream") -> None:
        self.org, self.protocol = org, protocol
        self.task = make_task()
        self.interactive = False


def upstream_prompt(sources: SchemaSources | None, org: Any) -> str:
    agent = ReactAgent(ScriptedLLM([]), schemas=sources)
    agent.protocol = "upstream"
    return agent.system_prompt(Seen(org))


# ---------------------------------------------------------------- the worked example


@pytest.mark.parametrize("name", ["b2b_schema.json", "b2b_schema.jsonl"])
def test_the_prompt_holds_the_rows_of_a_hub_format_file_byte_for_byte(
    tmp_path: Path, name: str
) -> None:
    path = write_hub_rows(tmp_path / name)
    sources = SchemaSources(str(path))
    schema = sources.for_org(UpstreamOrg(), "upstream")
    assert schema.source == file_label(path)
    prompt = upstream_prompt(sources, UpstreamOrg())
    assert BLOCK in prompt
    assert "None" not in prompt.split("Case, Account, Issue__c")[1].split("# Context")[0]
    assert upstream_prompt(None, UpstreamOrg()).count(BLOCK) == 0  # the org's own describe


def test_workbench_and_the_demo_orgs_keep_the_projects_descriptions(tmp_path: Path) -> None:
    sources = SchemaSources("hub")  # never loaded: the hub is not asked
    assert sources.for_org(UpstreamOrg(), "workbench") == AgentSchema("project")
    assert sources.for_org(TinyOrg(), "upstream") == AgentSchema("project")  # not upstream's org
    assert SchemaSources("builtin").for_org(UpstreamOrg(), "upstream") == AgentSchema("builtin")
    assert upstream_prompt(SchemaSources("builtin"), UpstreamOrg()) == upstream_prompt(
        None, UpstreamOrg()
    )


def test_the_original_crmarena_reads_its_own_dataset() -> None:
    from crmarena_tui.agents.agent_schema import unavailable_message
    from crmarena_tui.tasks.loaders import schema_dataset

    assert schema_dataset("original_schema") == ("Salesforce/CRMArena", "schema", "test")
    assert schema_dataset("b2c_schema") == ("Salesforce/CRMArenaPro", "b2c_schema", "b2c_schema")
    assert "the hub's Salesforce/CRMArena schema rows" in unavailable_message("original", "x")


def test_a_bad_schema_file_is_named_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "schema.json"
    bad.write_text(json.dumps([{"object": "Case", "fields": "Subject"}]))
    for path, words in ((bad, "'fields' is not an object"), (tmp_path / "no.json", "no such")):
        with pytest.raises(SchemaUnavailable) as refused:
            SchemaSources(str(path)).for_org(UpstreamOrg(), "upstream")
        assert words in str(refused.value) and "\n" not in str(refused.value)


# ---------------------------------------------------------------- describe_object


def test_a_column_the_rows_describe_is_described_in_their_words() -> None:
    unknown = f"{NOT_IN_SCHEMA} (type read from its values: string)"
    case = ObjectDef(
        "Case",
        "500",
        "Case",
        "",
        [FieldDef("Id", "id", "Case Id"), FieldDef("OwnerId", "string", unknown)],
    )
    extra = ObjectDef("Issue__c", "a01", "Issue__c", f"{NOT_IN_SCHEMA} (a table)", [])
    schema = Schema({"Case": case, "Issue__c": extra})
    rows = [{"object": "case", "fields": {"ownerid": "The agent who holds the case."}}]
    described = described_by(schema, rows + [{"object": "Issue__c", "fields": {}}])
    fields = {f.name: f.description for f in described.objects["Case"].fields}
    assert fields == {"Id": "Case Id", "OwnerId": "The agent who holds the case."}
    assert described.objects["Issue__c"].description == ""
    assert schema.objects["Case"].fields[1].description == unknown  # the org's own is untouched


# ---------------------------------------------------------------- run and mcp, as a user would


def _import_upstream_b2b(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`upstream:b2b` on this machine (a snapshot of the demo org, imported as `org fetch` would)
    and a file of real-looking b2b tasks whose answers it holds."""
    private_org_dir(monkeypatch, tmp_path / "orgs")
    snap = snapshot_of_demo(tmp_path / "dl", "b2b")
    assert main(["org", "import", str(snap), "--today", "2025-11-03", "--quiet"]) == 0
    return real_task_file(tmp_path / "real_b2b.json", "handle_time", 1)


@pytest.fixture
def watched():
    """A scripted model that answers at once and keeps every system prompt it is shown."""
    prompts: list[str] = []

    def responder(messages: list[dict[str, Any]], tools: Any) -> str:
        prompts.append(next(m["content"] for m in messages if m["role"] == "system"))
        return "<thought>Done.</thought>\n<respond>005Wt000003NIqLIAW</respond>"

    register_script("schema-watch", lambda: responder)
    yield prompts
    unregister_script("schema-watch")


@pytest.mark.slow
def test_run_on_upstreams_org_stops_offline_then_runs_with_a_schema_file(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    watched: list[str],
) -> None:
    tasks = _import_upstream_b2b(tmp_path, monkeypatch)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # no hub, and the HF cache is empty (conftest)
    db = tmp_path / "s.db"
    base = ["run", "--agent", "scripted/schema-watch", "--protocol", "upstream", "--db", str(db)]
    base += ["--tasks", str(tasks), "--format", "json"]
    capsys.readouterr()
    assert main(base) == 1
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert (
        "--schema FILE" in lines[0]
        and "the hub's Salesforce/CRMArenaPro b2b_schema rows" in lines[0]
    )
    assert "HF_HUB_OFFLINE" in lines[0] and "--schema builtin" in lines[0]
    assert not db.exists() and not watched

    path = write_hub_rows(tmp_path / "b2b_schema.json")
    assert main([*base, "--schema", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["outcomes"] == {"submitted": 1}
    assert len(watched) == 1 and BLOCK in watched[0]
    assert main([*base, "--schema", "builtin"]) == 0  # another source: a new attempt
    assert json.loads(capsys.readouterr().out)["outcomes"] == {"submitted": 1}
    assert BLOCK not in watched[1]
    monkeypatch.setenv("CRMARENA_TUI_SCHEMA", str(path))  # the setting: the first run's again
    assert main(base) == 0
    assert json.loads(capsys.readouterr().out)["outcomes"] == {"skipped": 1}
    with Store(db) as store:
        recorded = [s.settings["schema_source"] for s in store.sessions()]
    assert sorted(recorded) == sorted([file_label(path), "builtin"])


@pytest.mark.slow
def test_mcp_stops_the_same_way_and_serves_the_rows_with_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks = _import_upstream_b2b(tmp_path, monkeypatch)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    capsys.readouterr()
    assert main(["mcp", "--tasks", str(tasks), "--protocol", "upstream"]) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--schema FILE" in err

    path = write_hub_rows(tmp_path / "b2b_schema.jsonl")
    service = SessionService(load_settings(protocol="upstream", schema=str(path)))
    with Store(tmp_path / "s.db") as store:
        queue = TaskQueue(store, load_tasks(str(tasks)), service)
        try:
            env = queue.next_task("my-agent")
            assert isinstance(env, ToolEnv)
            assert BLOCK in env.task_brief().system_prompt
            case = json.loads(env.describe_object("Case"))
            words = {f["name"]: f["description"] for f in case["fields"]}
            assert words["Subject"] == FIELDS["Case"]["Subject"]
            assert store.session(env.session_id).settings["schema_source"] == file_label(path)
        finally:
            queue.close()


def test_a_schema_file_is_one_orgs_rows(tmp_path: Path, capsys, watched: list[str]) -> None:
    path = write_hub_rows(tmp_path / "b2b_schema.json")
    rows = [make_task(1).row(), {**make_task(2).row(), "org_type": "b2c"}]
    tasks = tmp_path / "mixed.json"
    tasks.write_text(json.dumps(rows))
    args = ["run", "--agent", "scripted/schema-watch", "--tasks", str(tasks), "--schema", str(path)]
    assert main([*args, "--db", str(tmp_path / "s.db")]) == 2
    assert "2 org types (b2b, b2c)" in capsys.readouterr().err


# ---------------------------------------------------------------- the hub, through datasets

SCHEMA_CARD = b"""---
configs:
- config_name: b2b_schema
  data_files:
  - split: b2b_schema
    path: b2b_schema/b2b_schema-00000-of-00001.parquet
---
# CRMArena-Pro's b2b schema rows (the project's own words, served from loopback)
"""

LOAD_FROM_HUB = """
import json
from crmarena_tui.agents.agent_schema import SchemaSources
from crmarena_tui.agents.prompts_upstream import schema_text
from crmarena_tui.orgs.schema import Schema
org = type("Org", (), {"kind": "upstream", "org_type": "b2b", "describe": lambda self: Schema()})()
schema = SchemaSources("hub").for_org(org, "upstream")
print(json.dumps({"source": schema.source, "block": schema_text(list(schema.rows))}))
"""


@pytest.mark.slow
def test_the_hub_rows_load_through_datasets_then_from_its_cache(tmp_path: Path) -> None:
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    from tests.fakes.hub_server import FakeHub

    out = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(hub_rows()), out)
    files = {
        "README.md": SCHEMA_CARD,
        "b2b_schema/b2b_schema-00000-of-00001.parquet": out.getvalue(),
    }
    env = {k: v for k, v in os.environ.items() if "PROXY" not in k.upper()}
    env.pop("HF_HUB_OFFLINE", None)
    env.pop("HF_DATASETS_OFFLINE", None)
    env.update(HF_HOME=str(tmp_path / "hf"), HF_DATASETS_CACHE=str(tmp_path / "hf" / "datasets"))

    def load() -> dict[str, str]:
        done = subprocess.run(
            [sys.executable, "-c", LOAD_FROM_HUB], env=env, capture_output=True, text=True,
            timeout=240,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    with FakeHub("Salesforce/CRMArenaPro", files) as hub:
        env["HF_ENDPOINT"] = hub.endpoint
        online = load()
    assert online["source"] == "hub:Salesforce/CRMArenaPro/b2b_schema"
    assert BLOCK.strip() in online["block"]
    assert load() == online  # the loopback hub is gone: datasets' cache serves the same rows


# ---------------------------------------------------------------- recorded and keyed


def test_agent_sessions_record_their_source_and_old_ones_still_resume(tmp_path: Path) -> None:
    """Every agent session records `schema_source` (and, as every session, `prompt_source`);
    `project` (the org's own text) and `paraphrased` key as sessions did before the keys were
    recorded, so an earlier run of a database resumes."""
    from crmarena_tui.session.episode_log import recorded, resume_key
    from tests.support.spec_support import session_spec

    service = SessionService(load_settings(protocol="workbench"))
    with Store(tmp_path / "s.db") as store:
        agent = store.participant("agent", "m", model="m", settings={})
        human = store.participant("human", "ann")
    spec = service.spec(make_task(), TinyOrg(), agent, settings={"strategy": "react"})
    assert spec.settings == {
        "strategy": "react",
        "schema_source": "project",
        "prompt_source": "paraphrased",
    }
    humans = service.spec(make_task(), TinyOrg(), human).settings
    assert "schema_source" not in humans and humans["prompt_source"] == "paraphrased"
    before = session_spec(agent, make_task(), settings={"strategy": "react"})
    key = resume_key(recorded(before))
    assert resume_key(recorded(replace(before, settings=spec.settings))) == key
    builtin = {"strategy": "react", "schema_source": "builtin"}
    assert resume_key(recorded(replace(before, settings=builtin))) != key
    checkout = {**spec.settings, "prompt_source": "upstream@" + "0" * 40}
    assert resume_key(recorded(replace(before, settings=checkout))) != key


def test_schema_under_workbench_is_noted_as_having_no_effect(tmp_path: Path, capsys) -> None:
    from crmarena_tui.commands.common import check_schema_file
    from crmarena_tui.errors import UserError

    path = write_hub_rows(tmp_path / "b2b_schema.json")
    service = SessionService(load_settings(protocol="workbench", schema=str(path)))
    mixed = [make_task(1), make_task(2).model_copy(update={"org_type": "b2c"})]
    check_schema_file(service, mixed, "workbench", str(path))  # (not refused)
    assert "--schema applies under --protocol upstream only" in capsys.readouterr().err
    with pytest.raises(UserError, match="holds one org's schema rows"):
        check_schema_file(service, mixed, "upstream")
    assert capsys.readouterr().err == ""
