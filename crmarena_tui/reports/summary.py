"""The whole report as JSON-ready data: what `crmarena-tui report` prints and the report screen shows."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crmarena_tui.reports.agreement import all_agreements
from crmarena_tui.reports.attempts import FUZZY_THRESHOLD, load_attempts
from crmarena_tui.reports.labels import label_counts
from crmarena_tui.reports.success import overall, success_by_skill, success_by_task_type
from crmarena_tui.reports.timing import human_time
from crmarena_tui.reports.versus import head_to_head

if TYPE_CHECKING:
    from crmarena_tui.storage import Store


def build_report(store: Store, fuzzy_threshold: float = FUZZY_THRESHOLD) -> dict[str, Any]:
    """Every section of the report, computed from the store's graded sessions and annotations."""
    attempts = load_attempts(store)
    annotations = store.annotations()
    return {
        "win_rule": {
            "exact_match": "reward >= 1",
            "privacy_rejection": "reward >= 1",
            "fuzzy_match": f"F1 >= {fuzzy_threshold}",
        },
        "graded_sessions": len(attempts),
        "overall": [c.row() for c in overall(attempts, fuzzy_threshold)],
        "by_task_type": [c.row() for c in success_by_task_type(attempts, fuzzy_threshold)],
        "by_skill": [c.row() for c in success_by_skill(attempts, fuzzy_threshold)],
        "human_time": [s.row() for s in human_time(attempts)],
        "human_vs_agent": [h.row() for h in head_to_head(attempts, fuzzy_threshold)],
        "labels": label_counts(annotations, store.sessions(), store.participants()),
        "agreement": [a.row() for a in all_agreements(annotations)],
    }
