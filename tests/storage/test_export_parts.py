"""A killed export's hidden part files are removed by the next export of the same output; a
part another export is still writing (it holds a lock) and other outputs' parts are kept."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from crmarena_tui.cli import main
from crmarena_tui.storage import Store


def test_the_next_export_removes_stale_parts_only(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    with Store(db) as store:
        store.participant("human", "ana")
    out = tmp_path / "all.jsonl"
    stale = tmp_path / ".all.jsonl.k1ll3d.part"
    stale.write_bytes(b"x" * 100_000)
    stale_second = tmp_path / ".all.jsonl.k1ll3d.part.2"
    stale_second.write_bytes(b"y" * 1000)
    orphan = tmp_path / ".all.jsonl.gone.part.2"
    orphan.write_bytes(b"z")
    live = tmp_path / ".all.jsonl.runn1n.part"
    live.write_bytes(b"still writing")
    other = tmp_path / ".other.jsonl.k1ll3d.part"
    other.write_bytes(b"another output's")
    fd = os.open(live, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as the export writing it holds it
        assert main(["export", "--db", str(db), "--out", str(out)]) == 0
    finally:
        os.close(fd)
    assert out.exists()
    assert not stale.exists() and not stale_second.exists() and not orphan.exists()
    assert live.exists() and other.exists()
    assert sorted(p.name for p in tmp_path.glob(".all.jsonl.*")) == [live.name]
