"""Which participant works which tasks, in which order: a pure, seeded plan.

The rule (`plan`): the tasks are taken type by type (types and the tasks within a type in a seeded
order) and each task's K copies are dealt round the participants like cards, K consecutive seats
of a circle, so no participant gets one task twice (K <= participants). Each type's block of
copies is dealt round its own seeded circle in which the participants with the lightest load so
far sit first. Dealing a contiguous block round a circle gives every participant the block's size
divided by the number of participants, or one more; starting with the lightest keeps the totals
within one as well. So: every task exactly K times, never twice to one participant, every two
participants' loads within one task, and their counts of each type within one. Each queue is then
shuffled with the seed. Same inputs, same plan.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence

from crmarena_tui.studies.model import StudyError, TaskKey

TypedTask = tuple[TaskKey, str]  # (task key, task type)


def check_participants(names: Sequence[str], per_task: int) -> None:
    """Refuse names that are empty or repeated, and a K the participants cannot cover."""
    if not names:
        raise StudyError("a study needs at least one participant (--participants a,b,c)")
    blank = [n for n in names if not n.strip()]
    if blank:
        raise StudyError("a participant name cannot be empty (--participants a,b,c)")
    repeated = sorted({n for n in names if list(names).count(n) > 1})
    if repeated:
        raise StudyError(f"participant named twice: {', '.join(repeated)}")
    if per_task < 1:
        raise StudyError(f"--per-task must be at least 1, not {per_task}")
    if per_task > len(names):
        raise StudyError(
            f"--per-task {per_task} needs at least {per_task} participants, but the study has "
            f"{len(names)} ({', '.join(names)}): each task goes to {per_task} different people"
        )


def plan(
    tasks: Sequence[TypedTask], participants: Sequence[str], per_task: int, seed: int
) -> dict[str, list[TaskKey]]:
    """Each participant's queue, in order (see the module's docstring for the rule)."""
    check_participants(participants, per_task)
    if not tasks:
        raise StudyError("a study needs at least one task")
    keys = [key for key, _ in tasks]
    if len(set(keys)) != len(keys):
        raise StudyError("a task is listed twice")
    rng = random.Random(seed)
    by_type: dict[str, list[TaskKey]] = defaultdict(list)
    for key, task_type in sorted(tasks, key=lambda t: (t[1], t[0])):
        by_type[task_type].append(key)
    types = sorted(by_type)
    rng.shuffle(types)
    load = dict.fromkeys(participants, 0)
    queues: dict[str, list[TaskKey]] = {name: [] for name in participants}
    for task_type in types:
        block = by_type[task_type]
        rng.shuffle(block)
        lightest = min(load.values())
        first = [p for p in participants if load[p] == lightest]
        then = [p for p in participants if load[p] != lightest]
        rng.shuffle(first)
        rng.shuffle(then)
        circle = first + then
        seat = 0
        for key in block:
            for _ in range(per_task):
                name = circle[seat % len(circle)]
                queues[name].append(key)
                load[name] += 1
                seat += 1
    for name in participants:
        rng.shuffle(queues[name])
    return queues


def sample(tasks: Sequence[TypedTask], n: int, seed: int) -> list[TypedTask]:
    """`n` of `tasks` picked with the seed, spread as evenly over the task types as they allow
    (a type with too few tasks gives all it has; the rest go to the others), in source order."""
    if n < 1:
        raise StudyError(f"--sample must be at least 1, not {n}")
    if n > len(tasks):
        raise StudyError(f"--sample {n} asks for more tasks than the {len(tasks)} selected")
    rng = random.Random(seed)
    by_type: dict[str, list[TypedTask]] = defaultdict(list)
    for item in tasks:
        by_type[item[1]].append(item)
    types = sorted(by_type)
    rng.shuffle(types)  # which types get one more when n does not divide evenly
    quota = dict.fromkeys(types, 0)
    remaining = n
    while remaining:
        for task_type in types:
            if remaining and quota[task_type] < len(by_type[task_type]):
                quota[task_type] += 1
                remaining -= 1
    chosen = {
        item
        for task_type in types
        for item in rng.sample(sorted(by_type[task_type]), quota[task_type])
    }
    return [item for item in tasks if item in chosen]
