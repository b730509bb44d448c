"""The ReAct agent: `<thought>` then exactly one `<execute>` (SOQL/SOSL) or `<respond>` per turn."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from crmarena_tui.agents import prompts, upstream
from crmarena_tui.agents.agent import AgentStep, LoopState, ModelAgent
from crmarena_tui.llm.client import Completion
from crmarena_tui.orgs.base import OBSERVATION_PREFIX, unwrap_code_fence

_THOUGHT = re.compile(r"<thought>(.*?)(?:</thought>|(?=<execute>|<respond>)|\Z)", re.S | re.I)
_ACTION = re.compile(r"<(execute|respond)>(.*?)(?:</\1>|\Z)", re.S | re.I)


@dataclass(frozen=True, slots=True)
class ParsedReply:
    thought: str
    action: str | None  # "execute" | "respond" | None (a format error)
    content: str
    problem: str = ""


def parse_reply(text: str) -> ParsedReply:
    """Split a ReAct reply (workbench). The first action wins; an unclosed final tag is read to
    the end; tags in any case."""
    thought_match = _THOUGHT.search(text)
    thought = thought_match.group(1).strip() if thought_match else ""
    action = _ACTION.search(text)
    if action is None:
        return ParsedReply(thought, None, "", "no <execute> or <respond> action")
    kind = action.group(1).lower()
    content = action.group(2).strip()
    if kind == "execute":
        content = unwrap_code_fence(content)
    if not content:
        return ParsedReply(thought, None, "", f"empty <{kind}> action")
    return ParsedReply(thought, kind, content)


def parse_upstream_reply(text: str) -> ParsedReply:
    """Split a ReAct reply as upstream does (`agents.upstream.action`); the thought is read
    leniently, for display only."""
    thought_match = _THOUGHT.search(text)
    thought = thought_match.group(1).strip() if thought_match else ""
    kind, content = upstream.action(text)
    if kind is None:
        return ParsedReply(thought, None, "", "no complete <execute> or <respond> action")
    return ParsedReply(thought, kind, content)


class ReactAgent(ModelAgent):
    strategy = "react"

    def take_turn(self, episode: Any, state: LoopState, completion: Completion) -> AgentStep:
        reply = completion.text
        parsed = parse_upstream_reply(reply) if self.upstream else parse_reply(reply)
        episode.record(
            "thought", {"text": parsed.thought, "reply": reply, "turn": state.turn}, actor="agent"
        )
        self.replay_reply(state, {"reply": reply})
        if parsed.action is None:
            correction = self.correction()
            state.messages.append({"role": "user", "content": correction})
            return self.format_error(
                episode, state, reply, parsed.thought, correction, parsed.problem
            )
        if parsed.action == "execute":
            step = self.execute(episode, state, parsed.content, parsed.thought)
            if not step.done:
                observation = step.observation or ""
                state.messages.append({"role": "user", "content": OBSERVATION_PREFIX + observation})
            return step
        return self.respond(episode, state, parsed.content, parsed.thought)

    def correction(self) -> str:
        if self.upstream:
            return self.prompt_source.format_correction(self.strategy)
        return prompts.FORMAT_CORRECTION

    def replay_reply(self, state: LoopState, payload: dict[str, Any]) -> None:
        reply = payload["reply"]
        state.messages.append(
            {"role": "assistant", "content": reply.strip() if self.upstream else reply}
        )

    def replay_result(self, state: LoopState, text: str) -> None:
        state.messages.append({"role": "user", "content": text})

    def replay_format_error(self, state: LoopState, payload: dict[str, Any]) -> None:
        state.messages.append({"role": "user", "content": self.correction()})
