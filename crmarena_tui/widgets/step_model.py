"""How the viewer shows a `model_turn` step: an outside agent's model call through the model
proxy (agents/model_proxy.py): the messages the request added, the reply and its tool calls."""

from __future__ import annotations

import json
from typing import Any

from rich.console import RenderableType
from rich.text import Text

MESSAGE_CHARS = 2_000  # of each message shown in the step's detail


def turn_summary(payload: dict[str, Any]) -> str:
    """One line: the model, then its reply's text or the tools it called."""
    model = payload.get("model") or "model"
    text = payload.get("text")
    calls = payload.get("tool_calls")
    if isinstance(text, str) and text.strip():
        said = " ".join(text.split())
    elif isinstance(calls, list) and calls:
        said = "calls " + ", ".join(str(c) for c in calls)
    else:
        said = "(empty reply)"
    return f"{model}: {said}"


def turn_body(payload: dict[str, Any]) -> list[RenderableType]:
    """The request's new messages, then the reply (its text and tool calls)."""
    parts: list[RenderableType] = []
    earlier = payload.get("earlier")
    head = f"Model call · {payload.get('model') or '?'}"
    latency = payload.get("latency_ms")
    if isinstance(latency, int | float):
        head += f" · {latency:,.0f} ms"
    parts.append(Text(head, style="bold"))
    if isinstance(earlier, int) and earlier:
        parts.append(Text(f"(the {earlier} messages of the previous model call first)", "dim"))
    for message in payload.get("messages") or []:
        parts.append(_message(message, "dim"))
    reply = payload.get("reply")
    if isinstance(reply, dict):
        parts.append(Text("reply:", style="bold"))
        parts.append(_message(reply, ""))
    return parts


def _message(message: Any, style: str) -> Text:
    if not isinstance(message, dict):
        return Text(_clip(str(message)), style=style)
    role = str(message.get("role") or "?")
    content = message.get("content")
    if not isinstance(content, str):
        content = json.dumps(content, ensure_ascii=False) if content else ""
    lines = [content] if content else []
    for call in message.get("tool_calls") or []:
        fn = call.get("function") if isinstance(call, dict) else None
        if isinstance(fn, dict):
            lines.append(f"→ {fn.get('name')}({fn.get('arguments') or ''})")
    return Text.assemble((f"{role}: ", "bold"), (_clip("\n".join(lines)), style))


def _clip(text: str) -> str:
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS] + " …"
