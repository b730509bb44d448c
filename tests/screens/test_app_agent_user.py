"""Who plays the user in interactive tasks: a human for an agent (the hidden request shown to the
human, never to the agent), or a model for a human or an agent (ScriptedLLM as the user model)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Select

from crmarena_tui.agents.base import STOP
from crmarena_tui.app.app import CrmArenaApp, PlayOptions
from crmarena_tui.screens.agent_setup_dialog import AgentSetupDialog
from crmarena_tui.screens.result_screen import ResultScreen
from crmarena_tui.screens.user_play_screen import UserPlayScreen
from crmarena_tui.widgets.chat_pane import ChatPane
from tests.fakes.scripted_llm import ScriptedFailure, register_script, unregister_script
from tests.screens.test_app_agent import start_agent, until
from tests.support.app_support import (
    SAMPLE,
    SIZE,
    FakeOrg,
    open_task,
    screen_text,
    wait_for_workers,
)

CASE_ID = "500000000000000AAA"


def react(thought: str, action: str, content: str) -> str:
    return f"<thought>{thought}</thought>\n<{action}>{content}</{action}>"


def interactive_app(tmp_path: Path, **options) -> CrmArenaApp:
    path = tmp_path / "b2b_interactive.json"  # the file name marks the tasks interactive
    path.write_text(SAMPLE.read_text())
    org = FakeOrg()
    options.setdefault("protocol", "workbench")  # this project's loop and user simulator
    return CrmArenaApp(
        PlayOptions(tasks=str(path), participant="ann", db=tmp_path / "s.db", **options),
        org_factory=lambda org_type: org,
    )


async def say(pilot, chat: ChatPane, text: str) -> None:
    chat.input.value = text
    chat.input.focus()
    await pilot.press("enter")


async def test_a_human_plays_the_user_and_the_agent_never_sees_the_hidden_request(
    tmp_path: Path,
) -> None:
    register_script(
        "helper",
        lambda: [
            react("ask", "respond", "Hello! Which product do you mean?"),
            react("look", "execute", "SELECT Id, Subject FROM Case"),
            react("answer", "respond", f"The case is {CASE_ID}."),
        ],
    )
    try:
        app = interactive_app(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for_workers(pilot, app)
            await pilot.press("slash", *"named entity")
            await pilot.pause()
            await pilot.press("ctrl+g")
            dialog = app.screen
            assert isinstance(dialog, AgentSetupDialog)
            dialog.query_one("#setup-agent", Select).value = "model"
            await pilot.pause()
            dialog.query_one("#setup-model").value = "scripted/helper"
            dialog.query_one("#setup-user", Select).value = "human"
            await pilot.press("ctrl+s")
            screen = app.screen
            assert isinstance(screen, UserPlayScreen)
            chat = screen.chat
            await until(
                pilot,
                lambda: screen.human.waiting and not chat.input.disabled,
                "the agent to wait for the opening",
            )
            task = screen.task_row
            hidden = " ".join(task.query.split()[:6])
            persona = " ".join(task.persona.split()[:5])
            assert hidden in " ".join(screen_text(app).split())  # the human sees the brief
            await pilot.press("ctrl+d")  # nothing said yet: cannot end the conversation
            assert not screen.closed
            await say(pilot, chat, "I need help identifying something I bought.")
            await until(
                pilot,
                lambda: len(chat.messages) == 2 and not chat.input.disabled,
                "the agent's question",
            )
            assert chat.messages[1] == "Agent: Hello! Which product do you mean?"
            await say(pilot, chat, "The one from my last order.")
            await until(pilot, lambda: len(chat.messages) == 4, "the agent's answer")
            assert chat.messages[3] == f"Agent: The case is {CASE_ID}."
            await pilot.press("ctrl+d")
            await until(pilot, lambda: isinstance(app.screen, ResultScreen), "the result")
            assert chat.messages[-1] == f"You: {STOP}"
            episode = screen.episode
            assert episode.status == "submitted"
            said = [(e.actor, e.text) for e in episode.events if e.kind == "message"]
            assert said == [
                ("user", "I need help identifying something I bought."),
                ("agent", "Hello! Which product do you mean?"),
                ("user", "The one from my last order."),
                ("agent", f"The case is {CASE_ID}."),
                ("user", STOP),
            ]
            assert app.store.session(episode.session_id).user_simulator == "human"
            seen = "\n".join(
                str(m.get("content")) for call in screen.agent.client.calls for m in call
            )
            assert len(screen.agent.client.calls) == 3
            assert "something I bought" in seen and "last order" in seen
            assert hidden not in " ".join(seen.split()) and persona not in " ".join(seen.split())
    finally:
        unregister_script("helper")


async def test_a_model_plays_the_user_for_a_human_and_its_failure_is_not_fatal(
    tmp_path: Path,
) -> None:
    seen: list[list[dict]] = []
    replies = iter(
        [
            "Hi, I need to know which product I ordered.",
            "The blue one, last week.",
            ScriptedFailure("auth", "user model key rejected"),
        ]
    )

    def customer(messages, tools):
        seen.append(messages)
        return next(replies)

    register_script("customer", lambda: customer)
    try:
        app = interactive_app(tmp_path, user_model="scripted/customer")
        async with app.run_test(size=SIZE) as pilot:
            await open_task(pilot, app, "named entity")
            chat = app.screen.query_one("#chat", ChatPane)
            task = app.screen.task_row
            assert chat.messages == ["Customer: Hi, I need to know which product I ordered."]
            await say(pilot, chat, "Which product line?")
            await wait_for_workers(pilot, app)
            assert chat.messages[-1] == "Customer: The blue one, last week."
            episode = app.screen.episode
            assert app.store.session(episode.session_id).user_simulator == "llm:scripted/customer"
            brief = seen[0][0]["content"]
            assert " ".join(task.query.split()[:8]) in " ".join(brief.split())  # it knows the need
            assert all(gold not in brief for gold in task.gold)  # never the answer
            await say(pilot, chat, "Anything else?")
            await wait_for_workers(pilot, app)
            assert any("user model key rejected" in str(n.message) for n in app._notifications)
            assert app.is_running and not chat.input.disabled and not episode.finished
    finally:
        unregister_script("customer")


async def test_the_configured_user_model_serves_an_agent(tmp_path: Path) -> None:
    register_script("asker", lambda: [react("answer", "respond", f"It is {CASE_ID}.")])
    register_script("satisfied", lambda: ["Hello, which case was escalated?", STOP])
    try:
        app = interactive_app(tmp_path, user_model="scripted/satisfied")
        async with app.run_test(size=SIZE) as pilot:
            await wait_for_workers(pilot, app)
            await pilot.press("slash", *"named entity")
            await pilot.pause()
            await pilot.press("ctrl+g")
            choice = app.screen.query_one("#setup-user", Select)
            assert choice.value == "scripted/satisfied"  # the configured user model by default
            await pilot.press("escape")
            screen = await start_agent(pilot, app, words=None, model="scripted/asker")
            await until(pilot, lambda: isinstance(app.screen, ResultScreen), "the result")
            said = [(e.actor, e.text) for e in screen.episode.events if e.kind == "message"]
            assert said == [
                ("user", "Hello, which case was escalated?"),
                ("agent", f"It is {CASE_ID}."),
                ("user", STOP),
            ]
            assert screen.episode.session.user_simulator == "llm:scripted/satisfied"
            entries = "\n".join(screen.step_log.entries)
            assert "Customer: Hello, which case was escalated?" in entries
            assert f"Agent: It is {CASE_ID}." in entries
    finally:
        unregister_script("asker")
        unregister_script("satisfied")


def test_user_model_scripted_overrides_a_configured_model(monkeypatch) -> None:
    from crmarena_tui.agents.user_llm import LLMUser
    from crmarena_tui.agents.user_scripted import ScriptedUser
    from crmarena_tui.agents.user_upstream import UpstreamUser
    from crmarena_tui.cli import build_parser

    monkeypatch.setenv("CRMARENA_TUI_USER_MODEL", "openai/gpt-4o-mini")
    args = build_parser().parse_args(["play", "--user-model", "scripted"])
    assert args.user_model == "scripted"
    assert isinstance(
        CrmArenaApp(PlayOptions(user_model=args.user_model)).user_simulator(), ScriptedUser
    )
    configured = CrmArenaApp(PlayOptions(protocol="workbench")).user_simulator()
    assert isinstance(configured, LLMUser) and configured.name == "llm:openai/gpt-4o-mini"
    upstream = CrmArenaApp(PlayOptions()).user_simulator()  # the default protocol: upstream's way
    assert isinstance(upstream, UpstreamUser) and upstream.name == "upstream:openai/gpt-4o-mini"
