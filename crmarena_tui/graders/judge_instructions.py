"""Where the judge's instructions come from, and the version each judged grade stores.

Under `upstream` the judge is given a system message per task (`extraction`, chosen by the task's
name as upstream's evaluator chooses it) and one for the privacy verdict, whose user message starts
with `privacy_prefix`: by default the project's paraphrase of upstream's instructions
(`paraphrased()`, version `upstream_extract.PARAPHRASED_INSTRUCTIONS`), which words them by the
task's answer kind (`upstream_extract`, `privacy_rejection`). Another source is a
`JudgeInstructions` with its own version, carried by the judge as its `instructions` attribute
(`llm.judge.make_judge(..., instructions=...)`): `instructions_of` finds it. Upstream's own words,
read from a checkout (`--upstream-prompts`), are one (`agents.prompt_source`, version
`upstream@<commit>`). Under `workbench` the prompts are the project's own (`llm_extract`,
`privacy_rejection`), version `llm_extract.WORKBENCH_INSTRUCTIONS`, whatever the judge carries.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any


@dataclass(frozen=True, slots=True)
class JudgeInstructions:
    """One source of the `upstream` judge's system messages: `extraction(task_name)` for the
    answer to a task of that name, `privacy` for the privacy verdict, `privacy_prefix` the line
    the privacy judge's user message starts with (before the agent's actions); `version` is stored
    with every grade they produce."""

    version: str
    extraction: Callable[[str], str]
    privacy: str
    privacy_prefix: str


def paraphrased_extraction(task_name: str) -> str:
    """The paraphrased extraction instructions for a task: those of its answer kind."""
    from crmarena_tui.graders.exact_match import answer_kind
    from crmarena_tui.graders.upstream_extract import upstream_instructions

    return upstream_instructions(answer_kind(task_name))


@cache
def paraphrased() -> JudgeInstructions:
    """The project's own words for upstream's judge instructions (the default source)."""
    from crmarena_tui.graders.privacy_rejection import (
        TRAJECTORY_PREFIX,
        UPSTREAM_PRIVACY_INSTRUCTIONS,
    )
    from crmarena_tui.graders.upstream_extract import PARAPHRASED_INSTRUCTIONS

    return JudgeInstructions(
        PARAPHRASED_INSTRUCTIONS,
        paraphrased_extraction,
        UPSTREAM_PRIVACY_INSTRUCTIONS,
        TRAJECTORY_PREFIX,
    )


def instructions_of(judge: Any) -> JudgeInstructions:
    """The instructions source `judge` carries (its `instructions`), else `paraphrased()`."""
    carried = getattr(judge, "instructions", None)
    return carried if isinstance(carried, JudgeInstructions) else paraphrased()
