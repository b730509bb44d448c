"""Every `--help` page of the command line renders (issue 27: `study --help` crashed on a bare
"95%" in a help text, which argparse reads as a format directive)."""

from __future__ import annotations

import argparse

import pytest

from crmarena_tui import cli


def _command_paths() -> list[tuple[str, ...]]:
    """Every command and subcommand of the parser, as the words a user types."""
    paths: list[tuple[str, ...]] = []

    def walk(parser: argparse.ArgumentParser, prefix: tuple[str, ...]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    paths.append((*prefix, name))
                    walk(sub, (*prefix, name))

    walk(cli.build_parser(), ())
    return paths


COMMANDS = _command_paths()


def test_the_walk_finds_the_commands_and_their_subcommands() -> None:
    assert ("run",) in COMMANDS
    assert ("study", "report") in COMMANDS
    assert ("org", "import") in COMMANDS
    assert len(COMMANDS) > 25


@pytest.mark.parametrize("words", [(), *COMMANDS], ids=lambda w: " ".join(w) or "top")
def test_help_page_renders_and_exits_zero(
    words: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main([*words, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: crmarena-tui")
    assert "Traceback" not in out
