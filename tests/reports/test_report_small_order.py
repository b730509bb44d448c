"""The report's "all task types" efficiency row sorts last among its participant's rows, after
every task type (issue 40, item 7): `handle_time` once sorted after it."""

from __future__ import annotations

import json
from pathlib import Path

from crmarena_tui.storage import Store
from crmarena_tui.storage.upstream import UpstreamImporter
from tests.support.study_support import cli

UPSTREAM = Path(__file__).parents[1] / "data" / "upstream"


def test_the_all_task_types_row_is_each_participants_last(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    with Store(path) as store:
        UpstreamImporter(store).import_paths([UPSTREAM])
    rows = json.loads(cli("report", "--db", str(path), "--format", "json")[1])["efficiency"]
    by_who: dict[str, list[str]] = {}
    for row in rows:
        by_who.setdefault(row["participant"], []).append(row["task_type"])
    assert any(len(types) > 1 for types in by_who.values())
    for types in by_who.values():
        assert types[-1] == "all task types"
        assert types[:-1] == sorted(types[:-1]) and "all task types" not in types[:-1]
