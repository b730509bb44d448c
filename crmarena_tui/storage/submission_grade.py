"""The grade of a session's submission, one rule for native and imported sessions: how an
episode that ended before an answer was confirmed (a turn limit, a crash of upstream's connector,
an imported run that did not end on "Submit action") is graded under each protocol, and which
grader reads a confirmed answer. Read by `session/episode.py` (grading and `regrade`) and by
`report --sensitivity` (`reports/sensitivity.py`, grading again in memory); nothing here writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from crmarena_tui.storage.end_reason import SUBMIT_ACTION

if TYPE_CHECKING:
    from crmarena_tui.graders import Grade, Judge
    from crmarena_tui.graders.base import GradingProtocol
    from crmarena_tui.tasks.model import Task


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
