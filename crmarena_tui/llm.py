"""Model access: the only module that imports litellm, and only when a model is first called.

`LLMClient(model).complete(messages, tools=None) -> Completion` wraps `litellm.completion` with
retries (exponential backoff on rate limits, timeouts, connection failures, 5xx and malformed
replies), token and cost accounting, and an `on_event` hook that is told about every failed attempt
so the caller can record it. A final failure raises `LLMError`.

Offline providers share the same interface and retry logic: `ScriptedLLM` answers from a queue of
replies (strings, `Completion`s, `ScriptedFailure`s or a callable), and any model named
`scripted/<name>` resolves to a script registered with `register_script`. API keys come from the
provider's usual environment variable (litellm reads it) or from `Settings.api_key` for an
OpenAI-compatible `api_base`; they are handed to the call and never stored, logged or returned.
"""

from __future__ import annotations

import json
import logging
import os
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import SecretStr

SCRIPTED_PREFIX = "scripted/"
NO_KEY_PLACEHOLDER = "sk-no-key-required"
LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "LiteLLM Proxy.stdout", "litellm")

ErrorKind = Literal[
    "rate_limit",
    "timeout",
    "connection",
    "server",
    "malformed",
    "auth",
    "bad_request",
    "context_window",
    "script",
    "unknown",
]
RETRYABLE: frozenset[str] = frozenset(
    {"rate_limit", "timeout", "connection", "server", "malformed"}
)

Message = dict[str, Any]
EventHook = Callable[[dict[str, Any]], None]

_litellm: Any = None
_import_lock = threading.Lock()
_context = threading.local()


@contextmanager
def recording(hook: EventHook | None) -> Iterator[None]:
    """Within this block (on this thread), clients without their own hook report to `hook`.

    The agent loop wraps each step in it, so the retries of every model the step calls (its own,
    the simulated user's) are recorded in the same session.
    """
    previous = getattr(_context, "hook", None)
    _context.hook = hook
    try:
        yield
    finally:
        _context.hook = previous


def litellm_module() -> Any:
    """Import litellm once, quietly: local cost map, no debug banner, no log output."""
    global _litellm
    if _litellm is not None:
        return _litellm
    with _import_lock:
        if _litellm is None:
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            os.environ.setdefault("LITELLM_LOG", "CRITICAL")
            import litellm

            litellm.suppress_debug_info = True
            litellm.set_verbose = False
            for name in LITELLM_LOGGERS:
                log = logging.getLogger(name)
                log.handlers.clear()
                log.addHandler(logging.NullHandler())
                log.setLevel(logging.CRITICAL + 1)
                log.propagate = False
            _litellm = litellm
    return _litellm


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


class LLMError(RuntimeError):
    """A model call that failed for good (after the retries, or at once when retrying is futile)."""

    def __init__(self, message: str, *, kind: str = "unknown", attempts: int = 1, model: str = ""):
        super().__init__(message)
        self.kind = kind
        self.attempts = attempts
        self.model = model


class ScriptedFailure(Exception):
    """A failure a script injects, classified like the real provider error of the same kind."""

    def __init__(self, kind: ErrorKind, message: str = ""):
        super().__init__(message or kind.replace("_", " "))
        self.kind = kind


def classify(exc: BaseException) -> ErrorKind:
    """Map a provider exception to an error kind (retryable kinds are in `RETRYABLE`)."""
    if isinstance(exc, ScriptedFailure):
        return exc.kind
    name = type(exc).__name__
    names = {c.__name__ for c in type(exc).__mro__}
    status = getattr(exc, "status_code", None)
    if "ContextWindowExceededError" in names:
        return "context_window"
    if "200 OK" in str(exc) and "Received response" in str(exc):
        return "malformed"  # litellm wraps an unparseable 200 body as a server error
    if "RateLimitError" in names or status == 429:
        return "rate_limit"
    if (
        "Timeout" in names
        or "APITimeoutError" in names
        or status == 408
        or isinstance(exc, TimeoutError)
    ):
        return "timeout"
    if "AuthenticationError" in names or "PermissionDeniedError" in names or status in (401, 403):
        return "auth"
    if isinstance(status, int) and status >= 500:
        return "server"
    if names & {"InternalServerError", "ServiceUnavailableError", "BadGatewayError"}:
        return "server"
    if "APIResponseValidationError" in names or isinstance(exc, json.JSONDecodeError | _Malformed):
        return "malformed"
    if "APIConnectionError" in names or isinstance(exc, ConnectionError):
        # litellm reports an unparseable body as a connection error mentioning JSON
        return "malformed" if "json" in str(exc).lower() else "connection"
    if names & {"BadRequestError", "NotFoundError", "UnprocessableEntityError"} or status in (
        400,
        404,
        422,
    ):
        return "bad_request"
    return "script" if name == "ScriptExhausted" else "unknown"


