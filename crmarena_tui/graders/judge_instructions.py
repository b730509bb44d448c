"""Where the judge's instructions come from, and the version each judged grade stores.

Under `upstream` the judge is given a system message per answer kind (`upstream_extract`) and one
for the privacy verdict (`privacy_rejection`): by default the project's paraphrase of upstream's
instructions (`paraphrased()`, version `upstream_extract.PARAPHRASED_INSTRUCTIONS`). Another source
(upstream's own words read from a checkout, say) is a `JudgeInstructions` with its own version
(`upstream@<hash>`) carried by the judge as its `instructions` attribute: `instructions_of` finds
it. Under `workbench` the prompts are the project's own (`llm_extract`, `privacy_rejection`),
version `llm_extract.WORKBENCH_INSTRUCTIONS`, whatever the judge carries.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any


@dataclass(frozen=True, slots=True)
class JudgeInstructions:
    """One source of the `upstream` judge's system messages: `extraction(kind)` for an answer of
    `kind` (`id`, `ids`, `state`, `month`, `bant`, `stage`), `privacy` for the privacy verdict;
    `version` is stored with every grade they produce."""

    version: str
    extraction: Callable[[str], str]
    privacy: str


@cache
def paraphrased() -> JudgeInstructions:
    """The project's own words for upstream's judge instructions (the default source)."""
    from crmarena_tui.graders.privacy_rejection import UPSTREAM_PRIVACY_INSTRUCTIONS
    from crmarena_tui.graders.upstream_extract import (
        PARAPHRASED_INSTRUCTIONS,
        upstream_instructions,
    )

    return JudgeInstructions(
        PARAPHRASED_INSTRUCTIONS, upstream_instructions, UPSTREAM_PRIVACY_INSTRUCTIONS
    )


def instructions_of(judge: Any) -> JudgeInstructions:
    """The instructions source `judge` carries (its `instructions`), else `paraphrased()`."""
    carried = getattr(judge, "instructions", None)
    return carried if isinstance(carried, JudgeInstructions) else paraphrased()
