"""One query, one of each (issue 39): the statement is routed once (a code fence unwrapped, SOQL
or SOSL decided: `orgs.base.route`), and what the participant is shown is built once, by the
Episode, and returned as it was stored (`QueryResult.shown`): for a human, a model agent's loop
(`TurnRules.execute`) and an MCP tool's paged view (`ResultPages.view`) alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.agents.replay import LoopState
from crmarena_tui.agents.result_pages import ResultPages
from crmarena_tui.agents.turn_rules import TurnRules
from crmarena_tui.orgs import base, observation_text
from crmarena_tui.orgs.base import QueryResult
from crmarena_tui.orgs.local import LocalOrg
from crmarena_tui.session.episode import Episode
from crmarena_tui.storage import Store
from crmarena_tui.storage.models import SessionSpec
from tests.agents.test_tool_env import queue
from tests.support.agents_llm_support import TinyOrg, make_task
from tests.support.soql_fixture_support import build_fixture_org

SQL = "SELECT Id, Name FROM User"


def _episode(tmp_path: Path, org, *, agent: bool = False, protocol: str = "workbench") -> Episode:
    store = Store(tmp_path / "s.db")
    who = (
        store.participant("agent", "probe", model="m") if agent else store.participant("human", "a")
    )
    return Episode.start(store, SessionSpec(make_task(1), org, who, protocol=protocol))


def _stored(episode: Episode) -> list[str]:
    return [e.payload["observation"] for e in episode.events if e.kind == "observation"]


def _count(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[int]:
    calls = [0]
    real = getattr(owner, name)

    def counted(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


@pytest.mark.parametrize("protocol", ["workbench", "upstream"])
def test_a_model_agents_observation_is_built_once_and_returned_as_stored(
    protocol: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    episode = _episode(tmp_path, TinyOrg(), agent=True, protocol=protocol)
    if protocol == "upstream":  # upstream's repr, else the project's JSON
        built = _count(monkeypatch, observation_text, "upstream_observation")
    else:
        built = _count(monkeypatch, QueryResult, "observation")
    before = built[0]
    step = TurnRules(protocol=protocol).execute(episode, LoopState(), SQL, "")
    assert step.ok and step.observation == _stored(episode)[0]
    assert "Ann Lee" in (step.observation or "")
    assert built[0] - before == 1  # (it was 2: the Episode's text, then the loop's own)


def test_an_mcp_paged_view_is_made_once_and_returned_as_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    views = _count(monkeypatch, ResultPages, "view")
    env = queue(tmp_path / "s.db", result_chars=100_000).next_task("agent-x")
    assert env.pages is not None
    shown = env.execute_soql(SQL)
    assert views[0] == 1  # (it was 2, a cache keeping the second from making a new cursor)
    assert shown == _stored(env.episode)[-1]
    assert [r["Name"] for r in json.loads(shown)] == ["Ann Lee", "Bo Chen"]


@pytest.fixture
def local_org(tmp_path: Path):
    org = LocalOrg(build_fixture_org(tmp_path / "org.db"))
    yield org
    org.close()


FENCED = "```sql\nSELECT Id, Nmae FROM Account\n```"


def test_a_typed_query_is_unwrapped_and_routed_once(
    tmp_path: Path, local_org: LocalOrg, monkeypatch: pytest.MonkeyPatch
) -> None:
    episode = _episode(tmp_path, local_org)
    unwrapped = [0]
    real = base.unwrap_code_fence

    def counted(text: str) -> str:
        unwrapped[0] += 1
        return real(text)

    for module in (
        "crmarena_tui.orgs.base",
        "crmarena_tui.orgs.local",
        "crmarena_tui.session.episode",
    ):
        monkeypatch.setattr(f"{module}.unwrap_code_fence", counted, raising=False)
    result = episode.execute("```sql\nSELECT Id, Name FROM Account LIMIT 1\n```")
    assert result.ok and unwrapped[0] == 1  # (it was 3: the Episode, `execute`, the org)
    found = episode.execute("```\nFIND {Globex} RETURNING Account(Name)\n```")
    assert found.kind == "search" and unwrapped[0] == 2


def test_an_error_in_a_fenced_query_is_placed_in_the_text_typed(
    tmp_path: Path, local_org: LocalOrg
) -> None:
    result = _episode(tmp_path, local_org).execute(FENCED)
    assert result.error_code == "INVALID_FIELD"
    assert result.error_offset == FENCED.index("Nmae")  # where the workspace draws its marker
