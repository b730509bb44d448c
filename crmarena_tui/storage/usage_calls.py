"""How many model calls a `usage` event stands for, in SQL and in Python (one rule for both).

A usage event is one model call when the project's own agents record it, but not always: an
external agent reporting over MCP may total several calls in one report (`calls: 6`), and an
imported upstream run has one usage event per task whose `per_call` lists (`prompt_tokens`,
`cost`... as upstream's `agent_info.usage` kept them) hold one entry per call, and whose
`calls` field says how many. So a usage event counts:
1. its `calls` field, when it is a whole number of at least 0;
2. else the length of its `per_call.total_tokens` list, else of its `per_call.cost` list (the
   lists the importer counts), when not empty;
3. else 1 (nothing says: the event is one call).
"""

from __future__ import annotations

from typing import Any

# `payload` is the events table's JSON column; json_array_length is NULL for a missing path.
CALLS_SQL = (
    "CASE WHEN json_type(payload, '$.calls') IN ('integer', 'real')"
    " AND json_extract(payload, '$.calls') >= 0"
    " AND json_extract(payload, '$.calls') = CAST(json_extract(payload, '$.calls') AS INTEGER)"
    " THEN CAST(json_extract(payload, '$.calls') AS INTEGER)"
    " ELSE COALESCE(NULLIF(json_array_length(payload, '$.per_call.total_tokens'), 0),"
    " NULLIF(json_array_length(payload, '$.per_call.cost'), 0), 1) END"
)


def model_calls(payload: dict[str, Any]) -> int:
    """The model calls one usage event's payload stands for (the rule above; `CALLS_SQL`)."""
    calls = payload.get("calls")
    if type(calls) is int and calls >= 0:
        return calls
    if type(calls) is float and calls >= 0 and calls.is_integer():
        return int(calls)
    per_call = payload.get("per_call")
    if isinstance(per_call, dict):
        for name in ("total_tokens", "cost"):
            values = per_call.get(name)
            if isinstance(values, list) and values:
                return len(values)
    return 1
