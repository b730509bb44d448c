"""`UpstreamUser`: the simulated user of the `upstream` protocol, as upstream's `users.py` runs it.

A model plays the user from its persona and hidden request (its prompt source's prompt: this
project's `prompts_upstream.USER_SIMULATOR`, or upstream's own). The model sees the agent's
greeting first and answers it with the opening; after that the agent's messages are its `user` turns and its own replies its `assistant` turns. It is called with the
provider's default temperature (upstream passed none). Its replies reach the agent as they are;
a reply (not the opening) containing `###STOP###` anywhere ends the dialogue and is recorded as exactly `###STOP###`.
Like every simulator it keeps no state: each reply is computed from the conversation so far.
"""

from __future__ import annotations

from typing import Any

from crmarena_tui.agents.base import STOP
from crmarena_tui.agents.prompt_source import PARAPHRASED, PromptSource
from crmarena_tui.llm.client import CallOptions, LLMClient
from crmarena_tui.tasks.model import Task

NO_TEMPERATURE = CallOptions(send_temperature=False)


class UpstreamUser:
    """Implements `agents.base.UserSimulator` with a model, as upstream's interactive runs did."""

    def __init__(self, client: LLMClient, prompt_source: PromptSource = PARAPHRASED) -> None:
        self.client = client
        self.name = f"upstream:{client.model}"
        self.prompt_source = prompt_source  # its prompt and greeting

    def messages(self, task: Task, history: list[dict[str, str]]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [
            {"role": "system", "content": self.prompt_source.user_prompt(task.redacted())},
            {"role": "user", "content": self.prompt_source.user_greeting},
        ]
        for item in history:
            role = "assistant" if item.get("role") == "user" else "user"
            out.append({"role": role, "content": item.get("content", "")})
        return out

    def _say(self, task: Task, history: list[dict[str, str]]) -> str:
        return self.client.complete(self.messages(task, history), options=NO_TEMPERATURE).text

    def opening(self, task: Task) -> str:
        """The first message, as the model wrote it (upstream looked for the stop token only in
        replies to the agent)."""
        return self._say(task, [])

    def reply(self, task: Task, history: list[dict[str, str]]) -> str:
        text = self._say(task, history)
        return STOP if STOP in text else text
