"""Text expressions of a parsed module, evaluated as data: the few shapes upstream's prompt texts
have (`agents/upstream_checkout.py` reads them).

`evaluate(node, env)` gives the text of a string constant, a name bound in `env`, `self.x` (bound
as "self.x"), `+` of texts, an f-string of texts, `.format(...)` and `.strip()` of a text, and
`x if x is not None else "..."`; `run_function` evaluates a function made of assignments and one
`return`. Anything else raises `Shape` naming it. Nothing is imported or executed: only these node
types are looked at.
"""

from __future__ import annotations

import ast


class Shape(Exception):
    """An expression of a shape `evaluate` does not read."""


def self_attr(node: ast.expr) -> str | None:
    """The attribute name of `self.<name>`, else None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr if node.value.id == "self" else None
    return None


def run_function(function: ast.FunctionDef, env: dict[str, object]) -> str:
    """A function made of assignments and one `return`, evaluated over `env`."""
    local = dict(env)
    for node in function.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # a docstring
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if not isinstance(target, ast.Name):
                raise Shape(f"an assignment to {ast.dump(target)[:40]}")
            local[target.id] = evaluate(node.value, local)
        elif isinstance(node, ast.Return) and node.value is not None:
            value = evaluate(node.value, local)
            if not isinstance(value, str):
                raise Shape("a return of something other than text")
            return value
        else:
            raise Shape(f"a {type(node).__name__} statement")
    raise Shape("no return")


def evaluate(node: ast.expr, env: dict[str, object]) -> object:
    """A text expression of the shapes listed in the module notes; `Shape` for any other."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str | None):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise Shape(f"the name {node.id}")
        return env[node.id]
    attr = self_attr(node)
    if attr is not None:
        if "self." + attr not in env:
            raise Shape(f"self.{attr}")
        return env["self." + attr]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = evaluate(node.left, env), evaluate(node.right, env)
        if isinstance(left, str) and isinstance(right, str):
            return left + right
        raise Shape("+ of something other than text")
    if isinstance(node, ast.JoinedStr):
        return "".join(_piece(part, env) for part in node.values)
    if isinstance(node, ast.IfExp):
        return _if_not_none(node, env)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return _call(node, env)
    raise Shape(type(node).__name__)


def _piece(part: ast.expr, env: dict[str, object]) -> str:
    if isinstance(part, ast.Constant) and isinstance(part.value, str):
        return part.value
    if isinstance(part, ast.FormattedValue) and part.conversion == -1 and part.format_spec is None:
        value = evaluate(part.value, env)
        if isinstance(value, str):
            return value
    raise Shape("an f-string field that is not text")


def _if_not_none(node: ast.IfExp, env: dict[str, object]) -> object:
    """`x if x is not None else "..."`."""
    test = node.test
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.IsNot)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        value = evaluate(test.left, env)
        return evaluate(node.body, env) if value is not None else evaluate(node.orelse, env)
    raise Shape("a conditional other than `is not None`")


def _call(node: ast.Call, env: dict[str, object]) -> str:
    assert isinstance(node.func, ast.Attribute)
    target = evaluate(node.func.value, env)
    if not isinstance(target, str):
        raise Shape("a method of something other than text")
    if node.func.attr == "strip" and not node.args and not node.keywords:
        return target.strip()
    if node.func.attr == "format":
        args = [evaluate(a, env) for a in node.args]
        kwargs = {kw.arg: evaluate(kw.value, env) for kw in node.keywords if kw.arg is not None}
        if len(kwargs) != len(node.keywords):
            raise Shape("format(**...)")
        return target.format(*args, **kwargs)
    raise Shape(f".{node.func.attr}()")
