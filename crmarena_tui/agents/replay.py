"""Rebuilding an agent's conversation from its session's events, when a session is resumed.

`ConversationReplay` is the half of `ModelAgent` that reads a log: `replay` walks the events and
calls the strategy's hooks (a ReAct reply is one assistant message; a tool call waits for its
tool result), so a resumed session's model sees what it saw before the interruption.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from crmarena_tui.agents import prompts
from crmarena_tui.orgs.base import OBSERVATION_PREFIX

Message = dict[str, Any]


@dataclass(slots=True)
class LoopState:
    messages: list[Message] = field(default_factory=list)
    turn: int = 0  # model turns in this episode
    turns_since_respond: int = 0
    user_turns: int = 0  # the user's messages, the opening included
    last_respond: str | None = None


class ConversationReplay:
    """The replay hooks of a model agent (subclasses phrase each kind of event)."""

    def replay_reply(self, state: LoopState, payload: dict[str, Any]) -> None:
        """Resuming: add a recorded model reply (a thought event's payload) to the messages."""
        raise NotImplementedError

    def replay_result(self, state: LoopState, text: str) -> None:
        """Resuming: add what answered the last reply's action (org output, or a delivery note)."""
        raise NotImplementedError

    def replay_format_error(self, state: LoopState, payload: dict[str, Any]) -> None:
        raise NotImplementedError

    def replay_delivered(self, state: LoopState) -> None:
        """Resuming: the last reply's respond reached the user (their reply is the next event)."""

    def replay_end(self, state: LoopState) -> None:
        """Resuming: the log ends here; leave the messages ready for the next model call."""
        if state.messages[-1]["role"] == "assistant":
            state.messages.append({"role": "user", "content": prompts.INTERRUPTED})

    def replay(self, events: list[Any], state: LoopState) -> None:
        """Rebuild the conversation of a resumed session from its event log (after the opening,
        which `start` has placed)."""
        opening_seen = False
        for event in events:
            kind, actor = event.kind, event.actor
            payload = event.payload or {}
            if kind == "thought" and actor == "agent" and "reply" in payload:
                self.replay_reply(state, payload)
                state.turn += 1
                state.turns_since_respond += 1
            elif kind == "observation" or (kind == "error" and actor == "system"):
                self.replay_result(state, OBSERVATION_PREFIX + event.text)
            elif kind == "error" and payload.get("source") == "format":
                self.replay_format_error(state, payload)
            elif kind == "message" and actor == "agent":
                self.replay_delivered(state)
                state.last_respond = event.text
                state.turns_since_respond = 0
            elif kind == "message" and actor == "user":
                if not opening_seen:
                    opening_seen = True  # already the first user message
                    continue
                state.messages.append({"role": "user", "content": event.text})
                state.user_turns += 1
        self.replay_end(state)
