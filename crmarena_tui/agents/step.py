"""What every agent yields per step (`AgentStep`), and the `Agent` protocol the driver runs."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    from crmarena_tui.graders import Grade

StepAction = Literal[
    "execute",
    "respond",
    "submit",
    "format_error",
    "model_error",
    "turn_limit",
    "user_limit",
    "connector_error",
]


@dataclass(slots=True)
class AgentStep:
    """What one step did. `done` is True on the last step of an episode."""

    turn: int
    action: StepAction
    thought: str = ""
    text: str = ""  # the query, the message to the user, or the submitted answer
    observation: str | None = None  # the org's output, or the simulated user's reply
    ok: bool = True
    done: bool = False
    # submitted | user_stop | turn_limit | user_limit | connector_error | api_error | query_error
    end_reason: str | None = None
    usage: dict[str, Any] | None = None
    grade: Grade | None = None


@runtime_checkable
class Agent(Protocol):
    name: str

    def settings(self) -> dict[str, Any]:
        """What distinguishes this agent's runs (model, strategy, aided, privacy_aware, ...)."""
        ...

    def steps(self, episode: Any) -> Generator[AgentStep, None, None]:
        """Work `episode` one step per `next()`; stops after submit, a turn limit or a model failure."""
        ...
