"""A study made with `study create --allow-duplicates` (or `--allow-unknown-types`) plays with
`play --study` and `serve --study` without the flag: the source loads as `study create` loaded it,
the first row of a repeated idx kept."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from crmarena_tui.cli import build_parser
from crmarena_tui.commands.play import options_from
from crmarena_tui.commands.serve import play_command
from crmarena_tui.screens.task_browser import TaskBrowser
from tests.support.app_support import SAMPLE, SIZE
from tests.support.app_support import wait_for_workers as settle
from tests.support.study_app_support import make_study, queue_keys, study_app


def repeated_idx(tmp_path: Path) -> Path:
    """The sample rows and, after them, a second row with the first row's idx."""
    rows = json.loads(SAMPLE.read_text())
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps([*rows, {**rows[1], "idx": rows[0]["idx"]}]))
    return path


async def test_a_study_of_a_file_with_a_repeated_idx_plays_without_the_flag(
    tmp_path: Path,
) -> None:
    db = tmp_path / "sessions.db"
    make_study(db, "--allow-duplicates", tasks=repeated_idx(tmp_path))
    keys = queue_keys(db, "ann")
    app = study_app(db, "--as", "ann")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        browser = app.screen
        assert isinstance(browser, TaskBrowser)
        assert [row.full().key for row in browser.task_list.visible_tasks()] == keys
        notes = [n.message for n in app._notifications]
        assert any("left out: row 0 has the same idx (kept)" in n for n in notes), notes


def test_serve_study_tabs_load_the_source_as_the_study_did(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    make_study(db, "--allow-duplicates", tasks=repeated_idx(tmp_path))
    parser = build_parser()
    argv = shlex.split(
        play_command(parser.parse_args(["serve", "--study", "pilot", "--db", str(db)]))
    )
    options = options_from(parser.parse_args([*argv[3:], "--as", "ann"]))
    assert not isinstance(options, int)
    assert (options.allow_duplicates, options.allow_unknown_types) == (True, True)
