"""How a failed model call is classified: the error kinds, which are retried, and `LLMError`."""

from __future__ import annotations

import json
import math
import time
from typing import Any, Literal

from crmarena_tui.errors import UserError

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


class LLMError(UserError, RuntimeError):
    """A model call that failed for good (after the retries, or at once when retrying is futile)."""

    def __init__(self, message: str, *, kind: str = "unknown", attempts: int = 1, model: str = ""):
        super().__init__(message)
        self.kind = kind
        self.attempts = attempts
        self.model = model


class ProviderError(Exception):
    """A failure whose kind its provider already knows (an offline provider raises these);
    classified as that kind, like the real provider error of the same kind."""

    def __init__(self, kind: ErrorKind, message: str = ""):
        super().__init__(message or kind.replace("_", " "))
        self.kind = kind


def classify(exc: BaseException) -> ErrorKind:
    """Map a provider exception to an error kind (retryable kinds are in `RETRYABLE`)."""
    if isinstance(exc, ProviderError):
        return exc.kind
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
    if "APIResponseValidationError" in names or isinstance(
        exc, json.JSONDecodeError | MalformedReply
    ):
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
    return "unknown"


class MalformedReply(ValueError):
    """A 200 reply that has no usable message."""


def short_error(exc: BaseException, limit: int = 300) -> str:
    text = f"{type(exc).__name__}: {exc}".replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def retry_after(exc: BaseException) -> float | None:
    """The seconds a 429 or 503's `Retry-After` header asks for (a number, or an HTTP date),
    else None."""
    headers: Any = getattr(exc, "litellm_response_headers", None)
    if headers is None:
        headers = getattr(getattr(exc, "response", None), "headers", None)
    if not headers:
        return None
    try:
        value = headers.get("retry-after") or headers.get("Retry-After")
    except AttributeError:
        return None
    if value is None:
        return None
    text = str(value).strip()
    try:
        seconds = float(text)
    except ValueError:
        from email.utils import parsedate_to_datetime

        try:
            seconds = parsedate_to_datetime(text).timestamp() - time.time()
        except (TypeError, ValueError, IndexError):
            return None
    return seconds if math.isfinite(seconds) else None
