"""exact_match: the benchmark's rule for every task type with a closed answer (docs/ARCHITECTURE.md, section 9).

Both protocols share the strip rule (a single-element ground truth equal to the answer stripped of
white space and then quotes scores 1) and the offline extractor used when no judge is set or the
judge fails. They differ in how a judge is asked and its reply read: `upstream` follows
`upstream_extract`, `workbench` follows `llm_extract`.

Under both protocols an answer that says it has none ("I don't know", "gave up") and names no
entity scores 0 without asking the judge: a judge told that a reply with no entities means
"None" would otherwise give it full credit on every task whose ground truth is None. This is the
one place the `upstream` protocol departs from upstream's evaluator, so a non-answer is never
rewarded.
"""

from __future__ import annotations

from crmarena_tui.graders.answer_context import is_non_answer
from crmarena_tui.graders.base import (
    DEFAULT_PROTOCOL,
    Extraction,
    Grade,
    GradingProtocol,
    Judge,
    MetricValue,
    ask_judge,
    judge_name,
)
from crmarena_tui.graders.extract import extract_items
from crmarena_tui.graders.llm_extract import extraction_prompt, parse_judge_list
from crmarena_tui.graders.upstream_extract import (
    UpstreamReading,
    read_upstream_reply,
    upstream_equal,
    upstream_gold,
    upstream_instructions,
)
from crmarena_tui.tasks.catalog import task_type
from crmarena_tui.tasks.model import Task


def answer_kind(task_name: str) -> str:
    """The kind of entity a task's answer is made of; unknown task types answer with Ids."""
    try:
        kind = task_type(task_name).answer_kind
    except KeyError:
        return "id"
    return kind if kind in ("id", "ids", "state", "month", "bant", "stage") else "id"


def strip_answer(answer: str) -> str:
    """White space, then surrounding double quotes, then surrounding single quotes removed."""
    return answer.strip().strip('"').strip("'")


def grade_exact_match(
    task: Task,
    answer: str,
    judge: Judge | None = None,
    protocol: GradingProtocol = DEFAULT_PROTOCOL,
) -> Grade:
    """Reward 1 when the answer (stripped, or its extracted items, sorted) equals the ground truth."""
    upstream = protocol == "upstream"
    gold = upstream_gold(task.answer) if upstream else list[str | None](task.gold)
    made = _Made(answer, protocol, {"gold_count": len(gold or [])})
    if gold is None:
        made.metrics["upstream_error"] = "the task has no ground truth"
        return made.grade(None, 0.0, "deterministic")
    if len(gold) == 1:
        stripped = strip_answer(answer)
        made.metrics["strip_match"] = stripped == gold[0]
        if stripped == gold[0]:
            return made.grade([stripped], 1.0, "strip")

    kind = answer_kind(task.task)
    if is_non_answer(answer) and not extract_items(answer, kind, task.task):
        made.metrics["no_answer"] = True
        made.metrics["extracted_count"] = 0
        return made.grade([], 0.0, "deterministic")
    if judge is not None:
        made.judge_model = judge_name(judge)
        instructions = upstream_instructions(kind)
        try:
            if upstream:
                made.judge_raw = ask_judge(judge, instructions, answer)
            else:
                made.judge_raw = str(judge(extraction_prompt(kind, answer, task.query)))
        except Exception as exc:  # any judge failure falls back; grading never crashes
            made.judge_raw = f"error: {type(exc).__name__}: {exc}"
            made.metrics["judge_error"] = made.judge_raw
        else:
            if upstream:
                return _upstream_grade(made, read_upstream_reply(made.judge_raw), gold)
            parsed = parse_judge_list(made.judge_raw)
            made.metrics["extracted_count"] = len(parsed)
            return made.grade(parsed, _workbench_reward(parsed, gold), "llm")

    parsed = extract_items(answer, kind, task.task)
    made.metrics["extracted_count"] = len(parsed)
    if not parsed:
        made.metrics["no_answer"] = True  # a non-answer ("I don't know") is never "None"
    if upstream:
        return made.grade(
            parsed, 1.0 if upstream_equal(list(parsed), gold) else 0.0, "deterministic"
        )
    return made.grade(parsed, _workbench_reward(parsed, gold), "deterministic")


class _Made:
    """What a grade is being made of, filled in as grading goes."""

    def __init__(
        self, answer: str, protocol: GradingProtocol, metrics: dict[str, MetricValue]
    ) -> None:
        self.answer, self.protocol, self.metrics = answer, protocol, metrics
        self.judge_model: str | None = None
        self.judge_raw: str | None = None

    def grade(self, parsed: list[str] | None, reward: float, extraction: Extraction) -> Grade:
        return Grade(
            answer=self.answer,
            parsed_answer=parsed,
            reward=reward,
            metrics=self.metrics,
            grader="exact_match",
            extraction=extraction,
            judge_model=self.judge_model,
            judge_raw=self.judge_raw,
            protocol=self.protocol,
        )


def _workbench_reward(parsed: list[str], gold: list[str | None]) -> float:
    return 1.0 if sorted(parsed) == sorted("None" if g is None else g for g in gold) else 0.0


def _upstream_grade(made: _Made, reading: UpstreamReading, gold: list[str | None]) -> Grade:
    if reading.error is not None or reading.items is None:
        made.metrics["upstream_error"] = reading.error or "no extracted items"
        return made.grade(None, 0.0, "llm")
    made.metrics["extracted_count"] = len(reading.items)
    return made.grade(reading.shown(), 1.0 if upstream_equal(reading.items, gold) else 0.0, "llm")
