"""The compare screen's paired statistics: the figures `report --versus A B` prints for the two
participants (or humans and agents) whose sessions are compared, and a plain sentence when there
are too few pairs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from textual.widgets import Static

from crmarena_tui.cli import main
from crmarena_tui.screens.compare_screen import CompareScreen
from crmarena_tui.storage import Store
from tests.support.app_support import SIZE, screen_text
from tests.support.app_trajectory_support import (
    AGENT,
    T0,
    Seeder,
    agent_steps,
    human_steps,
    push,
    research_app,
    seed,
)

# (task idx, agent's reward, ann's reward): exact tasks of four types, two fuzzy (knowledge_qa)
TASKS = [
    (883, 1.0, 0.0),
    (887, 1.0, 0.0),
    (1483, 1.0, 0.0),
    (1487, 1.0, 0.0),
    (203, 1.0, 0.0),
    (207, 1.0, 0.0),
    (1083, 1.0, 0.0),
    (1087, 0.0, 1.0),
    (983, 1.0, 1.0),
    (987, 0.0, 0.0),
    (683, 0.8, 0.3),
    (687, 0.2, 0.6),
]


def many_pairs(db: Path) -> dict[int, tuple[int, int]]:
    """gpt-4o/react and ann on the twelve `TASKS`; task idx -> (agent's, ann's session id)."""
    store = Store(db, clock=lambda: T0)
    agent = store.participant("agent", AGENT, model="gpt-4o", settings={"strategy": "react"})
    ann = store.participant("human", "ann")
    s = Seeder(store)
    ids = {
        idx: (
            s.session(agent, idx, agent_steps("x"), mine),
            s.session(ann, idx, human_steps(["SELECT Id FROM Case"], "y"), hers, 60),
        )
        for idx, mine, hers in TASKS
    }
    store.close()
    return ids


def versus(db: Path, a: str, b: str, capsys) -> dict:
    """The `paired` section `crmarena-tui report --versus a b --format json` prints."""
    capsys.readouterr()
    assert main(["report", "--db", str(db), "--versus", a, b, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)["paired"]


def paired_text(app) -> str:
    """The paired statistics as the screen shows them, white space collapsed."""
    region = app.screen.query_one("#cmp-paired", Static).region
    lines = screen_text(app).splitlines()[region.y : region.y + region.height]
    return re.sub(r"\s+", " ", " ".join(lines)).strip()


def cells(row: dict) -> str:
    """A row of the figures as `report --versus`'s JSON gives them, in the lines the screen
    shows where the table does not fit (the table has 15 columns)."""
    low, high = row["interval"]
    t_low, t_high = row["t_interval"]
    r = "—" if row["correlation"] is None else f"{row['correlation']:+.2f}"
    return (
        f"{row['scope']} ({row['tasks']} tasks): A {row['a_success']:.1%}, "
        f"B {row['b_success']:.1%}, A − B {row['difference']:+.1%} (SE {row['se']:.1%}) "
        f"t [{t_low:+.1%}, {t_high:+.1%}], bootstrap [{low:+.1%}, {high:+.1%}], r {r} "
        f"McNemar p {row['mcnemar_p']:.3f} · A only {row['a_only']}, B only {row['b_only']}, "
        f"both {row['both']}, neither {row['neither']}, split {row['split']}"
    )


async def test_compare_shows_the_paired_figures_of_report_versus(tmp_path: Path, capsys) -> None:
    db = tmp_path / "sessions.db"
    ids = many_pairs(db)
    paired = versus(db, AGENT, "ann", capsys)
    overall = paired["overall"]
    # worked by hand: 9 of 12 agent wins (F1 0.8 >= 0.5), 3 of ann's; 8 agent-only, 2 ann-only
    assert (overall["tasks"], overall["a_only"], overall["b_only"]) == (12, 8, 2)
    assert overall["mcnemar_p"] == 2 * (1 + 10 + 45) / 1024
    # the differences: eight +1, two -1, two 0; mean 0.5, sum of squares about it 7, SE
    # sqrt(7 / 11 / 12) = 0.2303; t(11) 2.2010 gives 0.5 -+ 0.5069, kept within [-1, 1]
    assert overall["se"] == pytest.approx(0.23028, abs=1e-5)
    assert overall["t_interval"] == pytest.approx([0.5 - 2.200985 * 0.230283, 1.0], abs=1e-5)
    # r: sxy = 8(.25)(-.25) + 2(-.75)(.75) + (.25)(.75) + (-.75)(-.25) = -1.25, sxx = syy = 2.25
    assert overall["correlation"] == pytest.approx(-1.25 / 2.25)
    assert paired["left_out"] == {
        side: {"not run": 0, "not graded": 0, "failed run": 0} for side in ("a", "b")
    }
    assert paired["a_protocols"] == paired["b_protocols"] == ["upstream"]
    handle = next(r for r in paired["by_task_type"] if r["scope"] == "handle_time")
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, CompareScreen(list(ids[883])))
        text = paired_text(app)
    assert f"Paired · A {AGENT}, B ann · 12 tasks both graded (A 12, B 12)" in text
    assert f"as report --versus {AGENT} ann" in text
    assert cells(overall) in text  # all task types: 75.0% 25.0% +50.0% ... 0.109
    assert (
        "A graded under upstream · B graded under upstream. Of 12 tasks either side attempted, "
        "12 paired; left out: A 0 (none); B 0 (none)." in text
    )
    assert cells(handle) in text  # this task's type, as the report's row for it
    assert "knowledge_qa" not in text  # not this task's type
    assert (  # 10 discordant tasks in all, 2 in handle_time
        "Too few pairs to test: handle_time 2 of 2 tasks won by one side alone; McNemar's exact "
        "test needs 6 before p can fall below 0.05." in text
    )


async def test_a_fuzzy_task_type_shows_its_f1_as_the_report_does(tmp_path: Path, capsys) -> None:
    db = tmp_path / "sessions.db"
    ids = many_pairs(db)
    paired = versus(db, AGENT, "ann", capsys)
    fuzzy = next(r for r in paired["by_task_type"] if r["scope"] == "knowledge_qa")
    f1 = fuzzy["f1"]
    assert (f1["a_mean_f1"], f1["b_mean_f1"]) == (pytest.approx(0.5), pytest.approx(0.45))
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, CompareScreen(list(ids[683])))
        text = paired_text(app)
    low, high = f1["interval"]
    assert (
        f"F1, knowledge_qa (2 fuzzy tasks): A 0.500, B 0.450, A − B "
        f"{f1['difference']:+.3f} [{low:+.3f}, {high:+.3f}]" in text
    )
    assert "F1, all task types" not in text  # the same two tasks: said once


async def test_three_participants_pair_humans_with_agents_and_few_pairs_are_named(
    tmp_path: Path, capsys
) -> None:
    ids = seed(tmp_path / "sessions.db")
    paired = versus(tmp_path / "sessions.db", "agents", "humans", capsys)
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, CompareScreen([ids["agent"], ids["ann"], ids["bob"]]))
        three = paired_text(app)
        app.pop_screen()
        await push(pilot, CompareScreen([ids["agent"], ids["ann"]]))
        two = paired_text(app)
    assert "Paired · A agents, B humans · 4 tasks both graded" in three
    assert cells(paired["overall"]) in three
    # the agent against ann: 3 shared tasks, two of handle_time, each won by one alone
    assert f"Paired · A {AGENT}, B ann · 3 tasks both graded" in two
    assert (
        "Too few pairs to test: all task types 2 of 3, handle_time 2 of 2 tasks won by one side "
        "alone; McNemar's exact test needs 6 before p can fall below 0.05." in two
    )


async def test_one_participants_sessions_have_no_paired_statistics(tmp_path: Path) -> None:
    store = Store(tmp_path / "sessions.db", clock=lambda: T0)
    ann = store.participant("human", "ann")
    s = Seeder(store)
    first = s.session(ann, 883, human_steps(["SELECT Id FROM Case"], "a"), 0.0, 30)
    second = s.session(ann, 883, human_steps(["SELECT Id FROM User"], "b"), 1.0, 40)
    store.close()
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, CompareScreen([first, second]))
        text = paired_text(app)
    assert text == "No paired statistics: every session here is ann's (two sides are needed)."


def test_the_sides_of_the_compared_sessions() -> None:
    from crmarena_tui.reports.paired_summary import MIN_DISCORDANT, sides_of

    assert sides_of([(AGENT, "agent"), ("ann", "human")]) == (AGENT, "ann")
    assert sides_of([("ann", "human"), (AGENT, "agent"), ("ann", "human")]) == (AGENT, "ann")[::-1]
    assert sides_of([("bob", "human"), (AGENT, "agent"), ("ann", "human")]) == ("humans", "agents")
    assert sides_of([("ann", "human"), ("bob", "human"), ("cy", "human")]) == (
        "No paired statistics: 3 participants of one kind; "
        "`crmarena-tui report --versus A B` pairs any two."
    )
    assert MIN_DISCORDANT == 6  # 2/2**5 = 0.0625, 2/2**6 = 0.03125


async def test_a_narrow_terminal_gets_every_figure_whole(tmp_path: Path, capsys) -> None:
    """At 80 columns the table would cut its figures short: they come as lines instead."""
    db = tmp_path / "sessions.db"
    ids = many_pairs(db)
    o = versus(db, AGENT, "ann", capsys)["overall"]
    app = research_app(tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await push(pilot, CompareScreen(list(ids[883])))
        text = paired_text(app)
    assert cells(o) in text
    assert "…" not in text


async def test_unequal_coverage_shows_what_each_side_leaves_out(tmp_path: Path, capsys) -> None:
    """gpt on tasks 0-11, o1 on 4-11 and 12 ungraded: the compare screen counts, as the report
    does, the tasks each side leaves out and why, and warns under 10 pairs."""
    from tests.support.trials_support import add_trials

    db = tmp_path / "sessions.db"
    with Store(db) as store:
        add_trials(store, "gpt", {i: [i % 2] for i in range(12)})
        add_trials(store, "o1", {i: [1] for i in range(4, 12)})
        add_trials(store, "o1", {12: [None]})
        first = store.read("SELECT MIN(id), MAX(id) FROM sessions WHERE task_idx = 4")[0]
    paired = versus(db, "gpt/react", "o1/react", capsys)
    assert paired["left_out"]["b"] == {"not run": 4, "not graded": 1, "failed run": 0}
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, CompareScreen(list(first)))
        text = paired_text(app)
    assert (
        "Of 13 tasks either side attempted, 8 paired; left out: A 1 (1 not run); B 5 (4 not "
        "run, 1 not graded)." in text
    )
    assert "Only 8 paired task(s): under 10 pairs" in text