class _Malformed(ValueError):
    """A 200 reply that has no usable message."""


def _short(exc: BaseException, limit: int = 300) -> str:
    text = f"{type(exc).__name__}: {exc}".replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


class LLMClient:
    """One model, called through litellm with retries, backoff and accounting."""

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        api_key: SecretStr | None = None,
        temperature: float = 0.0,
        max_retries: int = 4,
        timeout: float = 60,
        on_event: EventHook | None = None,
        backoff_base: float = 1.0,
        backoff_max: float = 30.0,
        mock_response: str | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.model = model
        self.api_base = api_base
        self._api_key = api_key
        self.temperature = temperature
        self.max_retries = max_retries
        self.timeout = timeout
        self.on_event = on_event
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.mock_response = mock_response
        self._sleep = sleep

    def __repr__(self) -> str:  # never shows the key
        return f"{type(self).__name__}(model={self.model!r}, api_base={self.api_base!r})"

    # -- the retry loop, shared by every provider ---------------------------------------------
    def complete(
        self,
        messages: Sequence[Message],
        tools: list[dict[str, Any]] | None = None,
        *,
        on_event: EventHook | None = None,
    ) -> Completion:
        """One model reply. `on_event` (else the client's hook) hears of each failed attempt."""
        attempts = self.max_retries + 1
        hook = on_event or self.on_event or getattr(_context, "hook", None)
        for attempt in range(1, attempts + 1):
            started = time.perf_counter()
            try:
                result = self._call_once(list(messages), tools)
            except Exception as exc:  # noqa: BLE001 - every provider error is classified below
                kind = classify(exc)
                retry = kind in RETRYABLE and attempt < attempts
                delay = self._delay(attempt) if retry else None
                message = self._redact(_short(exc))
                self._emit(
                    hook,
                    {
                        "source": "llm",
                        "model": self.model,
                        "error_type": kind,
                        "error": message,
                        "attempt": attempt,
                        "max_attempts": attempts,
                        "retry_in_s": delay,
                        "final": not retry,
                    },
                )
                if not retry:
                    where = f" after {attempt} attempts" if attempt > 1 else ""
                    raise LLMError(
                        f"model {self.model} failed{where}: {kind.replace('_', ' ')}: {message}",
                        kind=kind,
                        attempts=attempt,
                        model=self.model,
                    ) from exc
                self._sleep(delay or 0.0)
                continue
            result.latency_ms = result.latency_ms or (time.perf_counter() - started) * 1000
            result.model = result.model or self.model
            result.attempts = attempt
            return result
        raise AssertionError("unreachable")  # pragma: no cover

    def _redact(self, text: str) -> str:
        """Provider error texts can quote the key they were given: never pass it on."""
        key = self._api_key.get_secret_value() if self._api_key is not None else None
        return text.replace(key, "***") if key and len(key) >= 6 else text

    def _delay(self, attempt: int) -> float:
        base = min(self.backoff_max, self.backoff_base * 2 ** (attempt - 1))
        return base * (0.75 + random.random() * 0.5)

    @staticmethod
    def _emit(hook: EventHook | None, payload: dict[str, Any]) -> None:
        if hook is not None:
            try:
                hook(payload)
            except Exception:  # noqa: BLE001 - a failing recorder must not break the call
                logging.getLogger(__name__).debug("on_event hook failed", exc_info=True)

    # -- the provider call ----------------------------------------------------------------------
    def _call_once(self, messages: list[Message], tools: list[dict[str, Any]] | None) -> Completion:
        litellm = litellm_module()
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "timeout": self.timeout,
            "max_retries": 0,
            "num_retries": 0,
            "drop_params": True,
        }
        if tools:
            kwargs["tools"] = tools
        if self.api_base:
            kwargs["api_base"] = self.api_base
        key = self._resolve_key()
        if key is not None:
            kwargs["api_key"] = key
        if self.mock_response is not None:
            kwargs["mock_response"] = self.mock_response
        started = time.perf_counter()
        response = litellm.completion(**kwargs)
        latency = (time.perf_counter() - started) * 1000
        return _completion_from_response(response, litellm, latency)

    def _resolve_key(self) -> str | None:
        if self._api_key is not None:
            return self._api_key.get_secret_value()
        if (
            self.api_base
            and self.model.startswith("openai/")
            and not os.environ.get("OPENAI_API_KEY")
        ):
            return NO_KEY_PLACEHOLDER  # local OpenAI-compatible servers often need no key
        return None


