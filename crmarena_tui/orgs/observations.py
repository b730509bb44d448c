"""Reading an observation's text back into records, whichever protocol wrote it.

Under `workbench` an observation is JSON; under `upstream` it is Python's repr of the records, as
upstream's connector printed it (nested records as `OrderedDict([...])`), and upstream's result
files hold the same. `parse_observation` reads all three without evaluating code: only literals,
and `OrderedDict([(key, value), ...])` calls, are accepted. A workbench observation may end with
the org's warning on a line of its own (`orgs/unconverted.py`): the data is what precedes it.
"""

from __future__ import annotations

import ast
import json
from typing import Any

from crmarena_tui.orgs.unconverted import WARNING_PREFIX

PARSE_LIMIT = 2_000_000  # characters of Python literals; a longer repr is shown as text only


class _NotData(ValueError):
    pass


def _value(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.List | ast.Tuple):
        items = [_value(n) for n in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.Dict):
        return {
            _value(k) if k is not None else None: _value(v)
            for k, v in zip(node.keys, node.values, strict=True)
        }
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        inner = _value(node.operand)
        if isinstance(inner, int | float) and not isinstance(inner, bool):
            return -inner if isinstance(node.op, ast.USub) else inner
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "OrderedDict"
        and not node.keywords
        and len(node.args) <= 1
    ):
        pairs = _value(node.args[0]) if node.args else []
        if isinstance(pairs, list) and all(isinstance(p, tuple) and len(p) == 2 for p in pairs):
            return dict(pairs)
    raise _NotData(type(node).__name__)


def parse_observation(text: str) -> Any:
    """The data an observation holds (JSON of any length, or Python literals with `OrderedDict`
    calls up to `PARSE_LIMIT` characters), or None when it is not data (an error, a message)."""
    body = text.strip()
    head, _, tail = body.partition("\n")  # JSON and repr hold no raw line break
    if tail.startswith(WARNING_PREFIX):  # the org's warning after a workbench observation
        body = head
    if not body or body[0] not in "[{":
        return None
    try:
        return json.loads(body)
    except ValueError:
        pass
    if len(body) > PARSE_LIMIT:  # (the literal parser's tree of a long repr is far larger)
        return None
    try:
        return _value(ast.parse(body, mode="eval").body)
    except (_NotData, SyntaxError, ValueError, MemoryError, RecursionError, TypeError):
        return None


def observation_records(text: str) -> list[dict[str, Any]] | None:
    """The observation's records when it is a list of records (`[]` included), else None."""
    value = parse_observation(text)
    if isinstance(value, list) and all(isinstance(r, dict) for r in value):
        return value
    return None
