"""The study plan: every task exactly K times, never twice to one participant, loads within one
task of each other, each participant's count of each type within one of the others', and the
same plan for the same inputs."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crmarena_tui.studies.assign import plan, sample
from crmarena_tui.studies.model import StudyError


def _tasks(counts: list[int]) -> list[tuple[tuple[str, int], str]]:
    return [(("src", 1000 * t + i), f"type{t}") for t, n in enumerate(counts) for i in range(n)]


@settings(max_examples=150, deadline=None)
@given(
    counts=st.lists(st.integers(1, 9), min_size=1, max_size=6),
    people=st.integers(1, 7),
    data=st.data(),
    seed=st.integers(0, 10_000),
)
def test_the_plan_is_balanced(counts: list[int], people: int, data, seed: int) -> None:
    per_task = data.draw(st.integers(1, people))
    tasks = _tasks(counts)
    names = [f"p{i}" for i in range(people)]
    queues = plan(tasks, names, per_task, seed)
    assert list(queues) == names
    copies = Counter(key for queue in queues.values() for key in queue)
    assert copies == dict.fromkeys((key for key, _ in tasks), per_task)  # each task K times
    for queue in queues.values():
        assert len(set(queue)) == len(queue)  # never twice to one participant
    loads = [len(queue) for queue in queues.values()]
    assert max(loads) - min(loads) <= 1
    type_of = dict(tasks)
    for task_type in set(type_of.values()):
        per_person = [sum(type_of[k] == task_type for k in q) for q in queues.values()]
        assert max(per_person) - min(per_person) <= 1, task_type
    assert plan(list(reversed(tasks)), names, per_task, seed) == queues  # input order is moot


def test_the_seed_shuffles_each_queue_and_another_seed_gives_another_plan() -> None:
    tasks = _tasks([6, 6, 6])
    names = ["ana", "bo", "cy"]
    first = plan(tasks, names, 2, seed=1)
    assert plan(tasks, names, 2, seed=1) == first
    assert plan(tasks, names, 2, seed=2) != first
    types_in_order = [dict(tasks)[key] for key in first["ana"]]
    assert types_in_order != sorted(types_in_order)  # not served type by type


def test_more_participants_per_task_than_participants_is_refused() -> None:
    with pytest.raises(StudyError, match="--per-task 3 needs at least 3 participants.*ana, bo"):
        plan(_tasks([2]), ["ana", "bo"], 3, 0)
    with pytest.raises(StudyError, match="named twice: ana"):
        plan(_tasks([2]), ["ana", "ana"], 1, 0)


def test_a_sample_spreads_over_the_types_and_is_seeded() -> None:
    tasks = _tasks([10, 10, 2])
    picked = sample(tasks, 12, seed=5)
    assert Counter(t for _, t in picked) == {"type0": 5, "type1": 5, "type2": 2}
    assert sample(tasks, 12, seed=5) == picked
    assert sample(tasks, 12, seed=6) != picked
    assert Counter(t for _, t in sample(tasks, 7, seed=0)).most_common()[-1][1] == 2
    with pytest.raises(StudyError, match="more tasks than the 22 selected"):
        sample(tasks, 23, 0)
