"""The benchmark's turn limits and how an agent's episode ends, for every agent loop.

`TurnRules` holds the rules an agent's actions follow under the session's protocol
(docs/ARCHITECTURE.md, "One way to set up a session, one agent loop" and "Benchmark rules the
code reproduces"): at most `max_turns` turns without a respond, at most
`max_user_turns` user replies, what a respond does (single-turn: the submitted answer; multi-turn:
a message to the simulated user, the dialogue ending at `###STOP###`), and how a limit ends the
episode (`upstream`: reward 0 and upstream's end reason; `workbench`: the last respond submitted).
`ModelAgent` (agents/agent.py) follows them for its model's turns, and `ToolEnv`
(agents/tool_env.py) for an external agent's tool calls: one copy of the rules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from crmarena_tui.agents import prompts, upstream
from crmarena_tui.agents.replay import LoopState
from crmarena_tui.agents.step import AgentStep, StepAction
from crmarena_tui.graders.base import GradingProtocol
from crmarena_tui.orgs.observation_text import ConnectorCrash
from crmarena_tui.storage.end_reason import (
    CONNECTOR_ERROR,
    MAX_TURNS_REACHED,
    MAX_USER_TURNS_REACHED,
)

if TYPE_CHECKING:
    from crmarena_tui.orgs.base import QueryResult


class TurnRules:
    """The rules of one agent loop; `protocol` is the session's (set when the loop starts)."""

    def __init__(
        self,
        *,
        protocol: GradingProtocol = "workbench",
        max_turns: int = 20,
        max_user_turns: int = 10,
    ) -> None:
        self.protocol: GradingProtocol = protocol
        self.max_turns = max_turns
        self.max_user_turns = max_user_turns

    @property
    def upstream(self) -> bool:
        return self.protocol == "upstream"

    def count_turn(self, state: LoopState) -> None:
        """One more turn of the agent (a model call, an external agent's action)."""
        state.turn += 1
        state.turns_since_respond += 1

    def turn_limit_reached(self, state: LoopState) -> bool:
        """`max_turns` turns without a respond: the agent takes no further turn (`finish`)."""
        return state.turns_since_respond >= self.max_turns

    def user_limit_reached(self, episode: Any, state: LoopState) -> bool:
        """Upstream, multi-turn: the user has replied `max_user_turns` times (the opening aside),
        so the agent's next action ends the episode."""
        return self.upstream and episode.interactive and state.user_turns - 1 >= self.max_user_turns

    def execute(
        self,
        episode: Any,
        state: LoopState,
        content: str,
        thought: str,
        *,
        kind: Literal["query", "search"] | None = None,
        shown: Callable[[QueryResult], str] | None = None,
    ) -> AgentStep:
        """Run the action's statement; the step says what the agent is shown (the episode ends
        here when the protocol says so: then `step.done`). `kind` sends `content` as it is to
        that endpoint (a tool that names it); without it the statement is read from `content`.
        `shown`: what the agent is shown of the result, when the caller pages it."""
        at_limit = self.user_limit_reached(episode, state)
        text = content
        if kind is None and self.upstream:
            kind, text = upstream.statement(content)
        try:  # the Episode builds what the agent is shown once, and logs it as built
            result = episode.execute(text, actor="agent", kind=kind, shown=shown)
        except ConnectorCrash as exc:
            reason = f"{CONNECTOR_ERROR} ({exc})"
            return self.end(episode, state, "connector_error", reason, "api", thought=thought)
        observation = result.shown or ""
        if at_limit:
            return self.end(episode, state, "user_limit", MAX_USER_TURNS_REACHED, "user", thought)
        return AgentStep(
            turn=state.turn,
            action="execute",
            thought=thought,
            text=text,
            observation=observation,
            ok=bool(result.ok),
        )

    def respond(self, episode: Any, state: LoopState, text: str, thought: str) -> AgentStep:
        """Deliver a respond: submit it (single-turn) or send it to the simulated user."""
        turn = state.turn
        at_limit = self.user_limit_reached(episode, state)
        state.last_respond = text
        state.turns_since_respond = 0
        if not episode.interactive:
            grade = episode.submit(text, actor="agent")
            return AgentStep(
                turn=turn,
                action="submit",
                thought=thought,
                text=text,
                done=True,
                end_reason="submitted",
                grade=grade,
            )
        reply = episode.say(text, actor="agent")
        stopped = reply is None or (
            prompts.STOP in reply if self.upstream else reply.strip() == prompts.STOP
        )
        if stopped:
            grade = episode.submit(text, actor="agent")
            return AgentStep(
                turn=turn,
                action="submit",
                thought=thought,
                text=text,
                observation=reply,
                done=True,
                end_reason="user_stop",
                grade=grade,
            )
        if at_limit:
            return self.end(
                episode, state, "user_limit", MAX_USER_TURNS_REACHED, "user", thought, reply
            )
        state.user_turns += 1
        if not self.upstream and state.user_turns >= self.max_user_turns:
            # unconfirmed: workbench grades the last respond, marked so (protocols.unconfirmed_grade)
            limit = f"user turn limit ({self.max_user_turns}) reached"
            return self.end(episode, state, "user_limit", limit, "user", thought, reply)
        self.add_user_reply(state, reply)
        return AgentStep(turn=turn, action="respond", thought=thought, text=text, observation=reply)

    def add_user_reply(self, state: LoopState, reply: str) -> None:
        state.messages.append({"role": "user", "content": reply})

    def finish(self, episode: Any, state: LoopState, reason: str) -> AgentStep:
        """End at the agent-turn limit, unconfirmed (`episode.end`): upstream, with reward 0
        ("Max turns reached"); workbench, with the last respond graded and marked unconfirmed
        (reward 0 when there is none)."""
        if self.upstream:
            return self.end(episode, state, "turn_limit", MAX_TURNS_REACHED, "agent")
        limit = f"agent turn limit ({self.max_turns}) reached"
        return self.end(episode, state, "turn_limit", limit, "agent")

    def end(
        self,
        episode: Any,
        state: LoopState,
        action: StepAction,
        reason: str,
        source: str,
        thought: str = "",
        observation: str | None = None,
    ) -> AgentStep:
        """End the episode unconfirmed (`episode.end`): reward 0, `reason` recorded."""
        answer = state.last_respond or ""
        grade = episode.end(reason, answer, source=source)
        return AgentStep(
            turn=state.turn,
            action=action,
            thought=thought,
            text=answer,
            observation=observation,
            done=True,
            end_reason=action,
            grade=grade,
        )
