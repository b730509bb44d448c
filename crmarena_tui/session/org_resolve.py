"""Which org answers a task, and turning an `--org` value into an Org instance.

Org specs: `demo` (the built-in demo org matching the task's org type, built on first use),
`demo:b2b|b2c`; `upstream:b2b|b2c|original` (upstream's published snapshot, imported by
`crmarena-tui org fetch`); `salesforce:b2b|b2c|original` (the live org through simple-salesforce);
anything else is the path of an org `.db` file. A local org (demo, upstream or a file) is strict, refusing
what Salesforce refuses, unless `lenient`.

Routing (`route_task`, pure: it is handed what is available): an `--org` given by the user is
used for every task, with a note when a task is of another kind than the org. Without one, demo
tasks go to the demo org of their type; real tasks (`hf:*` sources, and task files that are not
demo exports) to `upstream:<type>` when it has been fetched, else `salesforce:<type>` when its
credentials are set, else nowhere: `NoOrgForTask` says how to get one. Re-running or forking a
session keeps the session's own org when it can, and says which org it uses instead when not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from crmarena_tui.errors import UserError
from crmarena_tui.orgs.base import Org
from crmarena_tui.orgs.upstream import ORG_TYPES, UPSTREAM_PREFIX

if TYPE_CHECKING:
    from crmarena_tui.tasks.model import Task

SALESFORCE_PREFIX = "salesforce:"
DEMO_TYPES = ("b2b", "b2c")


class OrgSpecError(UserError, ValueError):
    pass


class NoOrgForTask(OrgSpecError):
    """A real task, and no real org to run it on."""


def org_kind(spec: str | None) -> str:
    """`demo`, `upstream`, `salesforce` or `local` (an org file path)."""
    if spec and spec.startswith(SALESFORCE_PREFIX):
        return "salesforce"
    if spec and spec.startswith(UPSTREAM_PREFIX):
        return "upstream"
    if spec is None or spec == "demo" or spec.startswith("demo:"):
        return "demo"
    return "local"


def _which(spec: str, prefix: str) -> str:
    which = spec[len(prefix) :]
    if which not in ORG_TYPES:
        kind = prefix.rstrip(":")
        raise OrgSpecError(f"unknown org {spec!r}: use {kind}:b2b, {kind}:b2c or {kind}:original")
    return which


def fetch_hint(org_type: str) -> str:
    return f"`crmarena-tui org fetch {org_type}`"


def open_org(
    spec: str | None,
    *,
    org_type: str = "b2b",
    today: date | None = None,
    lenient: bool = False,
) -> Org:
    """The org `spec` names, for tasks of `org_type`; `today` fixes relative date literals;
    `lenient` makes a local org answer what Salesforce would refuse (a live org is Salesforce
    itself)."""
    from crmarena_tui.settings import locations

    kind = org_kind(spec)
    if kind == "salesforce":
        from crmarena_tui.orgs.salesforce import SalesforceOrg

        return SalesforceOrg(org_type=_which(str(spec), SALESFORCE_PREFIX))
    from crmarena_tui.orgs.local import LocalOrg

    if kind == "upstream":
        which = _which(str(spec), UPSTREAM_PREFIX)
        path = locations.upstream_org_path(which)
        if not path.is_file():
            raise OrgSpecError(
                f"{spec} has not been fetched: run {fetch_hint(which)} (or `crmarena-tui org "
                f"import FILE.db --org-type {which}` for a file you downloaded)"
            )
        org = LocalOrg(path, today=today, lenient=lenient)
        org.kind, org.ref = "upstream", f"{UPSTREAM_PREFIX}{which}"
        return org
    if kind == "demo":
        from crmarena_tui.demo.generator import ensure_demo_org

        demo_type = spec.split(":", 1)[1] if spec and ":" in spec else org_type
        if demo_type not in DEMO_TYPES:
            raise OrgSpecError(f"no demo org for {demo_type!r}: use demo:b2b or demo:b2c")
        org = LocalOrg(ensure_demo_org(demo_type), today=today, lenient=lenient)
        org.ref = f"demo:{demo_type}"  # what sessions record: no path in this machine's home
        return org
    path = Path(str(spec)).expanduser()
    if not path.exists():
        raise OrgSpecError(
            f"no org file at {path}; use --org demo, upstream:b2b|b2c|original, "
            "salesforce:b2b|b2c|original, or an org .db path"
        )
    return LocalOrg(path, today=today, lenient=lenient)


# ---------------------------------------------------------------- routing


@dataclass(frozen=True, slots=True)
class Available:
    """The real orgs this machine can reach: fetched snapshots and credentials, by org type."""

    upstream: frozenset[str] = frozenset()
    salesforce: frozenset[str] = frozenset()

    @classmethod
    def probe(cls, env: Mapping[str, str] | None = None) -> Available:
        from crmarena_tui.orgs.salesforce_auth import read_credentials
        from crmarena_tui.settings import locations

        upstream = {t for t in ORG_TYPES if locations.upstream_org_path(t).is_file()}
        salesforce = set()
        for t in ORG_TYPES:
            creds = read_credentials(t, env)
            if creds.can_login or creds.has_session:
                salesforce.add(t)
        return cls(frozenset(upstream), frozenset(salesforce))


@dataclass(frozen=True, slots=True)
class Route:
    spec: str  # what `open_org` opens
    note: str = ""  # why, when the org is not what the task or session would suggest


def credential_names(org_type: str) -> str:
    from crmarena_tui.orgs.salesforce_auth import env_prefix

    p = env_prefix(org_type)
    return f"{p}USERNAME, {p}PASSWORD and {p}SECURITY_TOKEN (or {p}INSTANCE_URL and {p}SESSION_ID)"


def no_org_message(org_type: str, what: str) -> str:
    return (
        f"{what} need the real {org_type} org, and none is available: run "
        f"{fetch_hint(org_type)} to download and import upstream's snapshot (or `crmarena-tui "
        f"org import FILE.db --org-type {org_type}` for a file you have), or set "
        f"{credential_names(org_type)} to use the live org. The demo org cannot answer them."
    )


def _real_route(org_type: str, available: Available, what: str) -> Route:
    if org_type in available.upstream:
        return Route(f"{UPSTREAM_PREFIX}{org_type}")
    if org_type in available.salesforce:
        return Route(f"{SALESFORCE_PREFIX}{org_type}")
    raise NoOrgForTask(no_org_message(org_type, what))


def route_task(
    task: Task,
    configured: str | None,
    available: Available,
    *,
    real: bool,
    session_org: str | None = None,
) -> Route:
    """The org for `task` (pure: `real` and `available` are given). `session_org` is the org ref
    a session being re-run or forked ran on."""
    org_type = task.org_type
    what = f"real {org_type} tasks ({task.source})" if real else "demo tasks"
    if configured:
        kind = org_kind(configured)
        if real and kind == "demo":
            return Route(
                configured,
                f"the real {org_type} tasks of {task.source} run on the demo org because --org "
                f"{configured} asks for it: their answers will not match its data",
            )
        if not real and kind in ("upstream", "salesforce"):
            return Route(
                configured,
                f"demo tasks run on {configured} because --org asks for it: their answers come "
                "from the demo org's data",
            )
        return Route(configured)
    if session_org is not None:
        return _session_route(task, session_org, available, real=real, what=what)
    if not real:
        return Route(f"demo:{org_type}") if org_type in DEMO_TYPES else Route("demo")
    return _real_route(org_type, available, what)


def _session_route(
    task: Task, session_org: str, available: Available, *, real: bool, what: str
) -> Route:
    kind = org_kind(session_org)
    org_type = task.org_type
    if kind == "salesforce":
        which = session_org[len(SALESFORCE_PREFIX) :]
        if which in available.salesforce:
            return Route(session_org)
        if which in available.upstream:
            return Route(
                f"{UPSTREAM_PREFIX}{which}",
                f"the session ran on {session_org}; no credentials for it are set, so this uses "
                f"{UPSTREAM_PREFIX}{which}, the imported snapshot of that org",
            )
        raise NoOrgForTask(no_org_message(which, f"sessions that ran on {session_org}"))
    if kind == "upstream":
        which = session_org[len(UPSTREAM_PREFIX) :]
        if which in available.upstream:
            return Route(session_org)
        if which in available.salesforce:
            return Route(
                f"{SALESFORCE_PREFIX}{which}",
                f"the session ran on {session_org}, which is not on this machine; this uses the "
                f"live org {SALESFORCE_PREFIX}{which} instead",
            )
        raise NoOrgForTask(no_org_message(which, f"sessions that ran on {session_org}"))
    if kind == "local" and Path(session_org).is_file():
        return Route(session_org)
    if not real:
        return Route(f"demo:{org_type}") if org_type in DEMO_TYPES else Route("demo")
    route = _real_route(org_type, available, what)
    return Route(route.spec, f"the session's org ({session_org}) is gone; this uses {route.spec}")


def task_route(task: Task, configured: str | None, *, session_org: str | None = None) -> Route:
    """`route_task` with what this machine has (snapshots fetched, credentials set)."""
    from crmarena_tui.demo.task_origin import is_real_task

    real = is_real_task(task)
    available = Available.probe() if real or session_org else Available()
    return route_task(task, configured, available, real=real, session_org=session_org)


def open_task_org(
    task: Task, configured: str | None, *, session_org: str | None = None, lenient: bool = False
) -> tuple[Org, Route]:
    """Open the org `task_route` picks for `task` (`lenient`: see `open_org`)."""
    route = task_route(task, configured, session_org=session_org)
    return open_org(route.spec, org_type=task.org_type, lenient=lenient), route


def check_source(source: str, configured: str | None) -> str | None:
    """For a hub source (`hf:b2b`...) and no `--org`: the message `NoOrgForTask` would give for
    its tasks when no real org is available, else None (checked before any task is loaded)."""
    if configured or not source.startswith("hf:"):
        return None
    split = source[3:]
    org_type = "original" if split == "original" else split.split("_")[0]
    if org_type not in ORG_TYPES:
        return None
    try:
        _real_route(org_type, Available.probe(), f"real {org_type} tasks ({source})")
    except NoOrgForTask as exc:
        return str(exc)
    return None
