"""What an agent does and sees under the `upstream` protocol, fact by fact, as upstream's code does
it (SalesforceAIResearch/CRMArena at 32b609a: `crm_sandbox/agents/chat_agent.py`,
`crm_sandbox/env/connect_sandbox.py`, `crm_sandbox/env/env.py`); docs/ARCHITECTURE.md, "Benchmark rules the code reproduces".

- A reply's action: `<execute>…</execute>` is looked for first, anywhere in the reply, then
  `<respond>…</respond>`; both need their closing tag and are case-sensitive; an action whose
  content is blank counts as absent (`parse_reply`).
- A statement is SOSL only when it starts with exactly `FIND`; a SOQL statement in a code fence is
  taken from the first fence, with its white space collapsed (`statement`).
- The model sees Python's repr of the records list as simple-salesforce 1.12.6 (upstream's pin)
  returns it: JSON objects decoded as `OrderedDict`, the top-level records rebuilt as plain dicts
  without `attributes` and without the keys (of the first record) that are null in every record;
  nested parents keep their `attributes`, child subqueries keep `{totalSize, done, records}`;
  `COUNT()` shows `[]` (`observation`). OrderedDicts print as Python 3.10 printed them
  (`OrderedDict([('k', v)])`): upstream's pinned packages include the `exceptiongroup` back-port,
  installed only below Python 3.11.
- Model requests: `max_tokens` 2000, or 50,000 for reasoning models; o1, o3-mini and deepseek-r1
  get no temperature; for o1, o3-mini, deepseek-r1 and gemini-2.5-flash the system prompt is sent
  inside the first user message; gemini-2.5-flash runs with thinking off (`ModelRules`). Upstream
  also sent `top_p=1.0`, its providers' default: it is left out here, since some providers refuse
  a temperature and a `top_p` together.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from crmarena_tui.llm.client import CallOptions
from crmarena_tui.orgs.base import QueryResult

UPSTREAM_USER_MODEL = "gpt-4o-2024-08-06"
"""The model upstream's interactive runs used to play the user (and to judge)."""
SEEN_API_VERSION = "v59.0"  # simple-salesforce 1.12.6's default API version, in records' urls

_EXECUTE = re.compile(r"<execute>(.*?)</execute>", re.S)
_RESPOND = re.compile(r"<respond>(.*?)</respond>", re.S)
_FENCE = re.compile(r"```(?:sql|SQL|soql|SOQL)?(.+?)```", re.S)
_API_URL = re.compile(r"^/services/data/v[0-9.]+/")


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


class ConnectorCrash(RuntimeError):
    """Upstream's connector raised on this result (a search whose first record has a field that
    another record lacks): the run ended there, with reward 0."""


def observation(result: QueryResult) -> str:
    """What upstream's agent was shown of `result` (after "Salesforce instance output: ").

    Raises `ConnectorCrash` where upstream's connector raised."""
    if result.error:
        return result.error
    records = [dict(r) for r in result.records]
    if not records:
        return "[]"
    for record in records:
        record.pop("attributes", None)
    try:  # every record is looked at for every key (upstream built the whole list first)
        null = {k for k in records[0] if all([r[k] is None for r in records])}  # noqa: C419
    except KeyError as exc:
        raise ConnectorCrash(f"KeyError: {exc}") from None
    shown = [{k: v for k, v in r.items() if k not in null} for r in records]
    return "[" + ", ".join(_py_repr(r, ordered=False) for r in shown) + "]"


def _py_repr(value: Any, *, ordered: bool = True) -> str:
    """Python 3.10's repr, with every JSON object decoded as an OrderedDict (`ordered`) except the
    top-level records, which upstream rebuilt as plain dicts."""
    if isinstance(value, dict):
        if isinstance(value.get("attributes"), dict):
            value = {**value, "attributes": _seen_attributes(value["attributes"])}
        if not ordered:
            return "{" + ", ".join(f"{k!r}: {_py_repr(v)}" for k, v in value.items()) + "}"
        if not value:
            return "OrderedDict()"
        pairs = ", ".join(f"({k!r}, {_py_repr(v)})" for k, v in value.items())
        return f"OrderedDict([{pairs}])"
    if isinstance(value, list):
        return "[" + ", ".join(_py_repr(v) for v in value) + "]"
    return repr(value)


def _seen_attributes(attributes: dict[str, Any]) -> dict[str, Any]:
    """A nested record's `attributes`, its url on the API version upstream's client called."""
    url = attributes.get("url")
    if not isinstance(url, str):
        return attributes
    return {**attributes, "url": _API_URL.sub(f"/services/data/{SEEN_API_VERSION}/", url)}


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
