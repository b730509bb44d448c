"""The ReAct agent: `<thought>` then exactly one `<execute>` (SOQL/SOSL) or `<respond>` per turn."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from crmarena_tui.agents import prompts
from crmarena_tui.agents.agent import AgentStep, LoopState, ModelAgent, _get, event_text
from crmarena_tui.llm import Completion
from crmarena_tui.orgs.base import unwrap_code_fence

_THOUGHT = re.compile(r"<thought>(.*?)(?:</thought>|(?=<execute>|<respond>)|\Z)", re.S | re.I)
_ACTION = re.compile(r"<(execute|respond)>(.*?)(?:</\1>|\Z)", re.S | re.I)


@dataclass(frozen=True, slots=True)
class ParsedReply:
    thought: str
    action: str | None  # "execute" | "respond" | None (a format error)
    content: str
    problem: str = ""


def parse_reply(text: str) -> ParsedReply:
    """Split a ReAct reply. The first action wins; an unclosed final tag is read to the end."""
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


class ReactAgent(ModelAgent):
    strategy = "react"

    def take_turn(self, episode: Any, state: LoopState, completion: Completion) -> AgentStep:
        reply = completion.text
        parsed = parse_reply(reply)
        episode.record("thought", {"text": parsed.thought, "reply": reply, "turn": state.turn},
                       actor="agent")
        state.messages.append({"role": "assistant", "content": reply})
        if parsed.action is None:
            state.messages.append({"role": "user", "content": prompts.FORMAT_CORRECTION})
            return self.format_error(episode, state, reply, parsed.thought,
                                     prompts.FORMAT_CORRECTION, parsed.problem)
        if parsed.action == "execute":
            observation, ok = self.execute(episode, parsed.content)
            state.messages.append({"role": "user", "content": prompts.OBSERVATION_PREFIX + observation})
            return AgentStep(turn=state.turn, action="execute", thought=parsed.thought,
                             text=parsed.content, observation=observation, ok=ok)
        return self.respond(episode, state, parsed.content, parsed.thought)

    def replay(self, events: list[Any], state: LoopState) -> None:
        """Rebuild the conversation: replies from thought events, then what answered each."""
        for event in events:
            kind, actor = _get(event, "kind"), _get(event, "actor")
            payload = _get(event, "payload") or {}
            if kind == "thought" and actor == "agent" and "reply" in payload:
                state.messages.append({"role": "assistant", "content": payload["reply"]})
                state.turn += 1
                state.turns_since_respond += 1
            elif kind == "observation":
                state.messages.append(
                    {"role": "user", "content": prompts.OBSERVATION_PREFIX + event_text(event)})
            elif kind == "error" and payload.get("source") == "format":
                state.messages.append({"role": "user", "content": prompts.FORMAT_CORRECTION})
            elif kind == "message" and actor == "user":
                state.messages.append({"role": "user", "content": event_text(event)})
                if state.turn:
                    state.user_turns += 1
            elif kind == "message" and actor == "agent":
                state.last_respond = event_text(event)
                state.turns_since_respond = 0
        if state.messages[-1]["role"] == "assistant":
            # nothing answered the last reply (stopped mid-step): restate the task
            state.messages.append({"role": "user", "content": "Please continue with the task."})
