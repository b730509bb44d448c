"""What a model sends back: `Completion` (its text, tool calls and accounting) and `ToolCall`, and
how a provider's response (litellm's) is read into them: a reply with no message is malformed,
an unknown or non-finite price is unknown (None), and a lone surrogate a provider sent (an escape
no UTF-8 file or database can hold) becomes U+FFFD, in the text and in tool arguments.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from crmarena_tui.llm.errors import MalformedReply

Message = dict[str, Any]


@dataclass(slots=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]
    raw_arguments: str = ""
    error: str | None = None  # set when the arguments were not a JSON object

    def to_message(self) -> dict[str, Any]:
        args = self.raw_arguments or json.dumps(self.arguments)
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": args},
        }


@dataclass(slots=True)
class Completion:
    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None  # USD; None when the provider's price is unknown
    latency_ms: float = 0.0
    raw: Any = None
    model: str = ""
    attempts: int = 1

    def usage(self) -> dict[str, Any]:
        """The accounting an agent records as a `usage` event."""
        return {
            "model": self.model,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
            "cost": self.cost,
            "latency_ms": round(self.latency_ms, 1),
            "attempts": self.attempts,
        }

    def assistant_message(self) -> Message:
        msg: Message = {"role": "assistant", "content": self.text}
        if self.tool_calls:
            msg["tool_calls"] = [c.to_message() for c in self.tool_calls]
        return msg


def completion_from_response(response: Any, litellm: Any, latency_ms: float) -> Completion:
    try:
        choice = response.choices[0]
        message = choice.message
    except (AttributeError, IndexError, TypeError) as exc:
        raise MalformedReply(f"reply has no message: {str(response)[:200]}") from exc
    text = getattr(message, "content", None) or ""
    calls = [_tool_call(c) for c in (getattr(message, "tool_calls", None) or [])]
    if not isinstance(text, str):
        raise MalformedReply("reply content is not text")
    text = valid_text(text)
    usage = getattr(response, "usage", None)
    cost = (getattr(response, "_hidden_params", None) or {}).get("response_cost")
    if cost is None:
        try:
            cost = float(litellm.completion_cost(completion_response=response))
        except Exception:  # noqa: BLE001 - unknown price: cost stays unknown
            cost = None
    if cost is not None and not math.isfinite(cost):
        cost = None  # (not a price: unknown, as for an unknown model)
    return Completion(
        text=text,
        tool_calls=calls,
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        cost=cost,
        latency_ms=latency_ms,
        raw=response,
        model=str(getattr(response, "model", "") or ""),
    )


def valid_text(text: str) -> str:
    """`text` with each lone surrogate (a `\\ud800` escape a provider sent, which no UTF-8
    file or database can hold) replaced by U+FFFD; a surrogate pair becomes its character."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def _valid_arguments(args: Any) -> Any:
    """Parsed tool arguments with `valid_text` applied to every text in them."""
    dumped = json.dumps(args, ensure_ascii=False)
    cleaned = valid_text(dumped)
    return args if cleaned is dumped else json.loads(cleaned)


def _tool_call(call: Any) -> ToolCall:
    fn = getattr(call, "function", None)
    name = valid_text(str(getattr(fn, "name", "") or ""))
    raw = getattr(fn, "arguments", "") or ""
    error = None
    try:
        args = _valid_arguments(json.loads(raw)) if raw else {}
        if not isinstance(args, dict):
            args, error = {}, "arguments are not a JSON object"
    except json.JSONDecodeError as exc:
        args, error = {}, f"arguments are not valid JSON: {exc.msg}"
    return ToolCall(
        id=str(getattr(call, "id", "") or name),
        name=name,
        arguments=args,
        raw_arguments=raw,
        error=error,
    )
