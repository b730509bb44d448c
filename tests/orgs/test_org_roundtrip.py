"""The real benchmark's path, end to end on the demo data: each demo org dumped as an
upstream-shaped snapshot (a different naive storage for each), imported, then worked by the
reference agent on a seeded sample of every task type (all 528 small-set demo tasks under
`--full`) with the same queries and answers as on the original orgs and a score of 1.000;
`org verify` finds no difference between each demo org and its round trip."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from datetime import date
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.demo.generator import ensure_demo_org, org_meta
from crmarena_tui.demo.tasks import demo_tasks
from crmarena_tui.orgs.local import LocalOrg
from crmarena_tui.orgs.snapshot_import import import_snapshot
from tests.support.reference_agent_support import Player
from tests.support.snapshot_support import STYLES, snapshot_of_demo

pytestmark = pytest.mark.slow  # two corpora imported (~15 s of CPU)


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("roundtrip")
    out = {}
    for org_type in ("b2b", "b2c"):
        today = date.fromisoformat(org_meta(ensure_demo_org(org_type))["today"])
        snap = snapshot_of_demo(folder / org_type, org_type, STYLES[org_type])
        report = import_snapshot(snap, folder / f"upstream-{org_type}.db", today=today)
        assert report.failed_values == 0 and not report.missing_objects
        out[org_type] = folder / f"upstream-{org_type}.db"
    return out


SAMPLE_SEED = 39  # the default run's sample: one task of each type, org type and mode


def _sample(tasks: list) -> list:
    """One task of each (org type, single-turn/interactive, task type), drawn with a fixed seed."""
    groups: dict[tuple[str, bool, str], list] = defaultdict(list)
    for task in tasks:
        groups[(task.org_type, task.interactive, task.task)].append(task)
    rng = random.Random(SAMPLE_SEED)
    return [rng.choice(groups[key]) for key in sorted(groups)]


def _same_on_the_copies(imported: dict[str, Path], tmp_path: Path, tasks: list) -> None:
    originals = {t: LocalOrg(ensure_demo_org(t)) for t in ("b2b", "b2c")}
    copies = {t: LocalOrg(imported[t]) for t in ("b2b", "b2c")}
    on_demo = Player(tmp_path / "a.db")
    on_copy = Player(tmp_path / "b.db")
    try:
        for task in tasks:
            want = on_demo.play(task, originals[task.org_type])
            got = on_copy.play(task, copies[task.org_type])
            assert got.episode.status == "submitted", task.key
            assert got.reward == 1.0, (task.key, got.answer, task.answer)
            assert (got.queries, got.answer) == (want.queries, want.answer), task.key
    finally:
        on_demo.close()
        on_copy.close()
        for org in [*originals.values(), *copies.values()]:
            org.close()


def test_the_reference_agent_scores_1_on_a_sample_of_every_task_type_on_the_imported_orgs(
    imported: dict[str, Path], tmp_path: Path
) -> None:
    """A fixed sample of the small set, one task of each type in each org type and mode (all
    528 run under `--full`, below)."""
    tasks = _sample(demo_tasks(size="small"))
    assert len(tasks) == 2 * 2 * 22
    _same_on_the_copies(imported, tmp_path, tasks)


@pytest.mark.full
def test_the_reference_agent_scores_1_on_every_demo_task_against_the_imported_orgs(
    imported: dict[str, Path], tmp_path: Path
) -> None:
    tasks = demo_tasks(size="small")
    assert len(tasks) == 528
    _same_on_the_copies(imported, tmp_path, tasks)


@pytest.mark.parametrize("org_type", ["b2b", "b2c"])
def test_verify_finds_no_difference_between_a_demo_org_and_its_round_trip(
    imported: dict[str, Path], org_type: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["org", "verify", f"demo:{org_type}", str(imported[org_type]), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert (code, report["differences"]) == (0, 0)
    assert report["queries"] > 250
