"""An item's `traj` is checked in C-level passes when it is plainly valid, else walked message by
message: either way a valid one is accepted and a malformed one refused naming the message."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NoReturn

import pytest

from crmarena_tui.storage.upstream_file import UpstreamFormatError, _check_traj


def _fail(name: str, problem: str) -> NoReturn:
    raise UpstreamFormatError(Path("f.json"), f"item 0: field {name!r}", problem)


class _Message(dict[str, Any]):
    """A dict subclass: not what JSON gives, so the walk decides (and accepts it)."""


@pytest.mark.parametrize(
    "traj",
    [
        [],
        [{"role": "system", "content": "p"}, {"role": "user", "content": None}],
        [{"role": "assistant", "content": [{"type": "text", "text": "a"}]}, {"role": "tool"}],
        [_Message(role="user", content="q")],
    ],
)
def test_a_valid_trajectory_is_accepted(traj: list[Any]) -> None:
    assert _check_traj(traj, _fail) is traj


@pytest.mark.parametrize(
    ("traj", "problem"),
    [
        ("not a list", "expected a list of messages"),
        ([{"role": "user", "content": "q"}, "text"], "message 1: expected"),
        ([{"role": "user", "content": "q"}, {"role": ["user"]}], "message 1: expected"),
        ([{"role": "robot", "content": "q"}], "message 0: expected"),
        ([{"content": "q"}], "message 0: expected"),
        (
            [{"role": "user", "content": "q"}, {"role": "user", "content": 3}],
            "message 1: 'content'",
        ),
        ([{"role": "user", "content": {"text": "q"}}], "message 0: 'content' is not text"),
    ],
)
def test_a_malformed_trajectory_is_refused_naming_the_message(traj: Any, problem: str) -> None:
    with pytest.raises(UpstreamFormatError, match=problem):
        _check_traj(traj, _fail)
