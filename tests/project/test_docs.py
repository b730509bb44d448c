"""The docs as a reader finds them (issue 27): a short README that links every guide under
`docs/`, links that all lead somewhere, and every command of the CLI named in the README's table
with a guide that tells it."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from crmarena_tui import cli

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
GUIDES = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, ROOT / "benchmarks" / "README.md", *GUIDES]

_FENCE = re.compile(r"^```.*?^```", re.M | re.S)
_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")


def _prose(text: str) -> str:
    """The text with code blocks and inline code taken out (a `[x](y)` in code is no link)."""
    return _CODE.sub("", _FENCE.sub("", text))


def _links(page: Path) -> list[str]:
    return _LINK.findall(_prose(page.read_text(encoding="utf-8")))


def _anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation out, spaces to
    hyphens, a repeated one numbered `-1`, `-2`..."""
    seen: dict[str, int] = {}
    anchors = set()
    for line in _FENCE.sub("", page.read_text(encoding="utf-8")).splitlines():
        heading = re.match(r"#{1,6} (.*)", line)
        if not heading:
            continue
        slug = re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def test_the_readme_is_a_newcomers_page() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines"


def test_the_readme_links_every_guide() -> None:
    linked = {(README.parent / link.split("#")[0]).resolve() for link in _links(README)}
    assert len(GUIDES) >= 8
    assert [g.name for g in GUIDES if g.resolve() not in linked] == []


def test_every_link_leads_to_a_file_and_heading_that_exist() -> None:
    broken = []
    for page in PAGES:
        for link in _links(page):
            if re.match(r"[a-z]+:", link):  # https:, mailto: (no network in tests)
                continue
            path, _, anchor = link.partition("#")
            target = (page.parent / path).resolve() if path else page
            if not target.exists():
                broken.append(f"{page.relative_to(ROOT)}: {link} (no such file)")
            elif anchor and anchor not in _anchors(target):
                broken.append(f"{page.relative_to(ROOT)}: {link} (no such heading)")
    assert broken == []


def _commands() -> list[str]:
    parser = cli.build_parser()
    subparsers = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return [name for action in subparsers for name in action.choices]


def test_every_command_is_in_the_readme_table_with_a_guide_that_tells_it() -> None:
    rows = [r for r in README.read_text(encoding="utf-8").splitlines() if r.startswith("| `")]
    commands = _commands()
    assert {"play", "run", "mcp", "study", "search"} <= set(commands)
    missing = []
    for command in commands:
        row = next((r for r in rows if f"`crmarena-tui {command}" in r.split(" | ")[0]), None)
        guides = [] if row is None else [m.split("#")[0] or "README.md" for m in _LINK.findall(row)]
        told = [g for g in guides if f"crmarena-tui {command}" in (ROOT / g).read_text()]
        if not told:
            missing.append(command)
    assert missing == []


def test_the_command_reference_lists_every_command_and_subcommand() -> None:
    reference = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    first_cells = [r.split(" | ")[0] for r in reference.splitlines() if r.startswith("| `")]
    parser = cli.build_parser()
    missing = []
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        for name, sub in action.choices.items():
            subs = [a for a in sub._actions if isinstance(a, argparse._SubParsersAction)]
            for words in [f"{name} {s}" for a in subs for s in a.choices] or [name]:
                first, *rest = words.split()
                if not any(
                    f"crmarena-tui {first}" in cell
                    and all(re.search(rf"\b{w}\b", cell) for w in rest)
                    for cell in first_cells
                ):
                    missing.append(words)
    assert missing == []


def test_the_code_points_users_at_guides_that_exist_never_at_readme_sections() -> None:
    named, readme = set(), []
    for source in sorted((ROOT / "crmarena_tui").rglob("*.py")):
        text = source.read_text(encoding="utf-8")
        named.update(re.findall(r"docs/[\w-]+\.md", text))
        if "README" in text:
            readme.append(str(source.relative_to(ROOT)))
    assert readme == []  # the README holds no sections to point at any more: the guides do
    assert "docs/settings.md" in named
    assert [page for page in sorted(named) if not (ROOT / page).exists()] == []
