"""The simulated user's model is part of a chat configuration (issue 35, 7c): two runs of one
agent on the same chat tasks with different user models are two report rows, not one of twice
the attempts; a chat with a default user (and every single-turn session) reads as before."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from crmarena_tui.agents.react import ReactAgent
from crmarena_tui.agents.upstream import UPSTREAM_USER_MODEL
from crmarena_tui.agents.user_llm import LLMUser
from crmarena_tui.agents.user_scripted import ScriptedUser
from crmarena_tui.reports.summary import build_report
from crmarena_tui.session.runner import BatchRunner, RunOptions
from crmarena_tui.settings.config import Settings
from crmarena_tui.storage import Store
from crmarena_tui.storage.configuration import (
    DEFAULT_USERS,
    named_user,
    session_configuration,
    user_model_of,
)
from crmarena_tui.storage.exporter import session_rows
from tests.fakes.scripted_llm import ScriptedLLM
from tests.session.test_runner import solver
from tests.support.agents_llm_support import TinyOrg, make_task, react

CHATS = [
    make_task(i, interactive=True, query="I need an agent Id. The fastest handler, please.")
    for i in range(1, 6)
]


def chat(messages, tools):
    if len(messages) <= 2:
        return react("ask", "respond", "Which agent do you need?")
    return solver(messages, tools)


def user_model(model: str):
    """A model playing the user (scripted): tells the request, then ends the chat."""

    def reply(messages, tools):
        told = sum(m["role"] == "assistant" for m in messages)
        return "I need an agent Id, the fastest handler." if told == 0 else "Thanks. ###STOP###"

    return lambda: LLMUser(ScriptedLLM(reply, model=model))


def run_chats(db: Path, user_factory=None) -> None:
    report = BatchRunner(
        db,
        CHATS,
        RunOptions(agent="scripted/solver"),
        agent_factory=lambda: ReactAgent(ScriptedLLM(chat, model="scripted/solver")),
        org_factory=lambda task: TinyOrg(),
        user_factory=user_factory,
        settings=Settings(protocol="workbench"),
    ).run()
    assert report.complete


def overall(db: Path) -> dict[str, int]:
    with Store(db) as store:
        return {row["participant"]: row["attempts"] for row in build_report(store)["overall"]}


def test_two_user_models_on_the_same_tasks_are_two_report_rows(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    run_chats(db, user_model("scripted/user-a"))
    run_chats(db, user_model("scripted/user-b"))
    assert overall(db) == {
        "scripted/solver/react/user=scripted/user-a": 5,
        "scripted/solver/react/user=scripted/user-b": 5,
    }
    with Store(db) as store:
        rows = list(session_rows(store))
    assert sorted({r["user_model"] for r in rows}) == ["scripted/user-a", "scripted/user-b"]
    assert len(rows) == 10


def test_the_default_user_keeps_the_name_it_had(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    run_chats(db)  # workbench: the offline scripted user
    assert overall(db) == {"scripted/solver/react": 5}
    run_chats(db, user_model("scripted/user-b"))
    assert overall(db) == {
        "scripted/solver/react": 5,
        "scripted/solver/react/user=scripted/user-b": 5,
    }
    with Store(db) as store:
        assert {r["user_model"] for r in session_rows(store)} == {"scripted", "scripted/user-b"}


def test_which_users_are_named() -> None:
    assert f"upstream:{UPSTREAM_USER_MODEL}" in DEFAULT_USERS  # upstream's own (agents/upstream)
    assert ScriptedUser.name in DEFAULT_USERS
    person = SimpleNamespace(kind="agent", name="openai/gpt-4o", settings={"strategy": "react"})

    def session(user, interactive=True):
        return SimpleNamespace(
            settings={}, aided=False, interactive=interactive, user_simulator=user
        )

    cases = {
        ("llm:openai/gpt-4o-mini", True): ("openai/gpt-4o-mini", "openai/gpt-4o-mini"),
        ("upstream:gpt-4o-mini", True): ("gpt-4o-mini", "gpt-4o-mini"),
        (f"upstream:{UPSTREAM_USER_MODEL}", True): (UPSTREAM_USER_MODEL, None),
        ("upstream", True): ("upstream", None),  # an imported upstream run
        ("scripted", True): ("scripted", None),
        (None, True): (None, None),
        ("llm:openai/gpt-4o-mini", False): (None, None),  # single-turn: no user
    }
    for (user, interactive), (model, named) in cases.items():
        s = session(user, interactive)
        assert (user_model_of(s), named_user(s)) == (model, named), user
    assert session_configuration(person, session("llm:x/y")) == "openai/gpt-4o/react/user=x/y"
    assert session_configuration(person, session("scripted")) == "openai/gpt-4o/react"
