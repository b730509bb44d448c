"""Power of a planned comparison (issue 35, item 5): normal quantiles against published values
and scipy, the minimum detectable difference against hand-worked values and statsmodels' power
functions, and what `study create` and `report --mde` print."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from crmarena_tui.reports.power import (
    independent_mde,
    normal_quantile,
    paired_mde,
    paired_variance,
)
from crmarena_tui.storage import Store
from tests.support.study_support import cli, work, write_tasks

C = 1.959963984540054 + 0.8416212335729143  # z_0.975 + z_0.80 = 2.801585


@pytest.mark.parametrize(
    ("p", "z"),
    [  # published tables of the standard normal
        (0.5, 0.0),
        (0.8, 0.8416212335729143),
        (0.95, 1.6448536269514722),
        (0.975, 1.959963984540054),
        (0.995, 2.5758293035489004),
        (0.025, -1.959963984540054),
        (0.001, -3.090232306167813),
    ],
)
def test_normal_quantiles_against_published_values(p: float, z: float) -> None:
    assert normal_quantile(p) == pytest.approx(z, abs=1e-12)


def test_normal_quantiles_against_scipy() -> None:
    norm = pytest.importorskip("scipy.stats").norm
    for p in [1e-12, 1e-6, 0.01, 0.02425, 0.1, 0.33, 0.5, 0.77, 0.9, 0.97575, 0.999]:
        assert normal_quantile(p) == pytest.approx(norm.ppf(p), rel=1e-12, abs=1e-12)
    with pytest.raises(ValueError):
        normal_quantile(1.0)


def test_the_paired_mde_with_a_discordance_against_a_hand_worked_value() -> None:
    # K = 1, discordance 0.3, 100 tasks: Var(d) = 0.3 - delta^2, so delta = c sqrt(0.3 / (100 +
    # c^2)) = 2.801585 * sqrt(0.3 / 107.848880) = 2.801585 * 0.0527416 = 0.147760, either way.
    mde = paired_mde(100, 0.58, discordance=0.3)
    assert mde.up == pytest.approx(0.147760, abs=1e-6)
    assert mde.down == pytest.approx(0.147760, abs=1e-6)
    # A discordance of 0.05 leaves room for a difference of at most 0.05, and 100 tasks cannot
    # see one that small: c sqrt(0.05 / 107.85) = 0.0603 > 0.05.
    assert paired_mde(100, 0.58, discordance=0.05).up is None
    with pytest.raises(ValueError, match="impossible"):
        paired_mde(100, 0.9, discordance=0.5)  # at most 2 x 0.1 = 0.2


def test_the_paired_mde_against_statsmodels() -> None:
    power = pytest.importorskip("statsmodels.stats.power")
    for tasks, rate, experts in [(100, 0.58, 1), (60, 0.58, 2), (250, 0.3, 3), (40, 0.55, 1)]:
        # the one-sample z-test on the task differences: its standardized effect at 80%
        effect = power.NormalIndPower().solve_power(
            effect_size=None, nobs1=tasks, alpha=0.05, power=0.8, ratio=0
        )
        mde = paired_mde(tasks, rate, experts=experts)
        for sign, delta in ((1, mde.up), (-1, mde.down)):
            assert delta is not None
            sd = math.sqrt(paired_variance(rate + sign * delta, rate, experts, None))
            assert delta == pytest.approx(effect * sd, rel=1e-4)


def test_the_paired_mde_under_independence_by_hand() -> None:
    # 100 tasks, agent 0.58, one expert: the root of delta = c sqrt((p_h q_h + 0.2436) / 100).
    # At delta = 0.182568: p_h = 0.762568, p_h q_h = 0.181064, sum 0.424464, sqrt(/100) =
    # 0.0651509, times c = 0.182525 ~ delta.
    assert paired_mde(100, 0.58).up == pytest.approx(0.18257, abs=5e-5)
    # two experts halve the human side's variance: a smaller difference is seen
    assert paired_mde(100, 0.58, experts=2).up < paired_mde(100, 0.58).up


def test_the_independent_mde_has_80_percent_power_in_statsmodels() -> None:
    proportion = pytest.importorskip("statsmodels.stats.proportion")
    for tasks, rate, experts, agent_tasks in [
        (100, 0.58, 1, None), (60, 0.58, 2, 300), (200, 0.12, 1, 1000), (30, 0.5, 3, 30),
    ]:  # fmt: skip
        mde = independent_mde(tasks, rate, experts=experts, agent_tasks=agent_tasks)
        n_h = tasks * experts
        ratio = (agent_tasks or tasks) / n_h  # statsmodels: sample 1 the humans, 2 the agent
        for diff in (mde.up, -(mde.down or 0)):
            found = proportion.power_proportions_2indep(
                diff, rate, n_h, ratio=ratio, alpha=0.05, return_results=False
            )
            assert found == pytest.approx(0.8, abs=1e-4)


def test_study_create_prints_the_power_against_a_given_rate(tmp_path: Path) -> None:
    write_tasks(tmp_path / "tasks.json", per_type=20)  # 60 tasks
    code, out, err = cli(
        "study", "create", "pilot", "--tasks", str(tmp_path / "tasks.json"), "--per-task", "2",
        "--participants", "ana,bo,cy", "--agent-rate", "0.58", "--discordance", "0.3",
        "--db", str(tmp_path / "s.db"),
    )  # fmt: skip
    assert code == 0, err
    # K = 2, discordance 0.3: the root of delta = c sqrt(Var(d) / 60), as paired_mde finds it
    mde = paired_mde(60, 0.58, experts=2, discordance=0.3)
    assert mde.up is not None and mde.down is not None
    assert "60 tasks with 2 experts each" in out and "agent rate of 58.0% (given)" in out
    assert f"+{mde.up * 100:.1f} points above, -{mde.down * 100:.1f} points below" in out
    assert "assumes: paired (experts and agent on the same tasks): discordance 0.3" in out
    code, _, err = cli(
        "study", "create", "other", "--tasks", str(tmp_path / "tasks.json"), "--per-task", "2",
        "--participants", "ana,bo", "--agent-rate", "0.9", "--discordance", "0.5",
        "--db", str(tmp_path / "s.db"),
    )  # fmt: skip
    assert code == 2 and "impossible" in err  # options that cannot go together: usage
    code, out, _ = cli("study", "list", "--db", str(tmp_path / "s.db"))
    assert "pilot" in out and "other" not in out  # refused before it was written


def test_study_create_takes_the_agent_rate_from_the_database(tmp_path: Path) -> None:
    tasks = write_tasks(tmp_path / "tasks.json", per_type=4)  # 12 tasks
    dbfile = tmp_path / "s.db"
    with Store(dbfile) as store:  # an agent ran 10 of them, 6 correct; a second try counts
        for k, t in enumerate(tasks[:10]):
            work(store, "gpt", t, study_id=None, reward=float(k < 6), kind="agent", model="m")
        work(store, "gpt", tasks[9], study_id=None, reward=1.0, kind="agent", model="m")
    code, out, err = cli(
        "study", "create", "pilot", "--tasks", str(tmp_path / "tasks.json"), "--per-task", "1",
        "--participants", "ana,bo", "--db", str(dbfile),
    )  # fmt: skip
    assert code == 0, err
    # the latest attempt on task 10 is the correct one: 7 of 10
    assert "agent rate of 70.0% (the agents' latest graded attempts on these tasks: 7 of 10" in out
    mde = independent_mde(12, 0.7)  # 12 tasks cannot see a rise from 70% within [0, 1]
    assert mde.up is None and mde.down is not None
    assert (
        "independent (agent on 12 other tasks): none within [0, 1] above, "
        f"-{mde.down * 100:.1f} points below"
    ) in out
    code, out, _ = cli(
        "study", "create", "none", "--tasks", str(tmp_path / "tasks.json"), "--per-task", "1",
        "--participants", "ana", "--task", "handle_time", "--db", str(tmp_path / "t.db"),
    )  # fmt: skip
    assert "agent rate of 50.0% (no graded agent attempt on these tasks" in out


def test_report_mde_sizes_each_configuration(tmp_path: Path) -> None:
    tasks = write_tasks(tmp_path / "tasks.json", per_type=4)
    dbfile = tmp_path / "s.db"
    with Store(dbfile) as store:  # 9 of 12 correct: 0.75
        for k, t in enumerate(tasks):
            work(store, "gpt", t, study_id=None, reward=float(k < 9), kind="agent", model="m")
    code, out, err = cli(
        "report", "--db", str(dbfile), "--format", "json", "--mde", "--experts", "3"
    )
    assert code == 0, err
    (row,) = json.loads(out)["power"]["rows"]
    paired = paired_mde(12, 0.75, experts=3)
    assert (row["tasks"], row["success_rate"]) == (12, 0.75)
    assert paired.up is None and paired.down is not None  # no room above 75% to see
    assert row["paired_mde"] == [None, round(paired.down, 4)]
    code, text, _ = cli("report", "--db", str(dbfile), "--mde", "--experts", "3")
    assert "Smallest detectable difference" in text and f"— / -{paired.down * 100:.1f} pts" in text
    assert "Assumes:" in text
    code, out, _ = cli("report", "--db", str(dbfile), "--format", "json")
    assert "power" not in json.loads(out)  # only when asked
