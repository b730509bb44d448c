"""A process killed but not yet reaped by its parent (a zombie) counts as ended (issue 38): a
`serve` killed with `kill -9` under a supervisor that has not waited for it yet still ends its
connections' processes, and a lease such a process held is taken over at once."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from crmarena_tui.commands._parent_watch import alive, zombie
from crmarena_tui.storage import Store
from crmarena_tui.storage.leases import LeaseBook


def _zombie() -> subprocess.Popen[bytes]:
    """A child that has ended and is not waited for yet."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 30
    while not zombie(child.pid):
        assert time.monotonic() < deadline, "the child never ended"
        time.sleep(0.01)
    return child


def test_a_zombie_is_not_alive_and_its_lease_is_taken_at_once(tmp_path: Path) -> None:
    child = _zombie()
    try:
        assert not alive(child.pid)
        with Store(tmp_path / "l.db") as store:
            killed = LeaseBook(store, timeout=1000)
            killed.pid = child.pid
            assert killed.take("a1", "killed-app")
            assert LeaseBook(store, timeout=1000).take("a1", "B")  # not after 1000 s
    finally:
        child.wait()
    assert alive(os.getpid())