def _completion_from_response(response: Any, litellm: Any, latency_ms: float) -> Completion:
    try:
        choice = response.choices[0]
        message = choice.message
    except (AttributeError, IndexError, TypeError) as exc:
        raise _Malformed(f"reply has no message: {str(response)[:200]}") from exc
    text = getattr(message, "content", None) or ""
    calls = [_tool_call(c) for c in (getattr(message, "tool_calls", None) or [])]
    if not isinstance(text, str):
        raise _Malformed("reply content is not text")
    usage = getattr(response, "usage", None)
    cost = (getattr(response, "_hidden_params", None) or {}).get("response_cost")
    if cost is None:
        try:
            cost = float(litellm.completion_cost(completion_response=response))
        except Exception:  # noqa: BLE001 - unknown price: cost stays unknown
            cost = None
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


def _tool_call(call: Any) -> ToolCall:
    fn = getattr(call, "function", None)
    name = getattr(fn, "name", "") or ""
    raw = getattr(fn, "arguments", "") or ""
    error = None
    try:
        args = json.loads(raw) if raw else {}
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


def tool_call(name: str, call_id: str | None = None, **arguments: Any) -> ToolCall:
    """A tool call for scripts: `tool_call("execute_soql", query="SELECT Id FROM Case")`."""
    raw = json.dumps(arguments)
    return ToolCall(
        id=call_id or f"call_{name}_{abs(hash(raw)) % 10**8}",
        name=name,
        arguments=arguments,
        raw_arguments=raw,
    )


# -- offline providers --------------------------------------------------------------------------

Reply = str | Completion | BaseException
Responder = Callable[[list[Message], list[dict[str, Any]] | None], Reply]


class ScriptExhausted(RuntimeError):
    pass


class ScriptedLLM(LLMClient):
    """Answers from a queue (or a callable) instead of a provider; retries and events as usual.

    Each queued item is a reply text, a ready `Completion`, or an exception to raise (use
    `ScriptedFailure("rate_limit" | "timeout" | "server" | "malformed" | ...)`). `calls` keeps
    every message list the model was shown, for tests that check what the agent revealed.
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
        self._tokens = (prompt_tokens, completion_tokens)
        self._cost = cost

    def push(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    @property
    def remaining(self) -> int:
        return len(self._queue)

    def _call_once(self, messages: list[Message], tools: list[dict[str, Any]] | None) -> Completion:
        with self._lock:
            self.calls.append([dict(m) for m in messages])
            self.tools_seen.append(tools)
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


def is_scripted(model: str) -> bool:
    return model.startswith(SCRIPTED_PREFIX)


def make_client(
    model: str,
    *,
    api_base: str | None = None,
    api_key: SecretStr | None = None,
    settings: Any = None,
    **kwargs: Any,
) -> LLMClient:
    """A client for `model`: `scripted/<name>` from the registry, anything else through litellm.

    With an `api_base` (given, or `settings.api_base`) and no explicit key, `settings.api_key`
    is used (the config file's key for an OpenAI-compatible server).
    """
    if is_scripted(model):
        name = model[len(SCRIPTED_PREFIX) :]
        with _scripts_lock:
            factory = _SCRIPTS.get(name)
        if factory is None:
            known = ", ".join(sorted(SCRIPTED_PREFIX + n for n in _SCRIPTS)) or "none registered"
            raise LLMError(
                f"unknown scripted model {model!r} ({known})", kind="bad_request", model=model
            )
        return ScriptedLLM(factory(), model=model, **kwargs)
    if settings is not None:
        api_base = api_base or getattr(settings, "api_base", None)
        if api_key is None and api_base:
            api_key = getattr(settings, "api_key", None)
    return LLMClient(model, api_base=api_base, api_key=api_key, **kwargs)


class LLMJudge:
    """A `Judge` for the graders: `judge(prompt) -> reply text`, keeping its model name."""

    def __init__(self, client: LLMClient) -> None:
        self.client = client
        self.model = client.model

    def __call__(self, prompt: str) -> str:
        return self.client.complete([{"role": "user", "content": prompt}]).text

    def chat(self, system: str, user: str) -> str:
        """The reply to instructions sent as a system message and a text sent as the user's
        (how upstream's evaluator asks its judge: see `graders.base.ask_judge`)."""
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        return self.client.complete(messages).text


def make_judge(
    model: str, api_base: str | None = None, *, settings: Any = None, **kwargs: Any
) -> LLMJudge:
    """The judge model the graders use for answer extraction and privacy rejection."""
    return LLMJudge(make_client(model, api_base=api_base, settings=settings, **kwargs))
