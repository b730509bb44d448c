"""What an agent is shown of a query result, under each protocol (the text the Episode stores as
the result's `observation` event; `orgs/observations.py` reads it back into records).

Under `workbench` it is this project's JSON (`QueryResult.observation`), followed on its own line
by the org's warning when the result carries one (`orgs/unconverted.py`). Under `upstream` it is
what upstream's connector printed (SalesforceAIResearch/CRMArena at 32b609a,
`crm_sandbox/env/connect_sandbox.py`): Python's repr of the records list as simple-salesforce
1.12.6 (upstream's pin) returns it: JSON objects decoded as `OrderedDict`, the top-level records
rebuilt as plain dicts without `attributes` and without the keys (of the first record) that are
null in every record; nested parents keep their `attributes`, child subqueries keep
`{totalSize, done, records}`; `COUNT()` shows `[]`. OrderedDicts print as Python 3.10 printed
them (`OrderedDict([('k', v)])`): upstream's pinned packages include the `exceptiongroup`
back-port, installed only below Python 3.11.
"""

from __future__ import annotations

import re
from typing import Any

from crmarena_tui.orgs.base import QueryResult

SEEN_API_VERSION = "v59.0"  # simple-salesforce 1.12.6's default API version, in records' urls
_API_URL = re.compile(r"^/services/data/v[0-9.]+/")


class ConnectorCrash(RuntimeError):
    """Upstream's connector raised on this result (a search whose first record has a field that
    another record lacks): the run ended there, with reward 0."""


def observation_text(result: QueryResult, protocol: str) -> str:
    """What an agent under `protocol` (`upstream` or `workbench`) is shown of a query result
    (after the observation prefix). Raises `ConnectorCrash` where upstream's connector raised."""
    if protocol == "upstream":  # never more than upstream's connector showed
        return upstream_observation(result)
    text = result.observation()
    return f"{text}\n{result.warning}" if result.warning and result.ok else text


def upstream_observation(result: QueryResult) -> str:
    """What upstream's agent was shown of `result` (after "Salesforce instance output: ").

    Raises `ConnectorCrash` where upstream's connector raised."""
    if result.error:
        return result.error
    records = [dict(r) for r in result.records]
    if not records:
        return "[]"
    for record in records:
        record.pop("attributes", None)
    try:  # every record is looked at for every key (upstream built the whole list first)
        null = {k for k in records[0] if all([r[k] is None for r in records])}  # noqa: C419
    except KeyError as exc:
        raise ConnectorCrash(f"KeyError: {exc}") from None
    shown = [{k: v for k, v in r.items() if k not in null} for r in records]
    return "[" + ", ".join(_py_repr(r, ordered=False) for r in shown) + "]"


def _py_repr(value: Any, *, ordered: bool = True) -> str:
    """Python 3.10's repr, with every JSON object decoded as an OrderedDict (`ordered`) except the
    top-level records, which upstream rebuilt as plain dicts."""
    if isinstance(value, dict):
        if isinstance(value.get("attributes"), dict):
            value = {**value, "attributes": _seen_attributes(value["attributes"])}
        if not ordered:
            return "{" + ", ".join(f"{k!r}: {_py_repr(v)}" for k, v in value.items()) + "}"
        if not value:
            return "OrderedDict()"
        pairs = ", ".join(f"({k!r}, {_py_repr(v)})" for k, v in value.items())
        return f"OrderedDict([{pairs}])"
    if isinstance(value, list):
        return "[" + ", ".join(_py_repr(v) for v in value) + "]"
    return repr(value)


def _seen_attributes(attributes: dict[str, Any]) -> dict[str, Any]:
    """A nested record's `attributes`, its url on the API version upstream's client called."""
    url = attributes.get("url")
    if not isinstance(url, str):
        return attributes
    return {**attributes, "url": _API_URL.sub(f"/services/data/{SEEN_API_VERSION}/", url)}
