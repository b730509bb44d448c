"""exact_match: the benchmark's rule for every task type with a closed answer (docs/ARCHITECTURE.md, "Benchmark rules the code reproduces").

Both protocols share the strip rule (a single-element ground truth equal to the answer stripped of
white space and then quotes scores 1) and the offline extractor used when no judge is set or the
judge fails. They differ in how a judge is asked and its reply read (`upstream` follows
`upstream_extract`, `workbench` follows `llm_extract`) and in what an answer that gives no answer
("I don't know", "gave up") is worth:

- `upstream` reads it as upstream's evaluator does, with no departure: the judge is asked about
  every answer, and it is told that a reply naming no entity means "None"; the offline extractor
  stands in for that judge and follows the same instruction (no entity read: `["None"]`).
- `workbench` scores it 0 without asking the judge, so a give-up is never rewarded; an answer that
  says nothing was found ("I couldn't find any matching order") still reads as "None".

Either way the grade's `metrics["no_answer"]` is True when the answer gives no answer (the offline
extractor finds neither an entity nor a "None" in it), so reports can count how much of a score
comes from such answers.
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
    judge_facts,
    judge_name,
)
from crmarena_tui.graders.extract import extract_items
from crmarena_tui.graders.judge_instructions import instructions_of
from crmarena_tui.graders.llm_extract import (
    WORKBENCH_INSTRUCTIONS,
    extraction_prompt,
    parse_judge_list,
)
from crmarena_tui.graders.upstream_extract import (
    UpstreamReading,
    read_upstream_reply,
    upstream_equal,
    upstream_gold,
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
    offline = extract_items(answer, kind, task.task)
    if not offline:
        made.metrics["no_answer"] = True  # the answer gives no answer (nor "None")
        if not upstream and is_non_answer(answer):
            made.metrics["extracted_count"] = 0
            return made.grade([], 0.0, "deterministic")
    if judge is not None:
        made.judge_model = judge_name(judge)
        source = instructions_of(judge)
        version = source.version if upstream else WORKBENCH_INSTRUCTIONS
        made.metrics.update(judge_facts(judge, version))
        try:
            if upstream:
                made.judge_raw = ask_judge(judge, source.extraction(task.task), answer)
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

    made.metrics["extracted_count"] = len(offline)
    if upstream:
        # upstream's judge instruction: a reply naming no entity is "None"
        parsed = offline or ["None"]
        return made.grade(
            parsed, 1.0 if upstream_equal(list(parsed), gold) else 0.0, "deterministic"
        )
    return made.grade(offline, _workbench_reward(offline, gold), "deterministic")


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
