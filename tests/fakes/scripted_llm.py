"""Scripted models for tests and benchmarks: no network, no litellm.

`ScriptedLLM` answers from a queue of replies (strings, `Completion`s, exceptions such as
`ScriptedFailure("rate_limit")`) or from a callable, through `LLMClient`'s retry loop, events and
accounting. Importing this module registers the `scripted/` provider: a model named
`scripted/<name>` (an agent, a user model, a judge, given anywhere a model name is) resolves to the
script registered with `register_script(name, factory)`.

Tests and benchmarks import it as `tests.fakes.scripted_llm` (benchmarks put the repository's
root on sys.path first).
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from crmarena_tui.llm.client import (
    DEFAULT_OPTIONS,
    CallOptions,
    Completion,
    LLMClient,
    LLMError,
    Message,
    ProviderError,
    ToolCall,
    register_provider,
)

SCRIPTED_PREFIX = "scripted/"


def tool_call(name: str, call_id: str | None = None, **arguments: Any) -> ToolCall:
    """A tool call for scripts: `tool_call("execute_soql", query="SELECT Id FROM Case")`."""
    raw = json.dumps(arguments)
    return ToolCall(
        id=call_id or f"call_{name}_{abs(hash(raw)) % 10**8}",
        name=name,
        arguments=arguments,
        raw_arguments=raw,
    )


Reply = str | Completion | BaseException
Responder = Callable[[list[Message], list[dict[str, Any]] | None], Reply]


class ScriptedFailure(ProviderError):
    """A failure a script injects: `ScriptedFailure("rate_limit" | "timeout" | "server" |
    "malformed" | "auth" | ...)`, classified like the real provider error of that kind."""


class ScriptExhausted(ProviderError):
    """The script has no reply left."""

    def __init__(self, message: str) -> None:
        super().__init__("script", message)


class ScriptedLLM(LLMClient):
    """Answers from a queue (or a callable) instead of a provider; retries and events as usual.

    Each queued item is a reply text, a ready `Completion`, or an exception to raise (use
    `ScriptedFailure("rate_limit" | "timeout" | "server" | "malformed" | ...)`). `calls` keeps
    every message list the model was shown (and `options_seen` the request options of each call),
    for tests that check what the agent revealed and asked for.
    """

    def __init__(
        self,
        replies: Iterable[Reply] | Responder = (),
        *,
        model: str = "scripted/queue",
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
        cost: float | None = 0.0,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("backoff_base", 0.0)
        super().__init__(model, **kwargs)
        self._responder: Responder | None = replies if callable(replies) else None
        self._queue: deque[Reply] = deque() if callable(replies) else deque(replies)
        self._lock = threading.Lock()
        self.calls: list[list[Message]] = []
        self.tools_seen: list[list[dict[str, Any]] | None] = []
        self.options_seen: list[CallOptions] = []
        self._tokens = (prompt_tokens, completion_tokens)
        self._cost = cost

    def push(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    @property
    def remaining(self) -> int:
        return len(self._queue)

    def _call_once(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]] | None,
        options: CallOptions = DEFAULT_OPTIONS,
    ) -> Completion:
        with self._lock:
            self.calls.append([dict(m) for m in messages])
            self.tools_seen.append(tools)
            self.options_seen.append(options)
            if self._responder is not None:
                item: Reply = self._responder(messages, tools)
            elif self._queue:
                item = self._queue.popleft()
            else:
                raise ScriptExhausted(f"{self.model}: no scripted reply left")
        if isinstance(item, BaseException):
            raise item
        if isinstance(item, Completion):
            return item
        prompt, completion = self._tokens
        return Completion(
            text=item,
            prompt_tokens=prompt,
            completion_tokens=completion,
            cost=self._cost,
            model=self.model,
        )


_SCRIPTS: dict[str, Callable[[], Iterable[Reply] | Responder]] = {}
_scripts_lock = threading.Lock()


def register_script(name: str, factory: Callable[[], Iterable[Reply] | Responder]) -> None:
    """Make `scripted/<name>` resolve to `ScriptedLLM(factory())` (a fresh script per client)."""
    with _scripts_lock:
        _SCRIPTS[name] = factory


def unregister_script(name: str) -> None:
    with _scripts_lock:
        _SCRIPTS.pop(name, None)


def scripted_client(model: str, **kwargs: Any) -> ScriptedLLM:
    """The `scripted/` provider: the script registered under the model's name."""
    name = model[len(SCRIPTED_PREFIX) :]
    with _scripts_lock:
        factory = _SCRIPTS.get(name)
    if factory is None:
        known = ", ".join(sorted(SCRIPTED_PREFIX + n for n in _SCRIPTS)) or "none registered"
        raise LLMError(
            f"unknown scripted model {model!r} ({known})", kind="bad_request", model=model
        )
    return ScriptedLLM(factory(), model=model, **kwargs)


register_provider(SCRIPTED_PREFIX, scripted_client)
