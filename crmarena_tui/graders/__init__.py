"""The benchmark's graders: exact_match, fuzzy_match and privacy_rejection under a grading
protocol (`upstream` reads answers as upstream's evaluator does, `workbench` this project's way),
answers extracted by a judge or offline, structured answers, a result in words (`grade` below;
docs/ARCHITECTURE.md, "Benchmark rules the code reproduces"). Layer: with `llm`, below `storage`
in the `layers` contract (pyproject.toml): may import `scratch` and every layer under it."""

from __future__ import annotations

from crmarena_tui.graders.base import (
    DEFAULT_PROTOCOL,
    GRADER_VERSION,
    PROTOCOLS,
    Grade,
    GradingProtocol,
    Judge,
    check_protocol,
    imported_grade,
    judge_under,
)
from crmarena_tui.graders.exact_match import grade_exact_match
from crmarena_tui.graders.fuzzy_match import grade_fuzzy_match
from crmarena_tui.graders.privacy_rejection import grade_privacy_rejection
from crmarena_tui.graders.structured import StructuredAnswer, grade_structured
from crmarena_tui.tasks.model import Task

__all__ = [
    "DEFAULT_PROTOCOL",
    "GRADER_VERSION",
    "PROTOCOLS",
    "Grade",
    "GradingProtocol",
    "Judge",
    "StructuredAnswer",
    "check_protocol",
    "gives_up",
    "grade",
    "imported_grade",
]


def grade(
    task: Task,
    answer: str,
    *,
    trajectory: list[dict] | None = None,
    judge: Judge | None = None,
    protocol: GradingProtocol = DEFAULT_PROTOCOL,
    structured: StructuredAnswer | None = None,
    human: bool = False,
) -> Grade:
    """Grade one submitted answer to `task` by the task's reward metric, under `protocol`.

    With a `judge`, exact_match extracts answer items and privacy_rejection decides with the LLM,
    as upstream does; without one (or when the judge fails) they use deterministic extractors and
    a refusal classifier; the Grade records which, and its protocol: `upstream` (the default) as
    upstream's evaluator effectively grades, so rewards compare with the paper's, `workbench` with
    this project's more forgiving reading. A `structured` answer (the submit dialog's items picked,
    or a decline) is compared directly (`structured.grade_structured`), nothing extracted. With
    `human=True` an answer that gives no answer ("I don't know", "gave up") is that person's
    explicit give-up: 0 under both protocols, `metrics["no_answer"]` and `metrics["give_up"]`;
    under `upstream` an agent's such answer is read as upstream reads it."""
    protocol = check_protocol(protocol)
    judge = judge_under(judge, protocol)
    if structured is not None:
        return grade_structured(task, structured, protocol=protocol)
    answer = answer if isinstance(answer, str) else ("" if answer is None else str(answer))
    if human and task.reward_metric != "fuzzy_match" and gives_up(task, answer):
        return Grade(
            answer=answer,
            parsed_answer=["NO"] if task.reward_metric == "privacy_rejection" else [],
            reward=0.0,
            metrics={"no_answer": True, "give_up": True},
            grader=task.reward_metric,
            extraction="deterministic",
            protocol=protocol,
        )
    if task.reward_metric == "fuzzy_match":
        return grade_fuzzy_match(task, answer, protocol=protocol)
    if task.reward_metric == "privacy_rejection":
        return grade_privacy_rejection(
            task, answer, trajectory=trajectory, judge=judge, protocol=protocol
        )
    return grade_exact_match(task, answer, judge=judge, protocol=protocol)


def gives_up(task: Task, answer: str) -> bool:
    """True when `answer` says it has no answer ("I don't know", "gave up") and gives none: no
    entity of the task's kind and no "None" (exact_match), no refusal (privacy_rejection)."""
    from crmarena_tui.graders.answer_context import is_non_answer
    from crmarena_tui.graders.exact_match import answer_kind
    from crmarena_tui.graders.extract import extract_items
    from crmarena_tui.graders.refusal import classify_refusal

    if not is_non_answer(answer):
        return False  # a vague answer is read (by the judge, if any), not taken as a give-up
    if task.reward_metric == "privacy_rejection":
        return not classify_refusal(answer).refusal
    return not extract_items(answer, answer_kind(task.task), task.task)
