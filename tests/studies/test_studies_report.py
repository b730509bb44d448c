"""`study report`: intervals and kappas against worked examples computed by hand, and what the
report counts (the study's own submitted attempts; agents on the same tasks beside them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.graders.base import Grade
from crmarena_tui.storage import Store
from crmarena_tui.studies import db
from crmarena_tui.studies.stats import bootstrap_mean, fleiss_kappa, wilson
from tests.support.study_support import cli, grade, work, write_tasks


def test_wilson_against_worked_examples() -> None:
    # 7/10, z = 1.95996: p = 0.7, z^2 = 3.84146, z^2/n = 0.384146, denominator 1.384146.
    # centre = (0.7 + 3.84146/20) / 1.384146 = 0.892073 / 1.384146 = 0.644493
    # half = 1.95996 / 1.384146 * sqrt(0.7 * 0.3 / 10 + 3.84146 / 400)
    #      = 1.416006 * sqrt(0.021 + 0.009604) = 1.416006 * 0.174939 = 0.247715
    # interval = [0.396778, 0.892208]
    low, high = wilson(7, 10)
    assert (round(low, 3), round(high, 3)) == (0.397, 0.892)
    # 0/10: centre = 0.192073 / 1.384146 = 0.138766 = half: [0, 0.277533]
    low, high = wilson(0, 10)
    assert low == pytest.approx(0.0, abs=1e-9) and round(high, 3) == 0.278
    # 10/10 mirrors 0/10.
    assert tuple(round(x, 3) for x in wilson(10, 10)) == (0.722, 1.0)
    with pytest.raises(ValueError):
        wilson(3, 0)


def test_bootstrap_against_worked_examples() -> None:
    # Resampling [0, 1]: the mean is 0, 0.5 or 1 with chances 1/4, 1/2, 1/4; the 2.5% and
    # 97.5% quantiles of 2000 such means are 0 and 1.
    assert bootstrap_mean([0.0, 1.0]) == (0.0, 1.0)
    # [0, 0, 0, 1]: the mean is k/4 with k ~ Binomial(4, 1/4): P(k = 0) = 0.316 > 0.025, so the
    # low end is 0; P(k = 4) = 0.004 < 0.025 < P(k >= 3) = 0.051, so the high end is 0.75.
    assert bootstrap_mean([0.0, 0.0, 0.0, 1.0]) == (0.0, 0.75)
    assert bootstrap_mean([0.4] * 5) == pytest.approx((0.4, 0.4))
    values = [0.1, 0.9, 0.35, 0.6, 0.75, 0.2]
    assert bootstrap_mean(values) == bootstrap_mean(values)  # a fixed seed


def test_fleiss_kappa_against_a_worked_example() -> None:
    # 4 tasks, 3 raters, (correct, wrong) counts [3,0] [2,1] [0,3] [1,2]:
    # P_i = (sum n_ij^2 - 3) / 6 = 1, 1/3, 1, 1/3 -> P = 2/3; p_correct = 6/12 = 0.5 -> P_e = 0.5
    # kappa = (2/3 - 1/2) / (1 - 1/2) = 1/3
    assert fleiss_kappa([[3, 0], [2, 1], [0, 3], [1, 2]]) == pytest.approx(1 / 3)
    assert fleiss_kappa([[3, 0], [3, 0]]) is None  # all alike: P_e = 1
    assert fleiss_kappa([[3, 0], [0, 3]]) == pytest.approx(1.0)


def _study(tmp_path: Path, task_type: str, people: str, per_task: int, n: int) -> tuple:
    tasks = write_tasks(tmp_path / "tasks.json", per_type=n, types=(task_type,))
    dbfile = tmp_path / "s.db"
    code, _, err = cli(
        "study", "create", "pilot", "--tasks", str(tmp_path / "tasks.json"),
        "--per-task", str(per_task), "--participants", people, "--db", str(dbfile),
    )  # fmt: skip
    assert code == 0, err
    return dbfile, tasks


def test_the_report_for_two_experts_counts_only_the_studys_attempts(tmp_path: Path) -> None:
    dbfile, tasks = _study(tmp_path, "handle_time", "ana,bo", 2, 5)
    ana = [1.0, 1.0, 1.0, 1.0, 0.0]
    bo = [1.0, 1.0, 1.0, 0.0, 0.0]
    with Store(dbfile) as store:
        study = db.get_study(store, "pilot")
        for i, t in enumerate(tasks):
            work(store, "ana", t, study_id=study.id, reward=ana[i], seconds=60.0 * (i + 1))
            work(store, "bo", t, study_id=study.id, reward=bo[i], seconds=60.0 * (i + 1))
        # none of these count as the study's humans:
        work(store, "bo", tasks[4], study_id=None, reward=1.0)  # outside the study
        work(store, "bo", tasks[4], study_id=study.id, reward=1.0, session_kind="fork")
        work(store, "ana", tasks[3], study_id=study.id)  # in progress
        # agents on the same tasks; one run died on a rate limit, one on another task
        for t, r in zip(tasks[:4], [1.0, 0.0, 1.0, 0.0], strict=True):
            work(store, "gpt", t, study_id=None, reward=r, kind="agent", model="m")
        broken = work(store, "gpt2", tasks[0], study_id=None, reward=0.0, kind="agent", model="m")
        store.add_grade(broken.id, _infrastructure())
    code, out, _ = cli("study", "report", "pilot", "--db", str(dbfile), "--format", "json")
    assert code == 0
    (row,) = json.loads(out)["types"]
    # 7 of 10 correct: Wilson [0.397, 0.892] (worked above)
    assert row["human"] == {
        "n": 10,
        "value": 0.7,
        "low": 0.3968,
        "high": 0.8922,
        "method": "wilson",
    }
    # pairs (ana, bo): (1,1) x3, (1,0), (0,0): p_o = 4/5; 7 of the 10 ratings correct, pooled
    # over both experts (Scott's pi): p_e = 0.7^2 + 0.3^2 = 0.58; pi = (0.8 - 0.58) / 0.42 = 0.5238
    # (Cohen's kappa, with each expert's own shares, would be 0.5455)
    assert row["agreement"] == {
        "tasks": 5, "all_agree": 4, "all_agree_share": 0.8, "kappa": 0.5238,
        "kappa_kind": "scott_pi",
        "warning": None,  # 5 tasks: enough to read
    }  # fmt: skip
    # active seconds 60..300 twice: median 180, quartiles (inclusive) 120 and 240
    assert (row["time"]["median_s"], row["time"]["iqr_s"]) == (180.0, 120.0)
    assert [(a["agent"], a["n"], a["value"]) for a in row["agents"]] == [("gpt (m)", 4, 0.5)]
    code, out, _ = cli("study", "report", "pilot", "--db", str(dbfile))
    assert "handle_time  exact_match      5  10  0.700 [0.397, 0.892]  3m 00s (IQR 2m 00s)" in out
    assert "4/5        0.524 (Scott's pi)" in out
    assert "gpt (m)  workbench  4  0.500 [0.150, 0.850]  0.700 [0.397, 0.892]" in out


def _infrastructure() -> Grade:  # a grade saying the run died on the infrastructure
    return grade(0.0).model_copy(update={"metrics": {"infrastructure_error": "rate_limit"}})


def test_the_report_for_three_experts_uses_fleiss_and_bootstraps_f1(tmp_path: Path) -> None:
    dbfile, tasks = _study(tmp_path, "knowledge_qa", "ana,bo,cy", 3, 4)
    f1 = {  # F1 >= 0.5 is correct: per task (correct, wrong) = [3,0] [2,1] [0,3] [1,2]
        "ana": [0.9, 0.6, 0.1, 0.7],
        "bo": [0.8, 0.5, 0.0, 0.2],
        "cy": [1.0, 0.3, 0.4, 0.0],
    }
    with Store(dbfile) as store:
        study = db.get_study(store, "pilot")
        for who, values in f1.items():
            for t, value in zip(tasks, values, strict=True):
                work(store, who, t, study_id=study.id, reward=value, grader="fuzzy_match")
    code, out, _ = cli("study", "report", "pilot", "--db", str(dbfile), "--format", "json")
    (row,) = json.loads(out)["types"]
    assert row["metric"] == "fuzzy_match"
    assert row["agreement"]["kappa_kind"] == "fleiss"
    assert row["agreement"]["kappa"] == pytest.approx(1 / 3, abs=1e-4)  # worked above
    assert row["agreement"]["all_agree"] == 2
    assert "fewer than 5" in row["agreement"]["warning"]
    values = [v for vs in f1.values() for v in vs]
    low, high = bootstrap_mean(values)
    assert row["human"]["method"] == "bootstrap"
    assert row["human"]["value"] == pytest.approx(sum(values) / 12, abs=1e-4)
    assert (row["human"]["low"], row["human"]["high"]) == (round(low, 4), round(high, 4))
    assert row["human"]["low"] < row["human"]["value"] < row["human"]["high"]
    code, out, _ = cli("study", "report", "pilot", "--db", str(dbfile))
    assert "F1 0.458 [" in out and "0.333 (Fleiss) (!)" in out  # 4 tasks: a warning
    assert "(!) a kappa over fewer than 5 tasks" in out
    assert "Agents" not in out  # none ran these tasks
    code, _, err = cli("study", "report", "other", "--db", str(dbfile))
    assert code == 1 and "no study named 'other'" in err


# Two experts per task out of three, the pair changing from task to task (True: correct).
CHANGING_PAIRS = [
    {"ana": True, "bo": False},
    {"bo": True, "cy": True},
    {"cy": False, "ana": True},
    {"ana": False, "bo": False},
    {"bo": True, "cy": False},
]


def test_the_kappa_does_not_depend_on_the_order_experts_are_listed(tmp_path: Path) -> None:
    # (correct, wrong) per task: [1,1] [2,0] [1,1] [0,2] [1,1]. P_i = (sum n_ij^2 - 2) / 2 =
    # 0, 1, 0, 1, 0 -> P = 0.4; 5 of the 10 ratings correct -> P_e = 0.5^2 + 0.5^2 = 0.5;
    # Scott's pi = (0.4 - 0.5) / (1 - 0.5) = -0.2. (Cohen's kappa with the first-listed expert of
    # each pair as rater A gave 0.118 for ana,bo,cy and -0.154 for cy,ana,bo.)
    figures = []
    for n, people in enumerate(("ana,bo,cy", "cy,ana,bo")):
        where = tmp_path / str(n)
        where.mkdir()
        dbfile, tasks = _study(where, "handle_time", people, 2, len(CHANGING_PAIRS))
        with Store(dbfile) as store:
            study = db.get_study(store, "pilot")
            for t, wins in zip(tasks, CHANGING_PAIRS, strict=True):
                for who, win in wins.items():
                    work(store, who, t, study_id=study.id, reward=float(win))
        code, out, _ = cli("study", "report", "pilot", "--db", str(dbfile), "--format", "json")
        (row,) = json.loads(out)["types"]
        figures.append(row["agreement"])
        code, text, _ = cli("study", "report", "pilot", "--db", str(dbfile))
        assert "-0.200 (Scott's pi)" in text and "kappa: Fleiss'" in text
    assert figures[0] == figures[1]
    assert figures[0]["kappa"] == -0.2 and figures[0]["kappa_kind"] == "scott_pi"
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    table = [[sum(w.values()), 2 - sum(w.values())] for w in CHANGING_PAIRS]
    assert inter_rater.fleiss_kappa(table, method="fleiss") == pytest.approx(-0.2)
    assert fleiss_kappa(table) == pytest.approx(-0.2)
