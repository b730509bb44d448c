"""The protocol a session runs under: `upstream` (as upstream's code runs and grades an agent: scores
comparable with the paper) or `workbench` (this project's more forgiving loop and grading).

One setting, `protocol` (`--protocol`), read once by the `SessionService`. A session records its
protocol in its settings (so it is part of the key a run resumes by: sessions of the two protocols
never resume into each other), and keeps it for life: reopening, resuming or forking a session
continues under the protocol it started with, and its grades follow it. The reference agent is not
a model agent: its sessions always run under `workbench` (its own scripted loop, the offline
scripted user). What each protocol changes in the agent loop is in `agents/agent.py` and
`agents/upstream.py`; in grading, in `graders/`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crmarena_tui.errors import ExitCode, UserError
from crmarena_tui.graders.base import PROTOCOLS, GradingProtocol, check_protocol
from crmarena_tui.orgs.strictness import LenientNotAllowed, require_strict

if TYPE_CHECKING:
    from crmarena_tui.graders import Grade
    from crmarena_tui.storage.models import Session

PROTOCOL_KEY = "protocol"
REFERENCE = "reference"
SCRIPTED_USER = "scripted"
__all__ = ["PROTOCOLS", "GradingProtocol", "check_protocol"]


class ProtocolRefused(UserError, ValueError):
    """A run the chosen protocol does not allow; the message says what to change. Options or
    settings that do not go together: a usage error (exit code 2)."""

    exit_code = ExitCode.USAGE


def protocol_for(agent: str | None, configured: GradingProtocol) -> GradingProtocol:
    """The protocol a run of `agent` uses: the reference agent's is always `workbench`; a model
    agent's (and a human's, `agent` None) is the configured one."""
    return "workbench" if agent == REFERENCE else configured


def with_protocol(settings: dict[str, Any] | None, protocol: GradingProtocol) -> dict[str, Any]:
    """A session's settings with its protocol recorded."""
    return {**(settings or {}), PROTOCOL_KEY: protocol}


def session_protocol(session: Session) -> GradingProtocol:
    """The protocol `session` runs under: the recorded one; an imported upstream run's is
    `upstream`; sessions stored before protocols were recorded ran this project's own loop."""
    return "upstream" if session.protocol == "upstream" else "workbench"


def check_agent_run(
    protocol: GradingProtocol,
    *,
    agent: str,
    strategy: str = "react",
    interactive: bool = False,
    org_type: str = "b2b",
    user: str | None = None,
    lenient: bool = False,
) -> None:
    """Refuse (ProtocolRefused) a model-agent run the protocol does not allow: under `upstream`, a
    lenient local org, tool calling other than on the original CRMArena's single-turn tasks, and
    a chat task whose user (`user`, as resolved) is the scripted user instead of a model."""
    if protocol != "upstream" or agent == REFERENCE:
        return
    try:
        require_strict(protocol, lenient)
    except LenientNotAllowed as exc:
        raise ProtocolRefused(f"{exc}; or run under --protocol workbench") from None
    if strategy != "react" and (interactive or org_type != "original"):
        raise ProtocolRefused(
            "under --protocol upstream, tool calling runs only on the original CRMArena's "
            "single-turn tasks (upstream's code has it nowhere else): use --strategy react, or "
            "--protocol workbench for tool calling on CRMArena-Pro or in chat tasks"
        )
    if interactive and user == SCRIPTED_USER:
        raise ProtocolRefused(
            "under --protocol upstream a model plays the user in chat tasks (upstream's was "
            "gpt-4o-2024-08-06): give --user-model MODEL (or the user_model setting), or use "
            "--protocol workbench for the offline scripted user"
        )


def grade_payload(result: Grade) -> dict[str, Any]:
    """A grade as its `grade` event records it."""
    return {
        "reward": result.reward,
        "parsed_answer": result.parsed_answer,
        "grader": result.grader,
        "grader_version": result.grader_version,
        "extraction": result.extraction,
        "judge_model": result.judge_model,
        "metrics": result.metrics,
    }
