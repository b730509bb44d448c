"""The benchmark's graders: exact_match, fuzzy_match and privacy_rejection (docs/ARCHITECTURE.md, section 9).

`grade(task, answer)` picks the task's metric. With a `judge`, exact_match extracts answer items
and privacy_rejection decides with the LLM, as upstream does; without one (or when the judge
fails) they use deterministic extractors and a refusal classifier. The Grade records which.

`protocol` chooses how a judge is asked and read and how the metrics are computed: `upstream`
(the default) as upstream's evaluator effectively does, so rewards compare with the paper's;
`workbench` with this project's more forgiving reading. Each Grade records its protocol.

A `structured` answer (built in the submit dialog: items picked, or a decline) is compared
directly by `structured.grade_structured`, under either protocol; nothing is extracted.
"""

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
) -> Grade:
    """Grade one submitted answer to `task` by the task's reward metric, under `protocol`;
    a `structured` answer is compared directly (its text is the answer)."""
    protocol = check_protocol(protocol)
    if structured is not None:
        return grade_structured(task, structured, protocol=protocol)
    answer = answer if isinstance(answer, str) else ("" if answer is None else str(answer))
    if task.reward_metric == "fuzzy_match":
        return grade_fuzzy_match(task, answer, protocol=protocol)
    if task.reward_metric == "privacy_rejection":
        return grade_privacy_rejection(
            task, answer, trajectory=trajectory, judge=judge, protocol=protocol
        )
    return grade_exact_match(task, answer, judge=judge, protocol=protocol)
