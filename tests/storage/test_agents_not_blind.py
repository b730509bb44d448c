"""Only a human plays blind: an agent's session records no blind flag (NULL), and the agent
sessions an older database stored as blind read as NULL and still resume (schema version 8)."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from crmarena_tui.agents.react import ReactAgent
from crmarena_tui.orgs.strictness import with_org_mode
from crmarena_tui.session.episode import Episode
from crmarena_tui.session.protocols import with_protocol
from crmarena_tui.session.runner import BatchRunner, RunOptions
from crmarena_tui.session.service import SessionService
from crmarena_tui.settings.config import load_settings
from crmarena_tui.storage import Store
from crmarena_tui.storage import schema as schema_mod
from crmarena_tui.storage.convert import settings_key
from crmarena_tui.storage.exporter import export_sessions
from crmarena_tui.storage.models import SessionSpec
from tests.fakes.scripted_llm import ScriptedLLM
from tests.support.agents_llm_support import AGENT_ID, TinyOrg, make_task, react
from tests.support.spec_support import session_spec
from tests.support.storage_support import integrity


def solver(messages, tools):
    if not any(m["content"].startswith("Salesforce instance output") for m in messages[1:]):
        return react("look", "execute", "SELECT Id, Name FROM User")
    return react("found", "respond", AGENT_ID)


def agent() -> ReactAgent:
    return ReactAgent(ScriptedLLM(solver, model="scripted/solver"))


def batch(db: Path, tasks: list) -> BatchRunner:
    return BatchRunner(
        db,
        tasks,
        RunOptions(agent="scripted/solver"),
        agent_factory=agent,
        org_factory=lambda task: TinyOrg(),
        service=SessionService(load_settings(protocol="workbench")),
    )


def test_agent_sessions_have_no_blind_flag_and_humans_keep_theirs(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    report = batch(db, [make_task(1)]).run()
    assert report.complete
    with Store(db) as store:
        (run,) = store.sessions()
        assert run.blind is None
        ana = store.participant("human", "ana")
        assert Episode.start(
            store, SessionSpec(make_task(2), TinyOrg(), ana, blind=True)
        ).session.blind
        seen = Episode.start(store, SessionSpec(make_task(3), TinyOrg(), ana, blind=False)).session
        assert seen.blind is False
        bot = store.participant("agent", "bot", model="bot")
        assert (
            Episode.start(
                store, SessionSpec(make_task(4), TinyOrg(), bot, blind=True)
            ).session.blind
            is None
        )
        forked = Episode.fork(store, run.id, store.events(run.id)[1].seq, TinyOrg(), bot)
        assert forked.session.blind is None
    out = tmp_path / "x.jsonl"
    with Store(db) as store:
        export_sessions(store, "jsonl", out)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["participant_kind"], r["blind"]) for r in rows] == [
        ("agent", None),
        ("human", True),
        ("human", False),
        ("agent", None),
        ("agent", None),
    ]


def _v7_agent_session(path: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """An in-progress agent session (one query done) as the code before schema 8 stored it:
    `blind = 1`, and the resume key the runner computed then."""
    task = make_task(1)
    with monkeypatch.context() as old:
        old.setattr(schema_mod, "MIGRATIONS", schema_mod.MIGRATIONS[:7])
        old.setattr(schema_mod, "SCHEMA_VERSION", 7)
        with Store(path) as store:
            bot = agent()
            who = SessionService(load_settings()).agent_participant(store, bot)
            settings = with_protocol(with_org_mode(bot.settings(), TinyOrg()), "workbench")
            old_key = settings_key(
                {
                    "aided": False,
                    "blind": True,
                    "org_kind": "local",
                    "user": None,
                    "settings": settings,
                }
            )
            session = store.create_session(
                session_spec(who, task, "local", "tiny", blind=True, settings=settings),
                settings_key=old_key,
            )
            store.append_event(session.id, "agent", "query", {"text": "SELECT Id FROM User"})
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("SELECT blind FROM sessions").fetchall() == [(1,)]
    return session.id


def test_an_older_databases_agent_sessions_read_unblind_and_still_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "v7.db"
    sid = _v7_agent_session(db, monkeypatch)
    with Store(db) as store:
        assert store.schema_version == schema_mod.SCHEMA_VERSION >= 8
        assert store.session(sid).blind is None
        assert integrity(store) == "ok"
        human = store.participant("human", "ana")
        assert (
            Episode.start(store, SessionSpec(make_task(5), TinyOrg(), human)).session.blind is True
        )
    report = batch(db, [make_task(1)]).run()
    (result,) = report.results
    assert (result.session_id, result.resumed, result.outcome) == (sid, True, "submitted")
    with Store(db) as store:
        assert [s.id for s in store.sessions() if s.participant_id != human.id] == [sid]
        assert store.session(sid).blind is None
