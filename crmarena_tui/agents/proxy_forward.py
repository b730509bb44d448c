"""How the model proxy (agents/model_proxy.py) calls the model a request names: an OpenAI-compatible
base is sent the request as written (`Passthrough`), any other provider is called through litellm
(`Forward`); both under `LLMClient`'s retry loop and error kinds."""

from __future__ import annotations

import json
import os
import time
from typing import Any

from crmarena_tui.llm.client import (
    DEFAULT_OPTIONS,
    CallOptions,
    Completion,
    LLMClient,
    Message,
    ToolCall,
)
from crmarena_tui.llm.errors import MalformedReply, ProviderError

# request fields the proxy sets itself or that litellm must not be handed twice
OWN_FIELDS = frozenset(
    {"model", "messages", "stream", "stream_options", "api_base", "base_url", "api_key"}
)


class Forward(LLMClient):
    """One request, forwarded as the agent wrote it (its tools, temperature, ...)."""

    def __init__(self, model: str, body: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(model, **kwargs)
        self.body = body

    def _call_once(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]] | None,
        options: CallOptions = DEFAULT_OPTIONS,
    ) -> Completion:
        from crmarena_tui.llm.client import litellm_module
        from crmarena_tui.llm.replies import completion_from_response

        litellm = litellm_module()
        kwargs = {k: v for k, v in self.body.items() if k not in OWN_FIELDS}
        kwargs.update(model=self.model, messages=messages, timeout=self.timeout, max_retries=0)
        kwargs.update(num_retries=0, drop_params=True)
        if self.api_base:
            kwargs["api_base"] = self.api_base
        key = self._resolve_key()
        if key is not None:
            kwargs["api_key"] = key
        started = time.perf_counter()
        response = litellm.completion(**kwargs)
        return completion_from_response(response, litellm, (time.perf_counter() - started) * 1e3)


class _HTTPStatus(Exception):  # noqa: N818 - classified by its status, as litellm's are
    def __init__(self, status_code: int, message: str) -> None:
        super().__init__(message)
        self.status_code = status_code


class Passthrough(Forward):
    """An OpenAI-compatible `api_base` is sent the request as the agent wrote it (over one
    pooled HTTP client), without litellm's per-call work: the price still comes from litellm's
    cost map. The retry loop and error kinds are `LLMClient`'s; the call's deadline is kept
    by reading the reply in chunks on the caller's thread (no thread of its own a call: it
    cost the proxy a millisecond and more on a loaded machine)."""

    http: Any = None  # an httpx.Client, shared (set by ModelProxy)

    def _within_deadline(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]] | None,
        options: CallOptions,
    ) -> Completion:
        return self._call_once(messages, tools, options)

    def _call_once(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]] | None,
        options: CallOptions = DEFAULT_OPTIONS,
    ) -> Completion:
        body = {k: v for k, v in self.body.items() if k not in OWN_FIELDS}
        body.update(model=self.model.removeprefix("openai/"), messages=messages)
        key = self._resolve_key() or os.environ.get("OPENAI_API_KEY")  # as litellm would send
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        url = f"{(self.api_base or '').rstrip('/')}/chat/completions"
        started = time.perf_counter()
        give_up = started + self.deadline
        with self.http.stream(
            "POST", url, json=body, headers=headers, timeout=self.timeout
        ) as response:
            chunks = []
            for chunk in response.iter_bytes():  # each read within the timeout
                chunks.append(chunk)
                if time.perf_counter() > give_up:
                    raise ProviderError(
                        "timeout",
                        f"no whole reply within the call's deadline of {self.deadline:g} s",
                    )
        latency = (time.perf_counter() - started) * 1e3
        raw = b"".join(chunks)
        if response.status_code >= 400:
            raise _HTTPStatus(response.status_code, _error_text(response.status_code, raw))
        try:
            data = json.loads(raw)
        except ValueError as exc:
            raise MalformedReply(f"reply is not JSON: {raw[:200]!r}") from exc
        try:
            message = data["choices"][0]["message"]
        except (KeyError, IndexError, TypeError) as exc:
            raise MalformedReply(f"reply has no message: {str(data)[:200]}") from exc
        usage = data.get("usage") or {}
        prompt, completion = (
            int(usage.get("prompt_tokens") or 0),
            int(usage.get("completion_tokens") or 0),
        )
        return Completion(
            text=message.get("content") or "",
            tool_calls=[_call_of(c) for c in message.get("tool_calls") or []],
            prompt_tokens=prompt,
            completion_tokens=completion,
            cost=_price(self.model, prompt, completion),
            latency_ms=latency,
            raw=data,
            model=str(data.get("model") or ""),
        )


def _error_text(status: int, raw: bytes) -> str:
    text = raw.decode("utf-8", errors="replace")
    try:
        found = json.loads(text).get("error")
        message = found.get("message") if isinstance(found, dict) else found
        return str(message or text or f"HTTP {status}")[:500]
    except (ValueError, AttributeError):
        return (text or f"HTTP {status}")[:500]


def _call_of(call: dict[str, Any]) -> ToolCall:
    fn = call.get("function") or {}
    raw = fn.get("arguments") or ""
    try:
        args = json.loads(raw) if raw else {}
    except json.JSONDecodeError:
        args = {}
    return ToolCall(
        id=str(call.get("id") or ""),
        name=str(fn.get("name") or ""),
        arguments=args if isinstance(args, dict) else {},
        raw_arguments=raw,
    )


def _price(model: str, prompt: int, completion: int) -> float | None:
    """The price from litellm's bundled map (read as a file: llm/prices.py, as `report_usage`
    prices), else from litellm's live map (a model registered there)."""
    from crmarena_tui.llm import prices
    from crmarena_tui.llm.client import litellm_module

    known = prices.cost(model, prompt, completion)
    if known is not None:
        return known
    try:
        pair = litellm_module().cost_per_token(
            model=model, prompt_tokens=prompt, completion_tokens=completion
        )
        return float(sum(pair))
    except Exception:  # noqa: BLE001 - an unknown model's price stays unknown
        return None


def passes_through(model: str, api_base: str | None) -> bool:
    """Whether a request for `model` goes straight to `api_base` (an OpenAI-compatible server:
    a model named `openai/...` or with no provider prefix), not through litellm."""
    return bool(api_base) and ("/" not in model or model.startswith("openai/"))
