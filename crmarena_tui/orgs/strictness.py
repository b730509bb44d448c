"""Strict or lenient: which mode an org answers queries in, and where the choice is recorded.

A local org is strict by default: it refuses what Salesforce refuses (`orgs.soql.rules`), so a run
on it is comparable with a run on the live org. `--lenient` (or the `lenient` setting,
`CRMARENA_TUI_LENIENT`) asks for the forgiving playground instead. A session stores its org's mode
in its settings (`with_org_mode`), and runs under the benchmark's own protocol must be strict
(`require_strict`, for the protocol setting to call).
"""

from __future__ import annotations

from typing import Any

from crmarena_tui.errors import ExitCode, UserError

STRICT, LENIENT = "strict", "lenient"
ORG_MODE_KEY = "org_mode"
STRICT_PROTOCOLS = frozenset({"upstream"})


class LenientNotAllowed(UserError, ValueError):
    """A protocol that compares with the live org was asked to run on a lenient org: options
    or settings that do not go together, a usage error (exit code 2)."""

    exit_code = ExitCode.USAGE


def lenient_wanted(flag: bool | None, settings: Any = None) -> bool:
    """`--lenient` when given, else the `lenient` setting (env `CRMARENA_TUI_LENIENT`)."""
    if flag:
        return True
    return bool(getattr(settings, "lenient", False))


def org_mode(org: Any) -> str | None:
    """ "strict" or "lenient" for an org that has a mode (a local org); None for a live org,
    which is Salesforce itself."""
    lenient = getattr(org, "lenient", None)
    if not isinstance(lenient, bool):
        return None
    return LENIENT if lenient else STRICT


def with_org_mode(settings: dict[str, Any] | None, org: Any) -> dict[str, Any] | None:
    """A session's settings with its org's mode added (unchanged for a live org)."""
    mode = org_mode(org)
    if mode is None:
        return settings
    return {**(settings or {}), ORG_MODE_KEY: mode}


def require_strict(protocol: str | None, lenient: bool) -> None:
    """Refuse to start a run of `protocol` on a lenient org when the protocol needs answers
    comparable with Salesforce's (`upstream`)."""
    if lenient and protocol in STRICT_PROTOCOLS:
        raise LenientNotAllowed(
            f"the {protocol} protocol runs on a strict org only: drop --lenient "
            "(and CRMARENA_TUI_LENIENT / the lenient setting)"
        )
