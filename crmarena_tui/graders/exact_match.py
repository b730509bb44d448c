"""exact_match: the benchmark's rule for every task type with a closed answer (docs/ARCHITECTURE.md, section 7)."""

from __future__ import annotations

from crmarena_tui.graders.base import Grade, Judge, judge_name
from crmarena_tui.graders.extract import extract_items
from crmarena_tui.graders.llm_extract import extraction_prompt, parse_judge_list
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


def grade_exact_match(task: Task, answer: str, judge: Judge | None = None) -> Grade:
    """Reward 1 when the answer (stripped, or its extracted items, sorted) equals the ground truth."""
    gold = task.gold
    metrics: dict[str, float | str | bool] = {"gold_count": len(gold)}
    if len(gold) == 1:
        stripped = strip_answer(answer)
        if stripped == gold[0]:
            metrics["strip_match"] = True
            return Grade(
                answer=answer,
                parsed_answer=[stripped],
                reward=1.0,
                metrics=metrics,
                grader="exact_match",
                extraction="strip",
            )
        metrics["strip_match"] = False

    kind = answer_kind(task.task)
    parsed: list[str] | None = None
    judge_model = judge_raw = None
    extraction = "deterministic"
    if judge is not None:
        judge_model = judge_name(judge)
        try:
            judge_raw = judge(extraction_prompt(kind, answer, task.query))
            parsed = parse_judge_list(str(judge_raw))
            extraction = "llm"
        except Exception as exc:  # any judge failure falls back; grading never crashes
            judge_raw = f"error: {type(exc).__name__}: {exc}"
            metrics["judge_error"] = judge_raw
    if parsed is None:
        parsed = extract_items(answer, kind, task.task)
    metrics["extracted_count"] = len(parsed)
    reward = 1.0 if sorted(parsed) == sorted(gold) else 0.0
    return Grade(
        answer=answer,
        parsed_answer=parsed,
        reward=reward,
        metrics=metrics,
        grader="exact_match",
        extraction=extraction,
        judge_model=judge_model,
        judge_raw=None if judge_raw is None else str(judge_raw),
    )
