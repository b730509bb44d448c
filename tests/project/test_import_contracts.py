"""The layers stay apart (docs/ARCHITECTURE.md, "Layers"): import-linter's contracts in
pyproject.toml hold, no import cycle joins modules of different folders, and the package's top
holds only a few loose modules."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support.source_tree_support import import_statements

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "crmarena_tui"
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_import_contracts_hold() -> None:
    run = _lint(ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


def test_a_core_module_importing_textual_breaks_a_contract(tmp_path: Path) -> None:
    shutil.copytree(
        PACKAGE, tmp_path / "crmarena_tui", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "crmarena_tui" / "storage" / "leak.py").write_text(
        "from crmarena_tui.widgets.key_footer import KeyFooter\n"
    )
    run = _lint(tmp_path)
    assert run.returncode == 1
    assert "crmarena_tui.storage.leak -> crmarena_tui.widgets.key_footer" in run.stdout


def import_graph(package: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports when it runs: module level and inside
    functions, not under `if TYPE_CHECKING:` (those never run)."""
    modules: dict[str, Path] = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path

    def known(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node, type_checking in import_statements(path):
            if type_checking:
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = here.split(".")[: len(here.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
            for target in targets:
                if (found := known(target)) and found != name:
                    graph[name].add(found)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The graph's strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in graph:  # (depth at most the number of modules: within the default limit)
        if node not in index:
            visit(node)
    return found


def _folder(module: str) -> str:
    """`crmarena_tui.storage.store` and `crmarena_tui.storage` are both in `storage`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and (PACKAGE / parts[1]).is_dir() else "(top)"


def test_no_import_cycle_crosses_folders() -> None:
    crossing = [
        sorted(component)
        for component in cycles(import_graph(PACKAGE))
        if len({_folder(m) for m in component}) > 1
    ]
    assert crossing == []


def test_the_graph_walk_sees_a_cycle_through_a_function_level_import(tmp_path: Path) -> None:
    package = tmp_path / "crmarena_tui"
    for folder, text in {
        "a": "from crmarena_tui.b.two import f\n",
        "b": "def f():\n    from crmarena_tui.a.one import g\n",
        "c": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from crmarena_tui.a import one\n",
    }.items():
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text("")
        (package / folder / ("one.py" if folder == "a" else "two.py")).write_text(text)
    (package / "__init__.py").write_text("")
    graph = import_graph(package)
    assert cycles(graph) == [{"crmarena_tui.a.one", "crmarena_tui.b.two"}]
    assert graph["crmarena_tui.c.two"] == set()  # a type hint's import is not a dependency


def test_the_package_top_holds_at_most_six_loose_modules() -> None:
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(loose) <= 6, loose
