"""What an agent does and sees under the `upstream` protocol, fact by fact, as upstream's code does
it (SalesforceAIResearch/CRMArena at 32b609a: `crm_sandbox/agents/chat_agent.py`,
`crm_sandbox/env/connect_sandbox.py`, `crm_sandbox/env/env.py`); docs/ARCHITECTURE.md, "Benchmark rules the code reproduces".

- A reply's action: `<execute>…</execute>` is looked for first, anywhere in the reply, then
  `<respond>…</respond>`; both need their closing tag and are case-sensitive; an action whose
  content is blank counts as absent (`parse_reply`).
- A statement is SOSL only when it starts with exactly `FIND`; a SOQL statement in a code fence is
  taken from the first fence, with its white space collapsed (`statement`).
- The model sees Python's repr of the records list as upstream's connector printed it
  (`orgs/observation_text.py`, with `ConnectorCrash` where that connector raised: the Episode
  stores what the agent is shown, so the text lives below it).
- Model requests: `max_tokens` 2000, or 50,000 for reasoning models; o1, o3-mini and deepseek-r1
  get no temperature; for o1, o3-mini, deepseek-r1 and gemini-2.5-flash the system prompt is sent
  inside the first user message; gemini-2.5-flash runs with thinking off (`ModelRules`). Upstream
  also sent `top_p=1.0`, its providers' default: it is left out here, since some providers refuse
  a temperature and a `top_p` together.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from crmarena_tui.llm.client import CallOptions

UPSTREAM_USER_MODEL = "gpt-4o-2024-08-06"
"""The model upstream's interactive runs used to play the user (and to judge)."""

_EXECUTE = re.compile(r"<execute>(.*?)</execute>", re.S)
_RESPOND = re.compile(r"<respond>(.*?)</respond>", re.S)
_FENCE = re.compile(r"```(?:sql|SQL|soql|SOQL)?(.+?)```", re.S)


def action(reply: str) -> tuple[Literal["execute", "respond"] | None, str]:
    """(the action, its stripped content) of a model reply; (None, "") when it has none."""
    text = reply.strip()
    for kind, pattern in (("execute", _EXECUTE), ("respond", _RESPOND)):
        match = pattern.search(text)
        content = match.group(1).strip() if match else ""
        if content:
            return kind, content  # type: ignore[return-value]
    return None, ""


def statement(content: str) -> tuple[Literal["query", "search"], str]:
    """Where an `<execute>` content goes and the text sent: SOSL only when it starts with `FIND`
    (exactly); SOQL from the first code fence, if any, with its white space collapsed."""
    if content.startswith("FIND"):
        return "search", content
    fenced = _FENCE.search(content)
    return "query", (" ".join(fenced.group(1).split()) if fenced else content)


@dataclass(frozen=True, slots=True)
class ModelRules:
    """How upstream called one model: its request options, and whether the system prompt went
    inside the first user message."""

    options: CallOptions
    merge_system: bool


REPLY_TOKENS, REASONING_TOKENS = 2000, 50_000
# Model families as upstream named them (o1-mini, o1-preview, o1-2024-12-17, o3-mini-2025-01-31,
# deepseek-r1, gemini-2.5-flash-preview-04-17, gemini-2.5-pro-preview-03-25), matched on the name
# after the provider prefix so that `openai/o1` or `together_ai/deepseek-ai/DeepSeek-R1` count.
_NO_TEMPERATURE = ("o1", "o3-mini", "deepseek-r1")
_MERGED_SYSTEM = (*_NO_TEMPERATURE, "gemini-2.5-flash")
_REASONING = (*_MERGED_SYSTEM, "gemini-2.5-pro")


def _family(model: str, families: tuple[str, ...]) -> bool:
    name = model.rsplit("/", 1)[-1].lower()
    return any(name == f or name.startswith(f + "-") for f in families)


def model_rules(model: str) -> ModelRules:
    """The request options and prompt layout upstream used for `model`."""
    flash = _family(model, ("gemini-2.5-flash",))
    return ModelRules(
        options=CallOptions(
            max_tokens=REASONING_TOKENS if _family(model, _REASONING) else REPLY_TOKENS,
            send_temperature=not _family(model, _NO_TEMPERATURE),
            thinking={"type": "disabled", "budget_tokens": 0} if flash else None,
        ),
        merge_system=_family(model, _MERGED_SYSTEM),
    )
