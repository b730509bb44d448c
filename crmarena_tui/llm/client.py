"""Model access: the only module that imports litellm, and only when a model is first called.

`LLMClient(model).complete(messages, tools=None) -> Completion` wraps `litellm.completion` with
retries (exponential backoff on rate limits, timeouts, connection failures, 5xx and malformed
replies), token and cost accounting, and an `on_event` hook that is told about every failed attempt
so the caller can record it. A final failure raises `LLMError`.

Offline providers (`register_provider`) share the same interface and retry logic: the test suite's
scripted models (`scripted/<name>`, tests/fakes/scripted_llm.py) are one. API keys come from the
provider's usual environment variable (litellm reads it) or from `Settings.api_key` for an
OpenAI-compatible `api_base`; they are handed to the call and never stored, logged or returned.
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr

from crmarena_tui.errors import redact
from crmarena_tui.llm import call_threads
from crmarena_tui.llm.errors import RETRYABLE, classify, retry_after, short_error
from crmarena_tui.llm.errors import LLMError as LLMError  # re-exported: callers catch it from here
from crmarena_tui.llm.errors import ProviderError as ProviderError
from crmarena_tui.llm.replies import Completion as Completion  # re-exported, as ToolCall
from crmarena_tui.llm.replies import ToolCall as ToolCall
from crmarena_tui.llm.replies import completion_from_response
from crmarena_tui.llm.replies import valid_text as valid_text

if TYPE_CHECKING:
    from crmarena_tui.settings.config import Settings

NO_KEY_PLACEHOLDER = "sk-no-key-required"
LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "LiteLLM Proxy.stdout", "litellm")

Message = dict[str, Any]
EventHook = Callable[[dict[str, Any]], None]

_litellm: Any = None
_warmed = False  # litellm imported and its first call's set-up done (`load_litellm`)
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


def litellm_loaded() -> bool:
    """True once `load_litellm` has run in this process."""
    return _warmed


def load_litellm() -> None:
    """Import litellm and get it through its first call's set-up, sending nothing (a call its
    `mock_response` answers; an OpenAI SDK client over httpx made, never used): before any
    session opens, so no session's active time counts the import's 3 to 25 s. Once."""
    global _warmed
    litellm = litellm_module()  # (imported once)
    with _import_lock:
        if not _warmed:
            try:
                litellm.completion(
                    model="openai/warm-up",
                    messages=[{"role": "user", "content": "."}],
                    mock_response=".",
                )
                import httpcore  # noqa: F401 - imported by httpx on its first request
                import openai

                openai.OpenAI(api_key=NO_KEY_PLACEHOLDER, base_url="http://127.0.0.1/v1").close()
            except Exception:  # noqa: BLE001 - only a head start: the real call reports errors
                logging.getLogger(__name__).debug("litellm warm-up failed", exc_info=True)
            _warmed = True


def calls_litellm(client: object) -> bool:
    """True for an `LLMClient` calling litellm (a registered provider's overrides `_call_once`)."""
    return isinstance(client, LLMClient) and type(client)._call_once is LLMClient._call_once


@dataclass(frozen=True, slots=True)
class CallOptions:
    """Per-call request settings beyond the messages: what a protocol asks of the provider.

    `max_tokens` caps the reply (None: the provider's default); `send_temperature` False leaves
    the temperature out of the request (reasoning models refuse it, and upstream's judge and
    simulated user sent none); `temperature`, when set, is sent instead of the client's; `top_p`
    and `thinking` are passed when set. The default sends the client's temperature and nothing
    else."""

    max_tokens: int | None = None
    send_temperature: bool = True
    temperature: float | None = None
    top_p: float | None = None
    thinking: dict[str, Any] | None = None

    def request(self) -> dict[str, Any]:
        """The extra request fields these options add (the temperature is the client's)."""
        extra: dict[str, Any] = {}
        if self.max_tokens is not None:
            extra["max_tokens"] = self.max_tokens
        if self.top_p is not None:
            extra["top_p"] = self.top_p
        if self.thinking is not None:
            extra["thinking"] = self.thinking
        return extra


DEFAULT_OPTIONS = CallOptions()


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
        deadline: float | None = None,
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
        # the whole of one attempt, however the reply arrives (`timeout` bounds each read only:
        # a reply dripped a byte at a time would never end); default: twice the timeout, at
        # least the timeout and 10 s (litellm's own work on a reply is not the network's)
        self.deadline = timeout + max(timeout, 10.0) if deadline is None else deadline

    def __repr__(self) -> str:  # never shows the key
        return f"{type(self).__name__}(model={self.model!r}, api_base={self.api_base!r})"

    # -- the retry loop, shared by every provider ---------------------------------------------
    def complete(
        self,
        messages: Sequence[Message],
        tools: list[dict[str, Any]] | None = None,
        *,
        on_event: EventHook | None = None,
        options: CallOptions = DEFAULT_OPTIONS,
    ) -> Completion:
        """One model reply. `on_event` (else the client's hook) hears of each failed attempt;
        `options` adds request settings (a token cap, no temperature, ...)."""
        attempts = self.max_retries + 1
        hook = on_event or self.on_event or getattr(_context, "hook", None)
        for attempt in range(1, attempts + 1):
            started = time.perf_counter()
            try:
                result = self._within_deadline(list(messages), tools, options)
            except Exception as exc:  # noqa: BLE001 - every provider error is classified below
                kind = classify(exc)
                retry = kind in RETRYABLE and attempt < attempts
                delay = self._delay(attempt) if retry else None
                message = self._redact(short_error(exc))
                asked = retry_after(exc) if kind in ("rate_limit", "server") else None
                if retry and asked is not None:  # the provider said when: honour it
                    if asked > self.retry_after_limit:
                        retry, delay = False, None
                        message += (
                            f" (the provider asks to wait {asked:g} s, more than the "
                            f"{self.retry_after_limit:g} s a retry may wait)"
                        )
                    else:
                        delay = max(asked, 0.0)
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

    @property
    def retry_after_limit(self) -> float:
        """The longest `Retry-After` a retry waits; a longer one ends the call at once."""
        return max(4 * self.backoff_max, 60.0)

    def _within_deadline(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]] | None,
        options: CallOptions,
    ) -> Completion:
        """`_call_once` in a call thread (llm/call_threads.py: reused), given up after `deadline`
        seconds (a timeout, so retried like one); the abandoned call ends on its own (its
        socket's read timeout)."""
        if type(self)._call_once is LLMClient._call_once:  # (a scripted client needs none)
            litellm_module()  # imported first: its start-up (seconds, once) is not the model's
        box: dict[str, Any] = {}
        done = threading.Lock()
        done.acquire()  # (released by the call's thread when it ends: a one-shot signal)
        hook = getattr(_context, "hook", None)

        def work() -> None:
            _context.hook = hook  # (the thread is reused: set, or cleared, for every call)
            try:
                box["result"] = self._call_once(messages, tools, options)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
                box["error"] = exc
            finally:
                _context.hook = None
                done.release()

        call_threads.start(work)
        if not done.acquire(timeout=self.deadline):
            raise ProviderError(
                "timeout", f"no whole reply within the call's deadline of {self.deadline:g} s"
            )
        if "error" in box:
            raise box["error"]
        return box["result"]

    def _redact(self, text: str) -> str:
        """Provider error texts can quote the key they were given: never pass it on, whether
        it came from the settings or from the environment (`errors.redact`)."""
        key = self._api_key.get_secret_value() if self._api_key is not None else None
        if key and len(key) >= 6:
            text = text.replace(key, "***")
        return redact(text)

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
    def _call_once(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]] | None,
        options: CallOptions = DEFAULT_OPTIONS,
    ) -> Completion:
        litellm = litellm_module()
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "timeout": self.timeout,
            "max_retries": 0,
            "num_retries": 0,
            "drop_params": True,
            **options.request(),
        }
        if options.send_temperature:
            chosen = options.temperature
            kwargs["temperature"] = self.temperature if chosen is None else chosen
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
        return completion_from_response(response, litellm, latency)

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


