"""`LLMJudge`: the model the graders ask for answer extraction and the privacy verdict, and the
temperature each grading protocol calls it with (docs/grading.md, "Grading under `upstream`")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crmarena_tui.llm.client import CallOptions, LLMClient, make_client

if TYPE_CHECKING:
    from crmarena_tui.settings.config import Settings

# The temperature a judge is called with under each protocol when no `judge_temperature` is set:
# upstream's evaluator sent none (the provider's default applies); this project's workbench reading
# asks for 0, the most repeatable reply.
PROTOCOL_JUDGE_TEMPERATURE: dict[str, float | None] = {"upstream": None, "workbench": 0.0}


class LLMJudge:
    """A `Judge` for the graders: `judge(prompt) -> reply text`, keeping its model name.

    `temperature` is what each call sends (None: no temperature in the request, the provider's
    default). `setting` is the `judge_temperature` setting it was made with (None: each protocol's
    own, `PROTOCOL_JUDGE_TEMPERATURE`); `for_protocol` gives the judge a protocol calls.
    `instructions` is the source of its `upstream` instructions (a
    `graders.judge_instructions.JudgeInstructions`; None: the project's paraphrase). The graders
    store `model`, `temperature` and the version of the instructions with each grade."""

    def __init__(
        self,
        client: LLMClient,
        temperature: float | None = 0.0,
        *,
        setting: float | None = None,
        instructions: Any = None,
    ) -> None:
        self.client = client
        self.model = client.model
        self.temperature = temperature
        self.setting = setting
        self.instructions = instructions

    def for_protocol(self, protocol: str) -> LLMJudge:
        """This judge as `protocol` calls it: the setting's temperature, else the protocol's."""
        chosen = self.setting if self.setting is not None else PROTOCOL_JUDGE_TEMPERATURE[protocol]
        if chosen == self.temperature:
            return self
        return LLMJudge(self.client, chosen, setting=self.setting, instructions=self.instructions)

    def _options(self) -> CallOptions:
        return CallOptions(
            send_temperature=self.temperature is not None, temperature=self.temperature
        )

    def __call__(self, prompt: str) -> str:
        messages = [{"role": "user", "content": prompt}]
        return self.client.complete(messages, options=self._options()).text

    def chat(self, system: str, user: str) -> str:
        """The reply to instructions sent as a system message and a text sent as the user's
        (how upstream's evaluator asks its judge: see `graders.base.ask_judge`)."""
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        return self.client.complete(messages, options=self._options()).text


def make_judge(
    model: str,
    api_base: str | None = None,
    *,
    settings: Settings | None = None,
    temperature: float | None = None,
    instructions: Any = None,
    **kwargs: Any,
) -> LLMJudge:
    """The judge model the graders use for answer extraction and privacy rejection; `temperature`
    (else `settings.judge_temperature`) is sent under every protocol, else each protocol's own;
    `instructions` (a `JudgeInstructions`) replaces the paraphrased `upstream` instructions."""
    if temperature is None and settings is not None:
        temperature = settings.judge_temperature
    client = make_client(model, api_base=api_base, settings=settings, **kwargs)
    chosen = PROTOCOL_JUDGE_TEMPERATURE["workbench"] if temperature is None else temperature
    return LLMJudge(client, chosen, setting=temperature, instructions=instructions)
