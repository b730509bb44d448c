"""The syntax trees of the project's own files, for the checks in tests/project (no tests here).

A dozen of those checks walk the whole package or the whole test suite; each file's text is
parsed once per process and the tree shared (a copy of the package in a temporary folder, as the
planted-import checks make, has the same texts and reuses them). Callers read the trees and never
change them.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path


@functools.cache
def _tree(text: str) -> ast.Module:
    return ast.parse(text)


def parsed(path: Path) -> ast.Module:
    """The syntax tree of `path` as it reads now (a file that does not parse raises with its name)."""
    text = path.read_text(encoding="utf-8")
    try:
        return _tree(text)
    except SyntaxError:
        return ast.parse(text, filename=str(path))


ImportStatement = ast.Import | ast.ImportFrom


@functools.cache
def _imports(text: str) -> tuple[tuple[ImportStatement, bool], ...]:
    tree = _tree(text)
    hinted = {
        id(node)
        for branch in ast.walk(tree)
        if isinstance(branch, ast.If) and "TYPE_CHECKING" in ast.unparse(branch.test)
        for statement in branch.body
        for node in ast.walk(statement)
    }
    return tuple(
        (node, id(node) in hinted)
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
    )


def import_statements(path: Path) -> tuple[tuple[ImportStatement, bool], ...]:
    """Every import statement of `path` (module level, in functions, under `if TYPE_CHECKING:`),
    each with whether it is a type-checking one (it never runs)."""
    text = path.read_text(encoding="utf-8")
    try:
        return _imports(text)
    except SyntaxError:
        ast.parse(text, filename=str(path))  # raises again, naming the file
        raise
