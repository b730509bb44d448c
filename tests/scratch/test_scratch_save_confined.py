"""Where the scratch pane may save (issue 38): in a study (every connection of `serve --study`)
only a plain file name into the study's export folder, never `~`, a folder, `..` or a link; and
an existing file is replaced only after a second `enter`, in a study or not."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, Static

from crmarena_tui.scratch.save_target import SaveRefused, export_folder, save_target, write_output
from crmarena_tui.screens.save_dialog import SaveDialog
from crmarena_tui.screens.workspace import Workspace
from crmarena_tui.widgets.scratch_pane import ScratchPane
from tests.support.app_support import SIZE
from tests.support.app_support import wait_for_workers as settle
from tests.support.study_app_support import make_study, study_app


@pytest.mark.parametrize(
    "typed",
    [
        "~/.ssh/authorized_keys",
        "/etc/passwd",
        "../sessions.db",
        "sub/x.csv",
        ".bashrc",
        "..",
        "a\\b.csv",
        "x\x1b[2J.csv",
    ],
)
def test_in_a_study_only_a_plain_name_in_the_folder(typed: str, tmp_path: Path) -> None:
    with pytest.raises(SaveRefused, match="by file name only"):
        save_target(typed, tmp_path / "exports")
    assert save_target(" out.csv ", tmp_path / "exports") == tmp_path / "exports" / "out.csv"
    assert save_target("~/out.csv", None) == Path.home() / "out.csv"  # outside a study: anywhere


def test_a_file_is_not_replaced_unasked_nor_a_link_followed(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    write_output(target, "a\n", overwrite=False, confined=False)
    with pytest.raises(FileExistsError):
        write_output(target, "b\n", overwrite=False, confined=False)
    write_output(target, "c\n", overwrite=True, confined=False)
    assert target.read_text() == "c\n"
    secret = tmp_path / "config.toml"
    secret.write_text("blind = true\n")
    (tmp_path / "link.csv").symlink_to(secret)
    with pytest.raises(OSError):
        write_output(tmp_path / "link.csv", "blind = false\n", overwrite=True, confined=True)
    assert secret.read_text() == "blind = true\n"


def _hint(app) -> str:
    return str(app.screen.query_one("#save-hint", Static).render())


async def _type(pilot, app, path: str) -> None:
    app.screen.query_one("#save-path", Input).value = path
    await pilot.press("enter")
    await settle(pilot, app)


async def test_a_participant_saves_only_into_the_study_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    path = tmp_path / "sessions.db"
    make_study(path)
    before = path.read_bytes()
    app = study_app(path, "--as", "ann")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("enter")  # the queue's first task
        await settle(pilot, app)
        assert isinstance(app.screen, Workspace)
        await pilot.press("ctrl+o")
        pane = app.screen.query_one("#scratch", ScratchPane)
        pane.input.value = "1 + 1"
        await pilot.press("enter")
        await settle(pilot, app)
        await pilot.press("f9")
        await settle(pilot, app)
        assert isinstance(app.screen, SaveDialog)
        folder = export_folder("pilot")
        assert str(folder) in _hint(app)  # the dialog says where saves go
        for hostile in ("~/.ssh/authorized_keys", str(path), "../../config.toml"):
            await _type(pilot, app, hostile)
            assert isinstance(app.screen, SaveDialog), hostile  # refused: the dialog stays
        await _type(pilot, app, "mine.csv")
        assert not isinstance(app.screen, SaveDialog)
        assert (folder / "mine.csv").read_text().strip()
        (folder / "mine.csv").write_text("kept\n")
        await pilot.press("f9")
        await settle(pilot, app)
        await _type(pilot, app, "mine.csv")  # exists: asked, not written
        assert isinstance(app.screen, SaveDialog)
        assert "mine.csv exists: enter again replaces it" in _hint(app)
        assert (folder / "mine.csv").read_text() == "kept\n"
        await pilot.press("enter")  # asked and confirmed
        await settle(pilot, app)
        assert (folder / "mine.csv").read_text() != "kept\n"
    assert not (tmp_path / "home" / ".ssh").exists()
    assert path.read_bytes()[:16] == before[:16]  # still an SQLite database
    assert sorted(p.name for p in folder.iterdir()) == ["mine.csv"]
