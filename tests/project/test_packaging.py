"""Packaging as the anchors keep it (issue 27): an SPDX licence with its file, every third-party
package the code imports declared (and nothing declared that is neither imported nor offered to
users by the README), no package-data entry for a folder that does not exist."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

from tests.support.source_tree_support import parsed

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
# Declared but never imported: command-line tools the README offers to users.
USER_TOOLS = {"sqlite-utils"}


def _name(requirement: str) -> str:
    return re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _imported_top_levels() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "crmarena_tui").rglob("*.py"):
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n != "crmarena_tui"}


def test_the_licence_is_an_spdx_expression_with_its_file() -> None:
    assert PROJECT["license"] == "Apache-2.0"
    assert PROJECT["license-files"] == ["LICENSE"]
    assert "Apache License" in (ROOT / "LICENSE").read_text()


def test_every_imported_package_is_declared_and_every_declared_one_is_used() -> None:
    declared = {_name(r) for r in PROJECT["dependencies"]}
    dists = packages_distributions()
    imported = set()
    for module in _imported_top_levels():
        assert module in dists, f"{module} is imported but installed by no distribution"
        imported.update(d.lower().replace("_", "-") for d in dists[module])
    assert imported - declared == set(), "imported but not declared"
    assert declared - imported - USER_TOOLS == set(), "declared but never imported"
    readme = (ROOT / "README.md").read_text()
    for tool in USER_TOOLS:
        assert tool in readme


def test_fast_moving_majors_have_an_upper_bound() -> None:
    for requirement in PROJECT["dependencies"]:
        assert "==" in requirement or "<" in requirement, requirement


def test_package_data_names_files_that_exist() -> None:
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]
    for package, patterns in package_data.items():
        folder = ROOT / package.replace(".", "/")
        for pattern in patterns:
            assert list(folder.glob(pattern)), f"{package}: {pattern} matches nothing"
