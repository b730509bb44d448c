"""`LLMUser`: a model plays the user of a multi-turn task from its persona and hidden query.

The simulator sees the task's real query (its private instruction) and persona, never the ground
truth. It states its need a piece at a time, asks for Ids when given names, never invents facts,
and ends the dialogue with exactly `###STOP###`. It keeps no state of its own: every reply is
computed from the conversation so far, so a resumed session continues where it stopped.
"""

from __future__ import annotations

from typing import Any

from crmarena_tui.agents import prompts
from crmarena_tui.llm.client import LLMClient, make_client
from crmarena_tui.tasks.model import Task

KICKOFF = "(The chat has opened. Write your first message to the assistant.)"


def clean_reply(text: str) -> str:
    """The user's message as the agent should see it; any reply mentioning the stop token is it."""
    reply = text.strip()
    if prompts.STOP in reply:
        return prompts.STOP
    if len(reply) >= 2 and reply[0] == reply[-1] == '"':
        reply = reply[1:-1].strip()
    for label in ("User:", "Customer:", "Me:"):
        if reply.startswith(label):
            reply = reply[len(label) :].strip()
    return reply


class LLMUser:
    """Implements `agents.base.UserSimulator` with a model."""

    def __init__(self, client: LLMClient) -> None:
        self.client = client
        self.name = f"llm:{client.model}"

    def messages(self, task: Task, history: list[dict[str, str]]) -> list[dict[str, Any]]:
        """The simulator's view: its own lines are `assistant`, the agent's are `user`."""
        persona_task = task.redacted()
        out: list[dict[str, Any]] = [
            {"role": "system", "content": prompts.user_simulator_prompt(persona_task)},
            {"role": "user", "content": KICKOFF},
        ]
        for item in history:
            role = "assistant" if item.get("role") == "user" else "user"
            out.append({"role": role, "content": item.get("content", "")})
        return out

    def opening(self, task: Task) -> str:
        reply = clean_reply(self.client.complete(self.messages(task, [])).text)
        return task.query if not reply or reply == prompts.STOP else reply

    def reply(self, task: Task, history: list[dict[str, str]]) -> str:
        reply = clean_reply(self.client.complete(self.messages(task, history)).text)
        return reply or prompts.STOP


def make_user(
    spec: str,
    *,
    api_base: str | None = None,
    settings: Any = None,
    protocol: str = "workbench",
    prompt_source: Any = None,
) -> Any:
    """`scripted` -> the scripted user; anything else is a model playing the user, as upstream's
    simulator does under the `upstream` protocol (`UpstreamUser`, with the texts of
    `prompt_source`, default this project's paraphrase), else as `LLMUser`."""
    if spec == "scripted":
        from crmarena_tui.agents.user_scripted import ScriptedUser

        return ScriptedUser()
    client = make_client(spec, api_base=api_base, settings=settings)
    if protocol == "upstream":
        from crmarena_tui.agents.user_upstream import UpstreamUser

        return UpstreamUser(client, prompt_source) if prompt_source else UpstreamUser(client)
    return LLMUser(client)
