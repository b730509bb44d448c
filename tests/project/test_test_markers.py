"""The test suite's own rules: a test that spies on Textual's private methods carries the `perf`
marker (so a textual upgrade that breaks it is read as a measuring problem, not a bug), and the
default run (CI's plain `pytest`) still selects every marked test."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

from tests.support.source_tree_support import parsed

TESTS = Path(__file__).parents[1]
ROOT = TESTS.parent
# Textual's private methods that the repaint tests count.
PRIVATE = re.compile(r"\b(_refresh_layout|_compositor_refresh|_repaint|_refresh_lines)\b")


def marks(node: ast.AST) -> set[str]:
    found = set()
    for dec in getattr(node, "decorator_list", []):
        text = ast.unparse(dec)
        if text.startswith("pytest.mark."):
            found.add(text.removeprefix("pytest.mark.").split("(")[0])
    return found


def module_marks(tree: ast.Module) -> set[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            return set(re.findall(r"pytest\.mark\.(\w+)", ast.unparse(node.value)))
    return set()


def test_tests_that_spy_on_textual_internals_are_marked_perf() -> None:
    unmarked = []
    spying = 0
    for path in sorted(TESTS.rglob("test_*.py")):
        lines = path.read_text().splitlines()
        tree = parsed(path)
        marked_module = "perf" in module_marks(tree)
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if not node.name.startswith("test_"):
                continue
            if PRIVATE.search("\n".join(lines[node.lineno - 1 : node.end_lineno])):
                spying += 1
                if not marked_module and "perf" not in marks(node):
                    unmarked.append(f"{path.name}::{node.name}")
    assert spying >= 3  # the check sees the repaint tests
    assert unmarked == []


def test_the_default_run_selects_the_marked_tests() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    registered = {m.split(":")[0] for m in config["markers"]}
    assert {"perf", "snapshot"} <= registered
    assert not re.search(r"(^|\s)(-m|--markers?)\b", config["addopts"])  # nothing deselected
    ci = (ROOT / ".ci" / "run").read_text()
    runs = re.findall(r"-m pytest\b([^\n&|;]*)", ci)
    assert runs and all(" -m " not in f"{args} " and "-k" not in args for args in runs), runs


def test_snapshot_tests_are_marked_and_there_are_at_least_twenty() -> None:
    unmarked, found = [], 0
    for path in sorted(TESTS.rglob("test_*.py")):
        tree = parsed(path)
        marked_module = "snapshot" in module_marks(tree)
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and "snap_compare" in {
                a.arg for a in node.args.args
            }:
                found += 1
                if not marked_module and "snapshot" not in marks(node):
                    unmarked.append(f"{path.name}::{node.name}")
    assert unmarked == []
    assert found >= 20


def full_sample(node: ast.AST) -> str | None:
    """The `sample=` of a test's `full` mark (`tests/PATH.py::NAME`, or `NAME` in its own
    module), or None when the mark names none."""
    for dec in getattr(node, "decorator_list", []):
        if isinstance(dec, ast.Call) and ast.unparse(dec.func) == "pytest.mark.full":
            for keyword in dec.keywords:
                if keyword.arg == "sample" and isinstance(keyword.value, ast.Constant):
                    return str(keyword.value.value)
    return None


def top_tests(path: Path) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    return {
        node.name: node
        for node in parsed(path).body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.startswith("test_")
    }


def test_full_runs_are_skipped_by_default_and_sampled_in_the_default_run() -> None:
    """A test marked `full` runs under `--full` (CI passes it). The default run keeps a cheaper
    check of the same behaviour: the test its mark names (`sample="tests/...py::test_..."`, or a
    name in its own module), else a seeded sample in its module (a test named `*sample*`)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "full" in {m.split(":")[0] for m in config["markers"]}
    full, unsampled = 0, []
    for path in sorted(TESTS.rglob("test_*.py")):
        tests = top_tests(path)
        for node in tests.values():
            if "full" not in marks(node):
                continue
            full += 1
            sample = full_sample(node)
            if sample is None:
                found = [n for name, n in tests.items() if "sample" in name]
            else:
                where, _, name = sample.rpartition("::")
                module = (
                    tests
                    if not where
                    else top_tests(ROOT / where)
                    if (ROOT / where).is_file()
                    else {}
                )
                found = [module[name]] if name in module else []
            if not [n for n in found if "full" not in marks(n)]:
                unsampled.append(f"{path.name}::{node.name} (sample: {sample or '*sample*'})")
    assert full >= 2 and unsampled == []
    conftest = (TESTS / "conftest.py").read_text()
    assert '"--full"' in conftest and "pytest.mark.skip(" in conftest
    assert 'os.environ.get("CI"' in conftest  # CI (CI=true) runs them with the README's command
