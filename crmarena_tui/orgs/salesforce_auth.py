"""Credentials and the logged-in connection behind `SalesforceOrg`.

Credentials are read from the environment at each login and never kept on any object: only the
session id that Salesforce hands back lives in memory (inside simple-salesforce's client), and no
message, repr or log line carries a credential (`scrub` removes any that a server echoes back).

Variables, for `org_type` b2b / b2c / original (`P` = `SALESFORCE_B2B_`, `SALESFORCE_B2C_`, `SALESFORCE_`):

- `{P}USERNAME`, `{P}PASSWORD`, `{P}SECURITY_TOKEN` (the benchmark's names; the token may be
  left out for orgs that trust your IP address);
- or `{P}INSTANCE_URL` with `{P}SESSION_ID` (an existing session or OAuth access token); when both
  kinds are set, the session is used first and the password logs in again once it expires;
- `{P}DOMAIN`, else `SALESFORCE_DOMAIN`: `login` (default), `test` for sandboxes, or a My Domain.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlparse

from crmarena_tui.errors import UserError
from crmarena_tui.orgs.base import API_VERSION

if TYPE_CHECKING:
    from simple_salesforce import Salesforce

log = logging.getLogger(__name__)

T = TypeVar("T")
DEFAULT_TIMEOUT = 60.0  # seconds per HTTP request
ORG_TYPES = ("b2b", "b2c", "original")


class SalesforceApiError(UserError, RuntimeError):
    """A failed call, as `CODE: message` (the shape the benchmark shows agents)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class _SessionExpired(Exception):
    """Internal: the server answered 401 INVALID_SESSION_ID."""


def env_prefix(org_type: str) -> str:
    if org_type not in ORG_TYPES:
        raise ValueError(f"unknown Salesforce org type {org_type!r}: use b2b, b2c or original")
    return "SALESFORCE_" if org_type == "original" else f"SALESFORCE_{org_type.upper()}_"


@dataclass(frozen=True, slots=True)
class Credentials:
    """One reading of the environment. Its repr names the variables, never their values."""

    prefix: str
    username: str | None = field(default=None, repr=False)
    password: str | None = field(default=None, repr=False)
    security_token: str | None = field(default=None, repr=False)
    instance_url: str | None = field(default=None, repr=False)
    session_id: str | None = field(default=None, repr=False)
    domain: str = "login"

    @property
    def can_login(self) -> bool:
        return bool(self.username and self.password)

    @property
    def has_session(self) -> bool:
        return bool(self.instance_url and self.session_id)

    def secrets(self) -> list[str]:
        values = [self.username, self.password, self.security_token, self.session_id]
        if self.password and self.security_token:
            values.append(self.password + self.security_token)
        return [v for v in values if v and len(v) >= 4]

    def cache_key(self) -> str:
        """A short digest naming which org these credentials reach (never the values)."""
        who = self.username or (urlparse(self.instance_url or "").hostname or "") or "anonymous"
        return hashlib.sha256(f"{self.domain}|{who}".encode()).hexdigest()[:12]

    def missing_message(self) -> str:
        p = self.prefix
        return (
            f"no Salesforce credentials: set {p}USERNAME, {p}PASSWORD and {p}SECURITY_TOKEN, "
            f"or {p}INSTANCE_URL and {p}SESSION_ID (SALESFORCE_DOMAIN=test for a sandbox)"
        )


def read_credentials(org_type: str, env: Mapping[str, str] | None = None) -> Credentials:
    env = os.environ if env is None else env
    p = env_prefix(org_type)

    def get(name: str) -> str | None:
        value = env.get(p + name)
        return value.strip() if value and value.strip() else None

    domain = get("DOMAIN") or (env.get("SALESFORCE_DOMAIN") or "").strip() or "login"
    instance_url = get("INSTANCE_URL")
    if instance_url and "://" not in instance_url:
        instance_url = "https://" + instance_url
    return Credentials(
        prefix=p,
        username=get("USERNAME"),
        password=get("PASSWORD"),
        security_token=get("SECURITY_TOKEN"),
        instance_url=instance_url,
        session_id=get("SESSION_ID"),
        domain=domain,
    )


