"""The folders are layers in one order (docs/ARCHITECTURE.md, "Layers"), declared once: the
`layers` contract in pyproject.toml. import-linter checks it at run time's imports; this file
checks the same order counting every import, inside functions and under `if TYPE_CHECKING:`
too (a type hint that names an upper layer is a cycle a reader meets), and that a planted
upward import fails both checks.

An edge the contract's `ignore_imports` lists (each commented there) is allowed here too, so
the exceptions live in one place.
"""

from __future__ import annotations

import ast
import fnmatch
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path

from tests.project.test_import_contracts import _lint
from tests.support.source_tree_support import import_statements

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "crmarena_tui"
NAME = "crmarena_tui"


@dataclass(frozen=True, slots=True)
class Order:
    rank: dict[str, int]  # folder or top-level module -> its layer's place (0 the highest)
    shared: set[int]  # the layers whose members may import each other (`a : b`)
    ignored: list[tuple[str, str]]  # (importer, imported) patterns of `ignore_imports`


def declared_order(pyproject: Path) -> Order:
    """The layers contract of `pyproject`, as the order of the package's folders."""
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c["type"] == "layers"]
    rank: dict[str, int] = {}
    shared: set[int] = set()
    for place, layer in enumerate(contract["layers"]):
        if ":" in layer:
            shared.add(place)
        for member in layer.replace(":", "|").split("|"):
            rank[member.strip()] = place
    ignored = [
        (a.strip(), b.strip())
        for a, _, b in (line.partition("->") for line in contract.get("ignore_imports", []))
    ]
    return Order(rank, shared, ignored)


def imports(package: Path) -> list[tuple[str, str, str]]:
    """(importing module, imported module, file) for every import of the package by its own
    modules: module level, inside functions and under TYPE_CHECKING."""
    paths = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        paths[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    found: list[tuple[str, str, str]] = []
    for module, path in paths.items():
        here = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node, _ in import_statements(path):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = here.split(".")[: len(here.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                named = [f"{base}.{alias.name}" for alias in node.names]  # a submodule?
                targets = [t for t in named if t in paths] or [base]
            else:
                continue
            rel = str(path.relative_to(package.parent))
            found.extend((module, t, rel) for t in targets if t.startswith(NAME + "."))
    return found


def _folder(module: str) -> str:
    return module.split(".")[1]


def _ignored(order: Order, importer: str, imported: str) -> bool:
    return any(
        fnmatch.fnmatchcase(importer, a) and fnmatch.fnmatchcase(imported, b)
        for a, b in order.ignored
    )


def upward(package: Path, order: Order) -> list[str]:
    """Every import of a layer above the importer's, or of an independent sibling's."""
    wrong = []
    for importer, imported, where in imports(package):
        if importer == NAME:
            continue
        low, high = _folder(importer), _folder(imported)
        if low == high or _ignored(order, importer, imported):
            continue
        mine, theirs = order.rank[low], order.rank[high]
        if theirs < mine or (theirs == mine and mine not in order.shared):
            wrong.append(f"{where}: {importer} -> {imported}")
    return wrong


def folder_cycles(package: Path, order: Order) -> list[set[str]]:
    """Strongly connected sets of more than one folder, in the graph of every import."""
    graph: dict[str, set[str]] = {}
    for importer, imported, _ in imports(package):
        if importer != NAME and not _ignored(order, importer, imported):
            graph.setdefault(_folder(importer), set()).add(_folder(imported))
            graph.setdefault(_folder(imported), set())
    reach = {node: _reachable(graph, node) for node in graph}
    cycles: list[set[str]] = []
    for node in sorted(graph):
        component = {n for n in reach[node] if node in reach[n]} | {node}
        if len(component) > 1 and component not in cycles:
            cycles.append(component)
    return cycles


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in graph[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


ORDER = declared_order(ROOT / "pyproject.toml")


def test_every_folder_and_top_module_has_a_place_in_the_order() -> None:
    present = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    present |= {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert present == set(ORDER.rank)


def test_no_import_reaches_up_a_layer_counting_type_hints_and_functions() -> None:
    assert upward(PACKAGE, ORDER) == []


def test_no_import_cycle_between_folders_counting_type_hints_and_functions() -> None:
    """Only folders sharing one layer (`a : b`, whose members may import each other) may still
    form a cycle; none between layers."""
    across = [
        sorted(c) for c in folder_cycles(PACKAGE, ORDER) if len({ORDER.rank[f] for f in c}) > 1
    ]
    assert across == []


def _copy(tmp_path: Path) -> Path:
    shutil.copytree(PACKAGE, tmp_path / NAME, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path / NAME


def test_a_planted_upward_import_fails_lint_imports_and_this_check(tmp_path: Path) -> None:
    package = _copy(tmp_path)
    (package / "tasks" / "leak.py").write_text(
        "def source():\n    from crmarena_tui.demo import sources\n\n    return sources\n"
    )
    run = _lint(tmp_path)
    assert run.returncode == 1, run.stdout
    assert "crmarena_tui.tasks.leak -> crmarena_tui.demo.sources" in run.stdout
    assert upward(package, ORDER) == [
        "crmarena_tui/tasks/leak.py: crmarena_tui.tasks.leak -> crmarena_tui.demo.sources"
    ]


def test_a_type_hint_reaching_up_fails_this_check(tmp_path: Path) -> None:
    """import-linter skips TYPE_CHECKING imports (`exclude_type_checking_imports`); this check
    does not, and it sees the cycle the hint closes."""
    package = _copy(tmp_path)
    (package / "orgs" / "hint.py").write_text(
        "from typing import TYPE_CHECKING\n\n"
        "if TYPE_CHECKING:\n    from crmarena_tui.session.episode import Episode\n"
    )
    assert upward(package, ORDER) == [
        "crmarena_tui/orgs/hint.py: crmarena_tui.orgs.hint -> crmarena_tui.session.episode"
    ]
    assert any({"orgs", "session"} <= c for c in folder_cycles(package, ORDER))


def test_the_order_reads_siblings_and_exceptions(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.importlinter]\nroot_package = "p"\n\n[[tool.importlinter.contracts]]\n'
        'name = "l"\ntype = "layers"\ncontainers = ["p"]\n'
        'layers = ["a : b", "c | d", "e"]\nignore_imports = ["p.e.x -> p.c.*"]\n'
    )
    order = declared_order(tmp_path / "pyproject.toml")
    assert order.rank == {"a": 0, "b": 0, "c": 1, "d": 1, "e": 2}
    assert order.shared == {0}
    assert _ignored(order, "p.e.x", "p.c.y") and not _ignored(order, "p.e.z", "p.c.y")


def test_every_exception_is_commented_and_a_stale_one_is_an_error() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    config = tomllib.loads(text)["tool"]["importlinter"]
    (contract,) = [
        c
        for c in config["contracts"]
        if c["type"] == "layers" and c.get("containers") == ["crmarena_tui"]
    ]
    assert contract["unmatched_ignore_imports_alerting"] == "error"
    if not contract.get("ignore_imports"):
        return  # no exception to the order: nothing to comment
    body = text.split(f'name = "{contract["name"]}"', 1)[1]
    block = body.split("ignore_imports = [", 1)[1].split("]", 1)[0]
    commented = False
    for line in block.splitlines():
        commented = commented or line.strip().startswith("#") or "#" in line
        assert commented or not line.strip(), f"an exception without a comment: {line.strip()}"
