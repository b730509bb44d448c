"""Turn an `--org` value into an Org instance.

`None` or `demo` picks the built-in demo org matching the task's org type (built on first use);
`demo:b2b` / `demo:b2c` pick one explicitly; `salesforce:b2b|b2c|original` the real org through
simple-salesforce; anything else is the path of an org `.db` file. A local org is strict (refuses
what Salesforce refuses) unless `lenient`; a Salesforce org is Salesforce itself.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from crmarena_tui.orgs.base import Org

SALESFORCE_PREFIX = "salesforce:"


class OrgSpecError(ValueError):
    pass


def org_kind(spec: str | None) -> str:
    if spec and spec.startswith(SALESFORCE_PREFIX):
        return "salesforce"
    if spec is None or spec == "demo" or spec.startswith("demo:"):
        return "demo"
    return "local"


def open_org(
    spec: str | None,
    *,
    org_type: str = "b2b",
    today: date | None = None,
    lenient: bool = False,
) -> Org:
    """The org `spec` names, for tasks of `org_type`; `today` fixes relative date literals;
    `lenient` makes a local org answer what Salesforce would refuse."""
    kind = org_kind(spec)
    if kind == "salesforce":
        from crmarena_tui.orgs.salesforce import SalesforceOrg

        which = spec[len(SALESFORCE_PREFIX) :]  # type: ignore[index]
        if which not in ("b2b", "b2c", "original"):
            raise OrgSpecError(
                f"unknown Salesforce org {which!r}: use salesforce:b2b, :b2c or :original"
            )
        return SalesforceOrg(org_type=which)
    from crmarena_tui.orgs.local import LocalOrg

    if kind == "demo":
        from crmarena_tui.demo.generator import ensure_demo_org

        demo_type = spec.split(":", 1)[1] if spec and ":" in spec else org_type
        if demo_type not in ("b2b", "b2c"):
            raise OrgSpecError(f"no demo org for {demo_type!r}: use demo:b2b or demo:b2c")
        return LocalOrg(ensure_demo_org(demo_type), today=today, lenient=lenient)
    path = Path(spec).expanduser()  # type: ignore[arg-type]
    if not path.exists():
        raise OrgSpecError(
            f"no org file at {path}; use --org demo, salesforce:b2b|b2c|original, or an org .db path"
        )
    return LocalOrg(path, today=today, lenient=lenient)
