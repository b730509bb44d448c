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

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from crmarena_tui.errors import ExitCode, UserError
from crmarena_tui.graders.base import PROTOCOLS, GradingProtocol, check_protocol
from crmarena_tui.orgs.strictness import LenientNotAllowed, require_strict
from crmarena_tui.storage.end_reason import SUBMIT_ACTION

if TYPE_CHECKING:
    from crmarena_tui.graders import Grade, Judge
    from crmarena_tui.orgs.base import QueryResult
    from crmarena_tui.storage.models import Session
    from crmarena_tui.tasks.model import Task

PROTOCOL_KEY = "protocol"
REFERENCE = "reference"
SCRIPTED_USER = "scripted"
MAX_TURNS_REACHED = "Max turns reached"
MAX_USER_TURNS_REACHED = "Max user turns reached"
CONNECTOR_ERROR = "Connector error"
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


@dataclass(frozen=True, slots=True)
class Unconfirmed:
    """How an episode ended without a confirmed answer: the reason (upstream's words where it
    has them), who ended it (`agent`, `user`, `api`, ...) and the last respond, never submitted."""

    reason: str
    source: str
    last_respond: str


def unconfirmed_end(settings: dict[str, Any], submit: dict[str, Any]) -> Unconfirmed | None:
    """The unconfirmed end of a session, from its settings and its submit event's payload; None
    for a confirmed answer.

    One rule for native and imported sessions: a submit event that names an `end_reason`
    (`Episode.end`, and imports since grader 2.2.0) ends unconfirmed, its last respond kept under
    `last_respond` (earlier versions kept it as `answer`). An imported session whose upstream end
    reason is anything but "Submit action" ended unconfirmed too, also when imported before that
    rule (its submit event then holds the last respond as its answer)."""
    if submit.get("end_reason"):
        last = submit.get("last_respond", submit.get("answer"))
        return Unconfirmed(
            str(submit["end_reason"]), str(submit.get("end_source") or "agent"), str(last or "")
        )
    upstream = settings.get("end_reason")
    if settings.get("imported_from") == "upstream" and isinstance(upstream, dict):
        message = str(upstream.get("message") or "")
        if message and message != SUBMIT_ACTION:
            source = str(upstream.get("source") or "agent")
            return Unconfirmed(message, source, str(submit.get("answer") or ""))
    return None


def ended_grade(
    task: Task, answer: str, reason: str, source: str, protocol: GradingProtocol
) -> Grade:
    """The grade of an episode that ended before an answer was confirmed (a turn limit, a crash of
    upstream's connector): reward 0, the end reason in its metrics, nothing extracted."""
    from crmarena_tui.graders.base import Grade

    return Grade(
        answer=answer,
        parsed_answer=None,
        reward=0.0,
        metrics={"end_reason": reason, "end_source": source},
        grader=task.reward_metric,
        extraction="ended",
        protocol=protocol,
    )


def unconfirmed_grade(
    task: Task,
    end: Unconfirmed,
    protocol: GradingProtocol,
    *,
    judge: Judge | None = None,
    trajectory: list[dict] | None = None,
) -> Grade:
    """An unconfirmed episode's grade. Under `upstream` reward 0 and no answer (`ended_grade`),
    whatever the last respond says, as upstream's runner recorded it. Under `workbench` the
    project's rule for a limit: the last respond is graded, and the grade says it was never
    confirmed (`metrics["unconfirmed"]`, with the end reason); with no respond, `ended_grade`."""
    if protocol == "upstream" or not end.last_respond.strip():
        return ended_grade(task, "", end.reason, end.source, protocol)
    from crmarena_tui.graders import grade

    graded = grade(task, end.last_respond, trajectory=trajectory, judge=judge, protocol=protocol)
    metrics = {
        **graded.metrics,
        "unconfirmed": True,
        "end_reason": end.reason,
        "end_source": end.source,
    }
    return graded.model_copy(update={"metrics": metrics})


def grade_submission(
    task: Task,
    submit: dict[str, Any],
    submitter: str,
    settings: dict[str, Any],
    protocol: GradingProtocol,
    *,
    answer: str,
    structured: Any = None,
    judge: Judge | None = None,
    trajectory: list[dict] | None = None,
) -> Grade:
    """The grade of a session's last `submit` event (its payload, who made it): one rule for
    native and imported sessions. An unconfirmed end (`unconfirmed_end`) is graded by
    `unconfirmed_grade`; a tool-calling answer on the original CRMArena under `upstream` as
    upstream's `ToolEnv` graded it (`graders/tool_env_match.py`); any other answer by the graders
    (a human's give-up as a give-up)."""
    end = unconfirmed_end(settings, submit)
    if end is not None:
        return unconfirmed_grade(task, end, protocol, judge=judge, trajectory=trajectory)
    from crmarena_tui.graders.tool_env_match import grade_tool_env, tool_env_graded

    if structured is None and tool_env_graded(task, settings.get("strategy"), protocol):
        return grade_tool_env(task, respond_content(settings, answer))
    from crmarena_tui.graders import grade

    return grade(
        task,
        answer,
        trajectory=trajectory,
        judge=judge,
        protocol=protocol,
        structured=structured,
        human=submitter == "human",
    )


def respond_content(settings: dict[str, Any], answer: str) -> str:
    """The respond's text as upstream's `ToolEnv` compared it: an imported run's recorded
    `end_reason.content` (the model's argument as it wrote it; the imported answer is stripped),
    else the submitted `answer`."""
    end = settings.get("end_reason")
    if settings.get("imported_from") == "upstream" and isinstance(end, dict):
        content = end.get("content")
        if end.get("message") == SUBMIT_ACTION and isinstance(content, str):
            return content
    return answer


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


def observation_text(result: QueryResult, protocol: GradingProtocol) -> str:
    """What an agent under `protocol` is shown of a query result (after the observation prefix):
    upstream's Python repr, or this project's JSON followed, on its own line, by the org's
    warning when the result carries one (`orgs/unconverted.py`). Raises `agents.upstream.ConnectorCrash` where
    upstream's connector raised."""
    if protocol == "upstream":  # never more than upstream's connector showed
        from crmarena_tui.agents.upstream import observation

        return observation(result)
    text = result.observation()
    return f"{text}\n{result.warning}" if result.warning and result.ok else text
