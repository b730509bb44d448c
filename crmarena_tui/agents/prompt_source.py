"""Where the `upstream` protocol's prompts come from: this project's paraphrase, or upstream's own.

A `PromptSource` gives every text the `upstream` protocol sends a model: the agent's system prompt,
the format correction, the simulated user's prompt and greeting, and the judges' instructions.
`PARAPHRASED` (the default) gives this project's own words (`prompts_upstream`,
`graders.upstream_extract`, `graders.privacy_rejection`). `upstream_source(path)` gives upstream's,
read as data from a checkout of its repository (`upstream_checkout`; `--upstream-prompts PATH`,
the `upstream_prompts` setting): the same code builds each request from either, and fills the
schema block and the task's context in the same way.

Each session records its source's `name` in its settings (`prompt_source`): `paraphrased`, or
`upstream@<commit>` (`upstream@sha256:<12 hex>` when the checkout has no `.git`). Sessions under
`workbench` use this project's own prompts, and record `paraphrased`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from crmarena_tui.agents import prompts_upstream
from crmarena_tui.agents.prompts import facing
from crmarena_tui.graders.judge_instructions import JudgeInstructions

if TYPE_CHECKING:
    from crmarena_tui.agents.upstream_checkout import UpstreamTexts
    from crmarena_tui.tasks.model import Task

PROMPT_SOURCE_KEY = "prompt_source"  # the session settings' key
PARAPHRASED_NAME = "paraphrased"
TOOL_STRATEGIES = ("tool_call", "tool_calling")


@dataclass(frozen=True, slots=True)
class PromptSource:
    """The texts of the `upstream` protocol; `texts` None: this project's paraphrase."""

    name: str
    texts: UpstreamTexts | None = None

    @property
    def upstream(self) -> bool:
        """True for upstream's own words (a checkout's)."""
        return self.texts is not None

    def covers(self, strategy: str) -> bool:
        """Whether this source has an agent system prompt for `strategy` (the paraphrase has
        one for ReAct only; tool calling then keeps this project's prompt)."""
        return strategy == "react" or (self.upstream and strategy in ("act", *TOOL_STRATEGIES))

    def system_prompt(
        self,
        task: Task,
        schema_rows: list[dict[str, object]],
        *,
        strategy: str = "react",
        interactive: bool = False,
        aided: bool = False,
        privacy_aware: bool = False,
    ) -> str:
        """The agent's system prompt for `task` (its ground truth is never read). Upstream's is
        chosen as its agents choose it: by strategy, then for ReAct by who the agent serves
        (customer-facing task types get the external prompt, the privacy-aware one when asked)
        and by single-turn or interactive play."""
        if self.texts is None:
            return prompts_upstream.system_prompt(
                task,
                schema_rows,
                interactive=interactive,
                aided=aided,
                privacy_aware=privacy_aware,
            )
        texts = self.texts
        template = texts.constants[_agent_prompt(task, strategy, interactive, privacy_aware)]
        schema = prompts_upstream.schema_text(schema_rows, texts.constants["SCHEMA_STRING"])
        prompt = template.format(system=texts.system, system_description=schema)
        return prompts_upstream.with_context(
            prompt,
            task,
            aided=aided,
            template=texts.constants["SYSTEM_METADATA"],
            system=texts.system,
        )

    def format_correction(self, strategy: str = "react") -> str:
        """The user message that answers a reply with no action."""
        if self.texts is None:
            return prompts_upstream.FORMAT_CORRECTION
        name = "ACT_RULE_STRING" if strategy == "act" else "REACT_RULE_STRING"
        return self.texts.constants[name]

    def user_prompt(self, task: Task) -> str:
        """The simulated user's system prompt: its persona and the hidden request."""
        if self.texts is None:
            return prompts_upstream.user_simulator_prompt(task)
        return self.texts.user_prompt(task.query, task.persona)

    @property
    def user_greeting(self) -> str:
        """The agent's greeting the simulated user answers with its opening."""
        return prompts_upstream.USER_GREETING if self.texts is None else self.texts.user_greeting

    def judge_instructions(self) -> JudgeInstructions | None:
        """Upstream's judge instructions, for the judge to carry (`make_judge(instructions=)`;
        grades record this source's `name` as their version); None: the paraphrase
        (`graders.judge_instructions.paraphrased`)."""
        if self.texts is None:
            return None
        texts = self.texts
        return JudgeInstructions(
            self.name, texts.extraction_for, texts.privacy, texts.privacy_prefix
        )


PARAPHRASED = PromptSource(PARAPHRASED_NAME)


def upstream_source(path: str | Path) -> PromptSource:
    """Upstream's own prompts from the checkout at `path`; raises `CheckoutProblem` (one line
    naming the file and the text sought) when one is missing or not understood."""
    from crmarena_tui.agents.upstream_checkout import read_checkout

    texts = read_checkout(path)
    return PromptSource(f"upstream@{texts.commit}", texts)


def source_for(checkout: Path | None, protocol: str) -> PromptSource:
    """The prompts of a session under `protocol`: upstream's own from `checkout` (the
    `upstream_prompts` setting; read once per process) under `upstream`, else the paraphrase
    (`workbench` has this project's own prompts)."""
    if checkout is None or protocol != "upstream":
        return PARAPHRASED
    return _read_once(Path(checkout).expanduser().resolve())


@functools.lru_cache(maxsize=4)
def _read_once(checkout: Path) -> PromptSource:
    return upstream_source(checkout)


def _agent_prompt(task: Task, strategy: str, interactive: bool, privacy_aware: bool) -> str:
    """The name of upstream's prompt constant for this agent (as its agents pick it)."""
    if strategy == "act":
        return "ACT_PROMPT"
    if strategy in TOOL_STRATEGIES:
        return "NATIVE_FC_PROMPT"
    if facing(task) != "external":
        who = "INTERNAL"
    else:
        who = "PRIVACY_AWARE_EXTERNAL" if privacy_aware else "EXTERNAL"
    return f"REACT_{who}{'_INTERACTIVE' if interactive else ''}_PROMPT"
