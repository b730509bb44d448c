"""A participant filter that names no configuration says so in one line, with the closest known
names, and exits 1 (`report --participant`, `search participant:`): never a silent 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.storage import Store
from crmarena_tui.storage.participant_names import UnknownParticipant, check_named
from tests.support.agents_llm_support import make_task
from tests.support.spec_support import session_spec


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "p.db"
    with Store(path) as store:
        for n, (name, strategy) in enumerate(
            [("gpt-4o-2024-08-06", "react"), ("o1-mini", "act"), ("claude-3-5-sonnet", "react")]
        ):
            person = store.participant("agent", name, name, {"strategy": strategy})
            sid = store.create_session(session_spec(person, make_task(idx=n)), started_at=1e9).id
            store.append_event(sid, "agent", "submit", {"answer": "x"})
    return path


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["report", "--participant", "gpt4o"], "--participant"),
        (["search", "participant:gpt4o"], "participant:"),
    ],
)
def test_a_name_that_names_nothing_lists_the_closest(
    db: Path, argv: list[str], flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*argv, "--db", str(db)]) == 1
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and captured.out == ""
    assert f"{flag} 'gpt4o' names no configuration" in err
    closest = err.split("closest: ", 1)[1].split(", ")
    assert closest[0] in ("gpt-4o/react", "gpt-4o-2024-08-06/react", "gpt-4o-2024-08-06")
    assert "o1-mini/act" not in closest


def test_names_that_do_name_a_configuration_pass(db: Path, capsys) -> None:
    for wanted in ("gpt-4o", "gpt-4o-2024-08-06/react", "o1-mini", "claude-3-5-sonnet/react"):
        assert main(["report", "--participant", wanted, "--db", str(db)]) == 0, wanted
        assert main(["search", f"participant:{wanted}", "--db", str(db)]) == 0, wanted
    capsys.readouterr()


def test_with_nothing_close_it_lists_known_names() -> None:
    known = [("gpt-4o/react", "gpt-4o"), ("o1-mini/act", "o1-mini")]
    with pytest.raises(UnknownParticipant, match=r"known: gpt-4o/react, o1-mini/act$"):
        check_named(["zzzz"], known, "--participant")
    check_named(["zzzz"], [], "--participant")  # an empty database: nothing to say
