"""The Grade record every grader returns, and the Judge protocol an LLM judge satisfies."""

from __future__ import annotations

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
Extraction = Literal["strip", "raw", "deterministic", "llm", "imported", "structured", "ended"]
MetricValue = float | str | bool | None


@runtime_checkable
class Judge(Protocol):
    """An LLM used for answer extraction and the privacy verdict.

    `model` names the model (stored with each grade); calling the judge with a prompt returns the
    model's reply text. It may raise: graders then fall back to their deterministic path.

    Optional parts the graders use when a judge has them: `for_protocol(protocol)` (the judge as
    that protocol calls it), `temperature` (what each call sends; None: none, the provider's
    default) and `instructions` (a `JudgeInstructions` source, see `judge_instructions.py`).
    """

    model: str

    def __call__(self, prompt: str) -> str: ...


def check_protocol(protocol: str) -> GradingProtocol:
    """`protocol` itself when it names a grading protocol; a ValueError naming the choices if not."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}: expected one of {', '.join(PROTOCOLS)}")
    return protocol


def judge_under(judge: Judge | None, protocol: GradingProtocol) -> Judge | None:
    """`judge` as `protocol` calls it: a judge with `for_protocol` (`llm.judge.LLMJudge`) sets
    its temperature by the protocol and the `judge_temperature` setting; any other is itself."""
    adapt = getattr(judge, "for_protocol", None)
    return adapt(protocol) if callable(adapt) else judge


def judge_facts(judge: Judge, instructions: str) -> dict[str, MetricValue]:
    """What a judged grade stores in its metrics besides the judge's model: `judge_instructions`
    (the version of the instructions it was given) and `judge_temperature` (the temperature sent;
    None for the provider's default) when the judge says which."""
    facts: dict[str, MetricValue] = {"judge_instructions": instructions}
    if hasattr(judge, "temperature"):
        temperature = judge.temperature
        facts["judge_temperature"] = None if temperature is None else float(temperature)
    return facts


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
    ground-truth element), `raw` (the respond's text as written compared with `==`, as upstream's
    `ToolEnv` grades tool calling on the original CRMArena: `tool_env_match`), `deterministic`
    (pattern extractor or refusal classifier), `llm` (a judge), `structured` (the participant built
    the answer in the submit dialog: items picked, or a decline; compared directly, nothing
    guessed), `imported` (taken from an upstream result file,
    not re-computed), or `ended` (the episode ended at a limit before an answer was confirmed:
    reward 0, `metrics["end_reason"]` says why; see `submission_grade.ended_grade`). `protocol` is the
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
