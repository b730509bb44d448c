"""fuzzy_match: token-overlap F1 between the normalised answer and ground truth (docs/ARCHITECTURE.md, "Benchmark rules the code reproduces").

Under `upstream`, the ground truth is its first element (`None` reads as "None") and ROUGE is
computed as upstream's `rouge` package does (`upstream_rouge`); an answer or ground truth with no
words after normalisation scores 0, as upstream's evaluation raised on it. Under `workbench`, a
ground truth of several elements is read as one comma-separated text and ROUGE follows
`rouge-score`. An answer that says it has none ("I don't know") is scored by its words like any
other, under both protocols, and its grade says `no_answer`.
"""

from __future__ import annotations

from crmarena_tui.graders.answer_context import is_non_answer
from crmarena_tui.graders.base import DEFAULT_PROTOCOL, Grade, GradingProtocol, MetricValue
from crmarena_tui.graders.text_metrics import (
    all_metrics,
    normalize_answer,
    sentence_bleu,
    token_f1,
)
from crmarena_tui.graders.upstream_rouge import EmptyText, rouge_l_distinct, rouge_n_distinct
from crmarena_tui.tasks.model import Task


def upstream_metrics(prediction: str, gold: str) -> dict[str, MetricValue]:
    """Every fuzzy_match figure as upstream computes it; `upstream_error` when it raised."""
    pred_norm, gold_norm = normalize_answer(prediction), normalize_answer(gold)
    pred, ref = pred_norm.split(), gold_norm.split()
    metrics: dict[str, MetricValue] = {
        "f1": token_f1(pred, ref),
        "exact_match": pred_norm == gold_norm,
        "bleu": sentence_bleu(pred, ref),
    }
    try:
        metrics["rouge1"] = rouge_n_distinct(pred, ref, 1)
        metrics["rouge2"] = rouge_n_distinct(pred, ref, 2)
        metrics["rougeL"] = rouge_l_distinct(pred, ref)
    except EmptyText as exc:
        metrics["upstream_error"] = f"ROUGE raised: {exc}"
    return metrics


def grade_fuzzy_match(
    task: Task, answer: str, protocol: GradingProtocol = DEFAULT_PROTOCOL
) -> Grade:
    """Reward is the F1 of shared normalised tokens; BLEU, ROUGE and exact match go in metrics."""
    if protocol == "upstream":
        if not task.answer:
            metrics: dict[str, MetricValue] = {"upstream_error": "the task has no ground truth"}
            reward = 0.0
        else:
            metrics = upstream_metrics(answer, task.gold[0])
            reward = 0.0 if "upstream_error" in metrics else float(metrics["f1"] or 0)
    else:
        metrics = dict(all_metrics(answer, ", ".join(task.gold)))
        reward = float(metrics["f1"] or 0)
    if is_non_answer(answer):  # "I don't know": scored by its words all the same
        metrics["no_answer"] = True
    return Grade(
        answer=answer,
        parsed_answer=[normalize_answer(answer)],
        reward=reward,
        metrics=metrics,
        grader="fuzzy_match",
        extraction="deterministic",
        protocol=protocol,
    )
