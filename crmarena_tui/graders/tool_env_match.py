"""exact_match as upstream's `ToolEnv` grades a tool-calling run on the original CRMArena org.

Upstream's tool-calling strategies (`tool_call`, `tool_call_flex`) run only on the original
CRMArena's single-turn tasks, in `crm_sandbox/env/env.py`'s `ToolEnv`, whose reward is not the
evaluator's: the `content` argument of the agent's `respond` call, exactly as the model wrote it
(not stripped, no quotes removed, no extraction, no judge), compared with `==` against the task's
answer (a null answer is the text "None"). So "005XX000001AbCdEAF" scores 1 and "The agent is
005XX000001AbCdEAF." or " 005XX000001AbCdEAF" score 0. Under `upstream` this project grades such a
session the same way (`tool_env_graded`); `workbench` reads the answer as for any other strategy.
"""

from __future__ import annotations

from crmarena_tui.graders.base import Grade, GradingProtocol, MetricValue
from crmarena_tui.tasks.model import Task

TOOL_STRATEGIES = frozenset({"tool_call", "tool_call_flex"})


def tool_env_graded(task: Task, strategy: object, protocol: GradingProtocol) -> bool:
    """True when upstream's `ToolEnv` would have graded this answer: the `upstream` protocol, a
    tool-calling strategy, an exact_match task of the original CRMArena."""
    return (
        protocol == "upstream"
        and strategy in TOOL_STRATEGIES
        and task.org_type == "original"
        and task.reward_metric == "exact_match"
    )


def grade_tool_env(task: Task, content: str) -> Grade:
    """Reward 1 when `content` (the respond's raw text) `==` the task's answer, else 0."""
    metrics: dict[str, MetricValue] = {"compared": "raw text =="}
    if len(task.answer) != 1:  # upstream compared the text with a list: never equal
        metrics["upstream_error"] = f"the task's answer has {len(task.answer)} items, not one text"
        reward = 0.0
    else:
        gold = "None" if task.answer[0] is None else task.answer[0]
        reward = 1.0 if content == gold else 0.0
    return Grade(
        answer=content,
        parsed_answer=[content],
        reward=reward,
        metrics=metrics,
        grader="exact_match",
        extraction="raw",
        protocol="upstream",
    )
