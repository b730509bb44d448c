"""The native tool-calling agent: tools `execute_soql`, `execute_sosl` and `respond`."""

from __future__ import annotations

from typing import Any

from crmarena_tui.agents import prompts
from crmarena_tui.agents.agent import AgentStep, LoopState, ModelAgent
from crmarena_tui.llm.client import Completion, ToolCall
from crmarena_tui.orgs.base import OBSERVATION_PREFIX

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "execute_soql",
            "description": "Run one SOQL query in the Salesforce org and return the records as JSON.",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string", "description": "the SOQL query"}},
                "required": ["query"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "execute_sosl",
            "description": "Run one SOSL search (FIND {...} RETURNING ...) in the Salesforce org.",
            "parameters": {
                "type": "object",
                "properties": {"search": {"type": "string", "description": "the SOSL search"}},
                "required": ["search"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "respond",
            "description": "Send your message (your answer, or a question) to the person you help.",
            "parameters": {
                "type": "object",
                "properties": {"content": {"type": "string", "description": "the message"}},
                "required": ["content"],
            },
        },
    },
]
TOOL_NAMES = {t["function"]["name"] for t in TOOLS}
ARGUMENT = {"execute_soql": "query", "execute_sosl": "search", "respond": "content"}
SKIPPED = "Not run: make one tool call per turn."
INTERRUPTED = "Not run: the session was interrupted."


def _argument(call: ToolCall, *, raw: bool = False) -> str:
    """The call's one argument, stripped (`raw`: as the model wrote it)."""
    value = call.arguments.get(ARGUMENT.get(call.name, ""), "")
    if not value and len(call.arguments) == 1:  # a model that named the argument differently
        value = next(iter(call.arguments.values()))
    if not isinstance(value, str):
        return ""
    return value if raw else value.strip()


class ToolCallingAgent(ModelAgent):
    strategy = "tool_call"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pending: list[str] = []  # tool-call ids awaiting their result while resuming

    def tools(self) -> list[dict[str, Any]] | None:
        return TOOLS

    def take_turn(self, episode: Any, state: LoopState, completion: Completion) -> AgentStep:
        calls = completion.tool_calls
        thought = completion.text.strip()
        episode.record(
            "thought",
            {
                "text": thought,
                "reply": completion.text,
                "turn": state.turn,
                "tool_calls": [c.to_message() for c in calls],
            },
            actor="agent",
        )
        state.messages.append(completion.assistant_message())
        if not calls:
            state.messages.append({"role": "user", "content": prompts.TOOLS_CORRECTION})
            return self.format_error(
                episode, state, completion.text, thought, prompts.TOOLS_CORRECTION, "no tool call"
            )
        first, rest = calls[0], calls[1:]
        problem = first.error or (
            None if first.name in TOOL_NAMES else f"unknown tool {first.name!r}"
        )
        # under upstream a respond is submitted as written: ToolEnv compares it with `==`
        raw = self.upstream and first.name == "respond"
        content = "" if problem else _argument(first, raw=raw)
        if not problem and not content.strip():
            problem = f"{first.name} called without its '{ARGUMENT[first.name]}' argument"
        if problem:
            text = (
                f"Error: {problem}. Call execute_soql, execute_sosl or respond with its argument."
            )
            self._tool_results(state, first, text, rest)
            return self.format_error(episode, state, completion.text, thought, text, problem)
        if first.name == "respond":
            self._tool_results(state, first, prompts.DELIVERED, rest)
            return self.respond(episode, state, content, thought)
        step = self.execute(episode, state, content, thought)
        if not step.done:
            self._tool_results(state, first, step.observation or "", rest)
        return step

    @staticmethod
    def _tool_results(state: LoopState, first: ToolCall, text: str, rest: list[ToolCall]) -> None:
        state.messages.append({"role": "tool", "tool_call_id": first.id, "content": text})
        for call in rest:
            state.messages.append({"role": "tool", "tool_call_id": call.id, "content": SKIPPED})

    # -- resuming: each recorded reply's first tool call gets the next result -----------------
    def replay_reply(self, state: LoopState, payload: dict[str, Any]) -> None:
        self._answer_pending(state, INTERRUPTED)
        calls = payload.get("tool_calls") or []
        message: dict[str, Any] = {"role": "assistant", "content": payload["reply"]}
        if calls:
            message["tool_calls"] = calls
        state.messages.append(message)
        self._pending = [c["id"] for c in calls]

    def replay_result(self, state: LoopState, text: str) -> None:
        self._answer_pending(state, text.removeprefix(OBSERVATION_PREFIX))

    def replay_delivered(self, state: LoopState) -> None:
        self._answer_pending(state, prompts.DELIVERED)

    def replay_format_error(self, state: LoopState, payload: dict[str, Any]) -> None:
        if self._pending:
            self._answer_pending(state, f"Error: {payload.get('error', 'invalid call')}.")
        else:
            state.messages.append({"role": "user", "content": prompts.TOOLS_CORRECTION})

    def replay_end(self, state: LoopState) -> None:
        self._answer_pending(state, INTERRUPTED)
        super().replay_end(state)

    def _answer_pending(self, state: LoopState, text: str) -> None:
        pending, self._pending = self._pending, []
        if pending:
            state.messages.append({"role": "tool", "tool_call_id": pending[0], "content": text})
            state.messages.extend(
                {"role": "tool", "tool_call_id": c, "content": SKIPPED} for c in pending[1:]
            )
