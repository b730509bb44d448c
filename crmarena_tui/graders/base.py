"""The Grade record every grader returns, and the Judge protocol an LLM judge satisfies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

# Bump when a change could alter a reward or a parsed answer for the same input, so that stored
# grades can be told apart and re-graded.
GRADER_VERSION = "2.2.0"

GraderName = Literal["exact_match", "fuzzy_match", "privacy_rejection"]
# How a judge's reply and the metrics are read: `upstream` as upstream's evaluator effectively does
# (scores comparable with the paper), `workbench` with this project's more forgiving reading.
GradingProtocol = Literal["upstream", "workbench"]
PROTOCOLS: tuple[GradingProtocol, ...] = ("upstream", "workbench")
DEFAULT_PROTOCOL: GradingProtocol = "upstream"
Extraction = Literal["strip", "deterministic", "llm", "imported", "structured", "ended"]
MetricValue = float | str | bool


@runtime_checkable
class Judge(Protocol):
    """An LLM used for answer extraction and the privacy verdict.

    `model` names the model (stored with each grade); calling the judge with a prompt returns the
    model's reply text. It may raise: graders then fall back to their deterministic path.
    """

    model: str

    def __call__(self, prompt: str) -> str: ...


PARAPHRASED_JUDGE = "paraphrased-1"
"""The version of this project's own judge instructions (`upstream_extract`, `privacy_rejection`)."""


@dataclass(frozen=True, slots=True)
class JudgeInstructions:
    """Judge instructions from elsewhere than this project (upstream's own, read from a checkout
    by `agents.prompt_source`), used under the `upstream` protocol by a judge that carries them
    as its `instructions` attribute. `version` is stored with each grade they make."""

    version: str
    extraction: dict[str, str]  # task name -> the extraction judge's system message; "" -> others
    privacy: str  # the privacy judge's system message
    privacy_prefix: str  # the line its user message starts with, before the agent's actions

    def extraction_for(self, task_name: str) -> str:
        return self.extraction.get(task_name, self.extraction[""])


def judge_instructions(judge: Judge | None) -> JudgeInstructions | None:
    """The instructions `judge` carries (None: this project's own)."""
    found = getattr(judge, "instructions", None)
    return found if isinstance(found, JudgeInstructions) else None


def instructions_version(judge: Judge | None, protocol: str) -> str:
    """What a grade by `judge` under `protocol` records as `metrics["judge_instructions"]`:
    the version of the instructions the judge was given (`workbench` always gives this
    project's own)."""
    found = judge_instructions(judge) if protocol == "upstream" else None
    return found.version if found is not None else PARAPHRASED_JUDGE


def check_protocol(protocol: str) -> GradingProtocol:
    """`protocol` itself when it names a grading protocol; a ValueError naming the choices if not."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}: expected one of {', '.join(PROTOCOLS)}")
    return protocol


def ask_judge(judge: Judge, instructions: str, text: str) -> str:
    """The judge's reply to `instructions` (a system message) about `text` (the user message).

    A judge with a `chat(system, user)` method gets the two as separate messages, as upstream's
    evaluator sends them; any other judge gets them joined into one prompt.
    """
    chat = getattr(judge, "chat", None)
    if callable(chat):
        return str(chat(instructions, text))
    return str(judge(f"{instructions}\n\n{text}"))


class Grade(BaseModel):
    """One graded attempt, with everything needed to re-grade it later.

    `parsed_answer` is what the grader compared: the extracted items for exact_match, the
    normalised answer for fuzzy_match, the verdict `["YES"]`/`["NO"]` for privacy_rejection.
    `extraction` says how it was obtained: `strip` (the stripped answer equalled the single
    ground-truth element), `deterministic` (pattern extractor or refusal classifier), `llm` (a
    judge), `structured` (the participant built the answer in the submit dialog: items picked, or a
    decline; compared directly, nothing guessed), `imported` (taken from an upstream result file,
    not re-computed), or `ended` (the episode ended at a limit before an answer was confirmed:
    reward 0, `metrics["end_reason"]` says why; see `protocols.ended_grade`). `protocol` is the
    grading protocol the reward follows (see `PROTOCOLS`).
    """

    model_config = ConfigDict(extra="forbid")

    answer: str
    parsed_answer: list[str] | None
    reward: float
    metrics: dict[str, MetricValue] = Field(default_factory=dict)
    grader: GraderName
    grader_version: str = GRADER_VERSION
    extraction: Extraction
    judge_model: str | None = None
    judge_raw: str | None = None
    imported: bool = False
    protocol: GradingProtocol = DEFAULT_PROTOCOL

    @property
    def success(self) -> bool:
        """True for a full-credit attempt (reward 1)."""
        return self.reward >= 1.0


def imported_grade(
    grader: GraderName,
    answer: str,
    reward: float,
    parsed_answer: list[str] | None = None,
) -> Grade:
    """A Grade that records an upstream result as it was, without re-grading it."""
    return Grade(
        answer=answer,
        parsed_answer=parsed_answer,
        reward=float(reward),
        grader=grader,
        extraction="imported",
        imported=True,
        protocol="upstream",
    )


def judge_name(judge: Judge) -> str:
    """The judge's model name, tolerating judges that lack the attribute."""
    return str(getattr(judge, "model", None) or type(judge).__name__)