ClientFactory = Callable[..., LLMClient]
_PROVIDERS: dict[str, ClientFactory] = {}
_providers_lock = threading.Lock()


def register_provider(prefix: str, factory: ClientFactory) -> None:
    """Models named `<prefix>...` are made by `factory(model, **client_kwargs)` instead of going
    through litellm: an offline provider (the test suite's scripted models live in
    tests/fakes/scripted_llm.py), or an embedding application's own. It keeps the retry loop,
    events and accounting of `LLMClient` by subclassing it and overriding `_call_once`."""
    with _providers_lock:
        _PROVIDERS[prefix] = factory


def make_client(
    model: str,
    *,
    api_base: str | None = None,
    api_key: SecretStr | None = None,
    settings: Settings | None = None,
    **kwargs: Any,
) -> LLMClient:
    """A client for `model`: a registered provider's, else one calling litellm.

    With an `api_base` (given, or `settings.api_base`) and no explicit key, `settings.api_key`
    is used (the config file's key for an OpenAI-compatible server).
    """
    with _providers_lock:
        factory = next((f for p, f in _PROVIDERS.items() if model.startswith(p)), None)
    if factory is not None:
        return factory(model, **kwargs)
    if settings is not None:
        api_base = api_base or settings.api_base
        if api_key is None and api_base:
            api_key = settings.api_key
    return LLMClient(model, api_base=api_base, api_key=api_key, **kwargs)
