"""fuzzy_match: token-overlap F1 between the normalised answer and ground truth (docs/ARCHITECTURE.md, section 7)."""

from __future__ import annotations

from crmarena_tui.graders.base import Grade
from crmarena_tui.graders.text_metrics import all_metrics, normalize_answer
from crmarena_tui.tasks.model import Task


def grade_fuzzy_match(task: Task, answer: str) -> Grade:
    """Reward is the F1 of shared normalised tokens; BLEU, ROUGE and exact match go in metrics.

    A ground truth of several elements is read as one comma-separated text.
    """
    gold = ", ".join(task.gold)
    metrics = all_metrics(answer, gold)
    return Grade(
        answer=answer,
        parsed_answer=[normalize_answer(answer)],
        reward=float(metrics["f1"]),
        metrics=dict(metrics),
        grader="fuzzy_match",
        extraction="deterministic",
    )
