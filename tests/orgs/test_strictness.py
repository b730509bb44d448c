"""Strict or lenient orgs: `open_org`, what a session records, and the rule that the upstream
protocol runs only on a strict org (`require_strict`, for the protocol setting to call)."""

from __future__ import annotations

from pathlib import Path

import pytest

from crmarena_tui.orgs.local import LocalOrg
from crmarena_tui.orgs.strictness import (
    LenientNotAllowed,
    lenient_wanted,
    org_mode,
    require_strict,
    with_org_mode,
)
from crmarena_tui.session.episode import Episode
from crmarena_tui.session.org_resolve import open_org
from crmarena_tui.storage import Store
from crmarena_tui.storage.models import SessionSpec
from tests.support.agents_llm_support import make_task
from tests.support.soql_fixture_support import build_fixture_org

LONG_TEXT_FILTER = "SELECT Id FROM Case WHERE Description LIKE '%battery%'"


@pytest.fixture()
def org_path(tmp_path: Path) -> Path:
    return build_fixture_org(tmp_path / "org.db")


def test_open_org_is_strict_unless_asked(org_path: Path) -> None:
    with open_org(str(org_path)) as strict:  # type: ignore[attr-defined]
        assert strict.lenient is False
        assert strict.query(LONG_TEXT_FILTER).error_code == "INVALID_FIELD"
    with open_org(str(org_path), lenient=True) as lenient:  # type: ignore[attr-defined]
        assert lenient.lenient is True and "lenient" in repr(lenient)
        assert lenient.query(LONG_TEXT_FILTER).total_size == 3


def test_switching_mode_does_not_reuse_the_other_modes_plan(org_path: Path) -> None:
    with LocalOrg(org_path) as org:
        assert not org.query(LONG_TEXT_FILTER).ok
        org.lenient = True
        assert org.query(LONG_TEXT_FILTER).ok
        org.lenient = False
        assert not org.query(LONG_TEXT_FILTER).ok


def test_lenient_wanted_reads_the_flag_then_the_setting() -> None:
    class Settings:
        lenient = True

    assert lenient_wanted(True) and lenient_wanted(False, Settings())
    assert not lenient_wanted(False) and not lenient_wanted(None, object())


def test_the_mode_goes_into_a_sessions_settings(org_path: Path, tmp_path: Path) -> None:
    task = make_task()
    with Store(tmp_path / "s.db") as store, LocalOrg(org_path, lenient=True) as org:
        me = store.participant("human", "ann")
        episode = Episode.start(store, SessionSpec(task, org, me, settings={"strategy": "x"}))
        settings = store.session(episode.session_id).settings
        assert {k: settings[k] for k in ("strategy", "org_mode", "protocol")} == {
            "strategy": "x",
            "org_mode": "lenient",
            "protocol": "upstream",
        }  # beside the org's clock and the prompts' source (issue 34's provenance)
        assert settings["org_clock"] == "run" and settings["prompt_source"] == "paraphrased"
        org.lenient = False  # a strict org does not resume the lenient session
        strict = Episode.start(store, SessionSpec(task, org, me, settings={"strategy": "x"}))
        assert strict.session_id != episode.session_id
        assert store.session(strict.session_id).settings["org_mode"] == "strict"
    assert org_mode(object()) is None  # a live org is Salesforce itself: nothing recorded
    assert with_org_mode({"a": 1}, object()) == {"a": 1}


def test_the_upstream_protocol_refuses_a_lenient_org() -> None:
    with pytest.raises(LenientNotAllowed, match="upstream protocol runs on a strict org only"):
        require_strict("upstream", lenient=True)
    require_strict("upstream", lenient=False)
    require_strict(None, lenient=True)
    require_strict("playground", lenient=True)


def test_the_app_opens_orgs_in_the_asked_mode(
    org_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from crmarena_tui.app.app import CrmArenaApp, PlayOptions

    task = make_task()
    assert CrmArenaApp(PlayOptions(org=str(org_path))).org_for(task).lenient is False
    assert CrmArenaApp(PlayOptions(org=str(org_path), lenient=True)).org_for(task).lenient
    monkeypatch.setenv("CRMARENA_TUI_LENIENT", "1")
    assert CrmArenaApp(PlayOptions(org=str(org_path))).org_for(task).lenient is True