def scrub(text: str, secrets: list[str]) -> str:
    """`text` with every secret value replaced by `***` (longest first)."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def _http_session(timeout: float) -> Any:
    """A requests session whose calls time out after `timeout` seconds unless told otherwise."""
    import requests

    class TimeoutSession(requests.Session):
        def request(self, method: Any, url: Any, *args: Any, **kwargs: Any) -> Any:
            kwargs.setdefault("timeout", timeout)
            return super().request(method, url, *args, **kwargs)

    return TimeoutSession()


def _error_parts(content: Any) -> tuple[str, str] | None:
    """(errorCode, message) from a Salesforce error body: `[{"errorCode", "message"}]`."""
    if isinstance(content, list) and content and isinstance(content[0], dict):
        content = content[0]
    if isinstance(content, dict) and ("errorCode" in content or "error" in content):
        code = str(content.get("errorCode") or content.get("error"))
        message = str(content.get("message") or content.get("error_description") or "")
        # a placed query error starts with a line break (`\nSELECT ...\n   ^\nERROR at Row`):
        # kept, so `CODE: message` reads as upstream's connector printed it
        return code, message.rstrip() if message.startswith("\n") else message.strip()
    return None


_ROW_COL = re.compile(r"ERROR at Row:(\d+):Column:(\d+)")


def error_offset(message: str, text: str) -> int | None:
    """The character offset into `text` that a `ERROR at Row:r:Column:c` message points at."""
    m = _ROW_COL.search(message)
    if not m:
        return None
    row, col = int(m.group(1)), int(m.group(2))
    lines = text.split("\n")
    if not 1 <= row <= len(lines):
        return None
    offset = sum(len(line) + 1 for line in lines[: row - 1]) + col - 1
    return max(0, min(offset, len(text)))


class SalesforceConnection:
    """Logs in lazily, runs REST calls, turns every failure into a `SalesforceApiError`.

    `call(op)` runs `op(client)`; on a 401 INVALID_SESSION_ID it logs in again exactly once and
    retries once. A second rejection becomes an error, never a loop.
    """

    def __init__(
        self,
        org_type: str,
        *,
        env: Mapping[str, str] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        env_prefix(org_type)  # validates
        self.org_type = org_type
        self._env = env
        self._timeout = timeout
        self._client: Salesforce | None = None
        self._lock = threading.Lock()
        self.logins = 0  # how many password logins this connection made

    def __repr__(self) -> str:
        return f"SalesforceConnection(org_type={self.org_type!r}, connected={self.connected})"

    @property
    def connected(self) -> bool:
        return self._client is not None

    def credentials(self) -> Credentials:
        return read_credentials(self.org_type, self._env)

    def secrets(self) -> list[str]:
        found = self.credentials().secrets()
        if self._client is not None and self._client.session_id:
            found.append(self._client.session_id)
        return found

    # --- calls ---------------------------------------------------------------------------

    def call(self, op: Callable[[Salesforce], T]) -> T:
        client = self.client()
        try:
            return self._run(op, client)
        except _SessionExpired:
            pass
        creds = self.credentials()
        if not creds.can_login:
            self.disconnect()
            raise self._fail(
                "INVALID_SESSION_ID",
                f"the session in {creds.prefix}SESSION_ID has expired or is invalid; set a fresh "
                f"one, or set {creds.prefix}USERNAME and {creds.prefix}PASSWORD to log in",
            )
        log.info("Salesforce session expired for %s; logging in again", self.org_type)
        client = self._login(creds, stale=client)
        try:
            return self._run(op, client)
        except _SessionExpired:
            self.disconnect()
            raise self._fail(
                "INVALID_SESSION_ID",
                "Salesforce rejected the session again right after a fresh login; check that the "
                "user may use the API",
            ) from None

    def client(self) -> Salesforce:
        """The logged-in client (logs in on first use)."""
        client = self._client
        if client is not None:
            return client
        return self._login(self.credentials())

    def disconnect(self) -> None:
        self._client = None

    # --- internals -----------------------------------------------------------------------

    def _fail(
        self, code: str, message: str, creds: Credentials | None = None
    ) -> SalesforceApiError:
        secrets = (creds or self.credentials()).secrets()
        if self._client is not None and self._client.session_id:
            secrets.append(self._client.session_id)
        return SalesforceApiError(code, scrub(message, secrets))

    def _login(self, creds: Credentials, *, stale: Salesforce | None = None) -> Salesforce:
        """Log in, unless another thread already replaced the client (`stale` is the rejected one;
        with `stale` given, only the password may log in: the environment's session is spent)."""
        from simple_salesforce import Salesforce, SalesforceLogin
        from simple_salesforce.exceptions import SalesforceAuthenticationFailed

        with self._lock:
            if self._client is not None and self._client is not stale:
                return self._client
            version = API_VERSION.lstrip("v")
            http = _http_session(self._timeout)
            if creds.has_session and stale is None:
                client = Salesforce(
                    session_id=creds.session_id,
                    instance_url=creds.instance_url,
                    version=version,
                    session=http,
                    object_pairs_hook=dict,
                )
                self._client = client
                return client
            if not creds.can_login:
                raise SalesforceApiError("MISSING_CREDENTIALS", creds.missing_message())
            host = f"{creds.domain}.salesforce.com"
            try:
                session_id, instance = SalesforceLogin(
                    username=creds.username,
                    password=creds.password,
                    security_token=creds.security_token or "",
                    sf_version=version,
                    session=http,
                    domain=creds.domain,
                )
            except SalesforceAuthenticationFailed as exc:
                code = str(exc.code or "INVALID_LOGIN")
                hint = (
                    f" (check {creds.prefix}USERNAME, {creds.prefix}PASSWORD and "
                    f"{creds.prefix}SECURITY_TOKEN; SALESFORCE_DOMAIN=test for a sandbox)"
                )
                raise self._fail(
                    code, f"login to {host} failed: {exc.auth_message.strip()}{hint}", creds
                ) from None
            except Exception as exc:  # network failures, garbled answers
                raise self._translate(exc, host, creds) from None
            self.logins += 1
            client = Salesforce(
                session_id=session_id,
                instance=instance,
                version=version,
                session=http,
                object_pairs_hook=dict,
            )
            self._client = client
            log.info("logged in to Salesforce (%s) at %s", self.org_type, instance)
            return client

    def _run(self, op: Callable[[Salesforce], T], client: Salesforce) -> T:
        from simple_salesforce.exceptions import SalesforceExpiredSession

        try:
            return op(client)
        except SalesforceExpiredSession as exc:
            parts = _error_parts(exc.content)
            if parts is None or parts[0] == "INVALID_SESSION_ID":
                raise _SessionExpired() from None
            raise self._translate(exc, client.sf_instance) from None
        except SalesforceApiError:
            raise
        except Exception as exc:
            raise self._translate(exc, client.sf_instance) from None

    def _translate(
        self, exc: Exception, host: str, creds: Credentials | None = None
    ) -> SalesforceApiError:
        import requests
        from simple_salesforce.exceptions import SalesforceError

        if isinstance(exc, SalesforceError):
            parts = _error_parts(exc.content)
            if parts is not None:
                return self._fail(*parts, creds)
            body = (
                exc.content.decode(errors="replace")
                if isinstance(exc.content, bytes)
                else str(exc.content)
            )
            body = body.strip()
            if body.startswith("<"):  # a proxy's or maintenance page's HTML
                body = f"{host} answered with a web page instead of an API response"
            return self._fail(f"HTTP_{exc.status}", body[:500] or "no details", creds)
        if isinstance(exc, json.JSONDecodeError):  # before RequestException: requests' one is both
            return self._fail(
                "UNEXPECTED_RESPONSE", f"{host} answered with something other than JSON", creds
            )
        if isinstance(exc, requests.Timeout):
            return self._fail(
                "NETWORK_ERROR", f"{host} did not answer within {self._timeout:g} s", creds
            )
        if isinstance(exc, requests.RequestException):
            return self._fail("NETWORK_ERROR", f"cannot reach {host} ({type(exc).__name__})", creds)
        log.debug("unexpected Salesforce failure: %s", type(exc).__name__)
        return self._fail("UNKNOWN_ERROR", f"{type(exc).__name__} talking to {host}", creds)
