"""The task as the unit (issue 35): pass@k and pass^k, task means, standard errors across tasks
(clustered on request) and the interval each row names, worked by hand and read back from
`crmarena-tui report`."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from statsmodels.stats.proportion import proportion_confint

from crmarena_tui.cli import main
from crmarena_tui.reports import summary
from crmarena_tui.reports.task_units import (
    Options,
    Tally,
    pass_at_k,
    pass_hat_k,
    standard_error,
    unit_figures,
)
from crmarena_tui.storage import Store
from tests.reports.test_report_sql import same
from tests.support.report_support import python_report
from tests.support.trials_support import add_trials

# The hand-worked table: 3 tasks, 4 trials each, with 4, 2 and 1 successes.
#   k  task  pass^k = C(c,k)/C(4,k)   pass@k = 1 - C(4-c,k)/C(4,k)
#   1  c=4   4/4 = 1                  1 - 0/4 = 1
#      c=2   2/4 = .5                 1 - 2/4 = .5
#      c=1   1/4 = .25                1 - 3/4 = .25      means: pass^1 = pass@1 = 1.75/3
#   2  c=4   6/6 = 1                  1 - 0/6 = 1
#      c=2   1/6                      1 - 1/6 = 5/6
#      c=1   0/6 = 0                  1 - 3/6 = .5       means: 7/18 and 7/9
#   3  c=4   4/4 = 1                  1
#      c=2   0/4 = 0                  1 - 0/4 = 1
#      c=1   0                        1 - 1/4 = .75      means: 1/3 and 11/12
#   4  c=4   1; c=2 0; c=1 0          1, 1, 1            means: 1/3 and 1
HAND = {1: (1.75 / 3, 1.75 / 3), 2: (7 / 9, 7 / 18), 3: (11 / 12, 1 / 3), 4: (1.0, 1 / 3)}
TABLE = {0: [1, 1, 1, 1], 1: [1, 0, 1, 0], 2: [0, 0, 1, 0]}


@pytest.mark.parametrize("k", sorted(HAND))
def test_pass_k_on_the_hand_worked_table(k: int) -> None:
    tallies = [(4, sum(w)) for w in TABLE.values()]
    at = sum(pass_at_k(n, c, k) for n, c in tallies) / 3
    hat = sum(pass_hat_k(n, c, k) for n, c in tallies) / 3
    assert (at, hat) == pytest.approx(HAND[k], abs=1e-15)


def _report(db: Path, *args: str) -> dict[str, Any]:
    out = _run(db, "--format", "json", *args)
    return json.loads(out)


def _run(db: Path, *args: str) -> str:
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["report", "--db", str(db), *args]) == 0
    return buffer.getvalue()


def test_the_report_gives_pass_k_per_row_and_counts_the_tasks_a_k_leaves_out(
    tmp_path: Path,
) -> None:
    with Store(tmp_path / "t.db") as store:
        add_trials(store, "gpt", TABLE)
    report = _report(tmp_path / "t.db", "--k", "1,2,3,4,5")
    (row,) = report["overall"]
    assert (row["tasks"], row["trials"], row["attempts"], row["wins"]) == (3, [4, 4], 12, 7)
    assert row["task_mean"] == round(7 / 12, 4)
    for figure in row["pass_k"][:4]:
        assert (figure["pass_at_k"], figure["pass_hat_k"]) == tuple(
            round(x, 4) for x in HAND[figure["k"]]
        )
        assert (figure["tasks"], figure["left_out"]) == (3, 0)
    assert row["pass_k"][4] == {
        "k": 5, "tasks": 0, "left_out": 3, "pass_at_k": None, "pass_hat_k": None
    }  # fmt: skip
    assert report["units"] == {"interval": "wilson", "cluster": None, "k": [1, 2, 3, 4, 5]}
    text = _run(tmp_path / "t.db", "--k", "2,5")
    assert "pass^5 leave out the tasks with fewer than 5 trials (k is never lowered)" in text
    assert "gpt/react b2b single 3 of 3" in text


def test_without_k_a_report_of_trials_gives_pass_1_and_pass_of_the_smallest_trial_count(
    tmp_path: Path,
) -> None:
    with Store(tmp_path / "t.db") as store:
        add_trials(store, "gpt", {**TABLE, 3: [1, 1, 0]})
    report = _report(tmp_path / "t.db")
    assert report["units"]["k"] == [1, 3]
    (row,) = report["overall"]
    assert row["trials"] == [3, 4]


def test_with_trials_the_interval_is_t_on_task_means_across_tasks(tmp_path: Path) -> None:
    with Store(tmp_path / "t.db") as store:
        add_trials(store, "gpt", TABLE)
    (row,) = _report(tmp_path / "t.db")["overall"]
    # task means 1, .5, .25: mean 7/12; squares about it (5/12)^2 + (1/12)^2 + (1/3)^2 = 42/144;
    # sample variance 21/144, SE = sqrt(21/144/3) = 0.2205; t(2) = 4.302653
    se = math.sqrt(21 / 144 / 3)
    assert row["se"] == round(se, 4)
    low, high = 7 / 12 - 4.302653 * se, 7 / 12 + 4.302653 * se
    assert row["interval"] == [round(max(0.0, low), 4), round(min(1.0, high), 4)]
    assert row["interval_method"] == "t on task means (2 df)"


def test_the_clustered_standard_error_worked_step_by_step() -> None:
    # six tasks, one trial each: scores 1, 1, 0 (cluster A), 0, 0 (B), 1 (C); mean 0.5
    # residuals summed per cluster: A .5 + .5 - .5 = .5, B -.5 - .5 = -1, C .5
    # SE^2 = C/(C-1) * sum of their squares / n^2 = 3/2 * (.25 + 1 + .25) / 36 = 0.0625: SE .25
    # the naive SE: sample variance 6 * .25 / 5 = .3, SE = sqrt(.3 / 6) = 0.2236
    scores = [1.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    clusters = ["A", "A", "A", "B", "B", "C"]
    assert standard_error(scores, clusters) == pytest.approx(0.25, abs=1e-15)
    assert standard_error(scores) == pytest.approx(math.sqrt(0.05), abs=1e-15)
    # every task its own cluster: the naive SE; one cluster: none
    assert standard_error(scores, list(range(6))) == pytest.approx(math.sqrt(0.05), abs=1e-15)
    assert standard_error(scores, ["A"] * 6) is None
    figures = unit_figures(
        [Tally(1, int(x), c) for x, c in zip(scores, clusters, strict=True)],
        Options(cluster="type"),
    )
    assert figures["cluster"] == {"by": "type", "clusters": 3, "se": 0.25}
    assert figures["interval"] == [0.0, 1.0]  # 0.5 -+ t(2) 4.3027 * .25 = 0.5 -+ 1.0757
    assert figures["interval_method"] == "t on task means, clustered by type (2 df)"


def test_report_cluster_by_type_in_the_report(tmp_path: Path) -> None:
    with Store(tmp_path / "t.db") as store:
        # task types follow idx % 3 (handle_time, knowledge_qa, lead_routing)
        add_trials(store, "gpt", {0: [1], 3: [1], 6: [0], 1: [0], 4: [0], 2: [1]})
    report = _report(tmp_path / "t.db", "--cluster")
    (row,) = report["overall"]
    assert row["cluster"] == {"by": "type", "clusters": 3, "se": 0.25}
    assert report["units"]["cluster"] == "type"
    by_type = {r["group"]: r for r in report["by_task_type"]}
    assert by_type["handle_time"]["interval"] is None  # one cluster: no clustered interval
    assert by_type["handle_time"]["interval_method"] == "none: 1 cluster of type"
    text = _run(tmp_path / "t.db", "--cluster", "type")
    assert (
        "Standard errors clustered by type (naive → clustered, overall): gpt/react 0.224 → 0.250"
        in text
    )


@pytest.mark.parametrize(
    ("choice", "method", "name"),
    [("wilson", "wilson", "Wilson score"), ("clopper-pearson", "beta", "Clopper-Pearson exact")],
)
def test_one_trial_rows_carry_the_interval_asked_for(
    tmp_path: Path, choice: str, method: str, name: str
) -> None:
    with Store(tmp_path / "t.db") as store:
        add_trials(store, "gpt", {i: [int(i % 4 == 0)] for i in range(17)})  # 5 of 17
    (row,) = _report(tmp_path / "t.db", "--interval", choice)["overall"]
    low, high = proportion_confint(5, 17, alpha=0.05, method=method)
    assert row["interval"] == [round(low, 4), round(high, 4)]
    assert row["interval_method"] == name
    assert row["trials"] == [1, 1] and "pass_k" not in row


def test_the_beta_interval_is_the_uniform_prior_posterior(tmp_path: Path) -> None:
    from scipy import stats

    with Store(tmp_path / "t.db") as store:
        add_trials(store, "gpt", {i: [int(i < 2)] for i in range(9)})  # 2 of 9
    (row,) = _report(tmp_path / "t.db", "--interval", "beta")["overall"]
    assert row["interval"] == [round(x, 4) for x in stats.beta.interval(0.95, 3, 8)]
    assert row["interval_method"] == "Beta posterior, uniform prior"


def test_bad_k_and_cluster_are_refused(tmp_path: Path, capsys) -> None:
    with Store(tmp_path / "t.db") as store:
        add_trials(store, "gpt", TABLE)
    assert main(["report", "--db", str(tmp_path / "t.db"), "--k", "0,2"]) == 2
    err = capsys.readouterr().err
    assert "--k 0,2: whole numbers of 1 or more" in err
    assert main(["report", "--db", str(tmp_path / "t.db"), "--cluster", "colour"]) == 2
    assert (
        "--cluster colour: cluster by type, task_source, org_ref or none" in capsys.readouterr().err
    )


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"cluster": "type", "ks": (1, 2, 5)},
        {"cluster": "task_source", "interval": "beta"},
        {"interval": "clopper-pearson", "with_infrastructure_errors": True},
        {"versus": ("gpt/react", "o1/react"), "cluster": "org_ref"},
        {"versus": ("gpt/react", "o1/react")},
    ],
)
def test_trials_in_sql_are_the_trials_of_the_python_path(
    tmp_path: Path, options: dict[str, Any]
) -> None:
    with Store(tmp_path / "t.db") as store:
        add_trials(store, "gpt", {i: [i % 2, 1, i % 3 and 1] for i in range(9)})
        add_trials(store, "gpt", {i: [1, 0] for i in range(9, 12)}, org_type="b2c")
        add_trials(store, "o1", {i: [i % 2] for i in range(2, 11)})
        add_trials(store, "o1", {11: [1]}, settings={"infrastructure_error": "timeout"})
        new = summary.build_report(store, **options)
        old = python_report(store, **options)
    assert same(json.loads(json.dumps(new)), json.loads(json.dumps(old)))
    every = next(
        r for r in new["overall"] if r["split"] == "all" and r["participant"] == "gpt/react"
    )
    assert every["trials"] == [2, 3]


@pytest.mark.parametrize("wins", [0, 3])
def test_trials_all_won_or_all_lost_get_the_task_level_proportion_interval(wins: int) -> None:
    # 4 tasks x 3 trials, every trial won (or lost): the task means are all 1 (or 0), their SE
    # is 0, and a t interval would be the point itself. The interval is Wilson's on 4 tasks:
    # 4 of 4 gives [0.5101, 1], 0 of 4 gives [0, 0.4899] (statsmodels' Wilson as the oracle).
    figures = unit_figures([Tally(3, wins, None)] * 4, Options())
    low, high = proportion_confint(4 if wins else 0, 4, method="wilson")
    assert figures["se"] == 0
    assert figures["interval"] == [round(low, 4), round(high, 4)]
    assert figures["interval"][1] - figures["interval"][0] > 0.48
    assert figures["interval_method"].startswith("Wilson")
