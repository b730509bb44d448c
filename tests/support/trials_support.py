"""Sessions with several trials per task, made straight in the store (issue 35): each
configuration's wins per task, trial by trial."""

from __future__ import annotations

from typing import Any

from crmarena_tui.graders.base import Grade
from crmarena_tui.storage import Store
from crmarena_tui.tasks.model import Task
from tests.support.spec_support import session_spec

TYPES = ("handle_time", "knowledge_qa", "lead_routing")


def task(idx: int, org_type: str = "b2b", interactive: bool = False) -> Task:
    return Task(
        idx=idx, task=TYPES[idx % 3], query=f"q{idx}", answer=["x"], reward_metric="exact_match",
        source=f"hf:{org_type}{'-chat' if interactive else ''}", org_type=org_type, interactive=interactive,
    )  # fmt: skip


def add_trials(
    store: Store,
    model: str,
    wins: dict[int, list[int | None]],
    *,
    org_type: str = "b2b",
    interactive: bool = False,
    protocol: str = "workbench",
    **fields: Any,
) -> None:
    """One session per trial of `model` (strategy react) on each task idx of `wins`: graded 1 or
    0, or left ungraded (None)."""
    who = store.participant("agent", f"{model}/react", model=model, settings={"strategy": "react"})
    settings = {"strategy": "react", **fields.pop("settings", {})}
    for idx, outcomes in wins.items():
        for trial, won in enumerate(outcomes, start=1):
            spec = session_spec(
                who, task(idx, org_type, interactive), settings=settings,
                trial=trial, protocol=protocol, **fields,
            )  # fmt: skip
            sid = store.create_session(spec, status="submitted").id
            if won is not None:
                store.add_grade(
                    sid,
                    Grade(answer="x", parsed_answer=["x"], reward=float(won), grader="exact_match",
                          extraction="strip", metrics={}, protocol=protocol),
                )  # fmt: skip
