"""`study report`: a study's human baseline per task type, with its uncertainty, and the agents
that ran the same tasks beside it.

What counts: the study's own attempts (`kind == 'attempt'`, never forks or take-overs), submitted
and graded, by human participants; a participant's latest on each task. Agents: their latest
graded attempt on each of the study's tasks, wherever it was run (agent runs are not part of a
study), one row per agent and grading protocol, leaving out runs that ended on an infrastructure
error (as `report` does).

Per task type:
- accuracy: for exact-match metrics (exact_match, privacy_rejection) the share of full-credit
  answers with Wilson's 95% interval; for fuzzy_match the mean token F1 with a 95% percentile
  bootstrap interval (fixed seed);
- active time: median, quartiles and IQR (`reports.timing.spread`);
- agreement on correctness (a win as `reports.attempts.is_win` says) over the tasks all K experts
  have done: the share where all K agree, and Cohen's kappa for K = 2 (the study's first-listed
  participant of each pair as rater A) or Fleiss' kappa for K > 2.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from crmarena_tui.reports.agreement import cohen_kappa
from crmarena_tui.reports.attempts import FUZZY_THRESHOLD, Attempt, latest_per_participant
from crmarena_tui.reports.timing import spread
from crmarena_tui.studies import db
from crmarena_tui.studies.model import Study, TaskKey
from crmarena_tui.studies.progress import completion, study_progress
from crmarena_tui.studies.stats import bootstrap_mean, fleiss_kappa, wilson
from crmarena_tui.tasks.catalog import BY_NAME

if TYPE_CHECKING:
    from crmarena_tui.storage import Store

_COUNTED = (
    "SELECT s.id FROM sessions s JOIN participants p ON p.id = s.participant_id"
    " WHERE s.kind = 'attempt' AND s.status = 'submitted' AND ("
    " (s.study_id = :study AND p.kind = 'human')"
    " OR (p.kind = 'agent' AND EXISTS (SELECT 1 FROM study_assignments a WHERE a.study_id = :study"
    " AND a.task_source = s.task_source AND a.task_idx = s.task_idx)))"
    " ORDER BY s.id"
)


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def estimate(attempts: Sequence[Attempt], metric: str, fuzzy_threshold: float) -> dict[str, Any]:
    """Accuracy with its 95% interval: Wilson for a share of wins, bootstrap for mean F1."""
    n = len(attempts)
    if metric == "fuzzy_match":
        values = [a.reward or 0.0 for a in attempts]
        low, high = bootstrap_mean(values)
        value, method = sum(values) / n, "bootstrap"
    else:
        wins = sum(a.win(fuzzy_threshold) for a in attempts)
        (low, high), value, method = wilson(wins, n), wins / n, "wilson"
    return {"n": n, "value": _r(value), "low": _r(low), "high": _r(high), "method": method}


def agreement(
    by_task: dict[TaskKey, dict[str, bool]], order: Sequence[str], per_task: int
) -> dict[str, Any] | None:
    """Agreement on correctness over the tasks all `per_task` experts have done."""
    full = [wins for wins in by_task.values() if len(wins) == per_task]
    if per_task < 2 or not full:
        return None
    agree = sum(len(set(wins.values())) == 1 for wins in full)
    if per_task == 2:
        rank = {name: i for i, name in enumerate(order)}
        pairs = []
        for wins in full:
            a, b = sorted(wins, key=lambda who: rank.get(who, len(rank)))
            pairs.append((str(wins[a]), str(wins[b])))
        kappa, kind = cohen_kappa(pairs), "cohen"
    else:
        counts = [[sum(wins.values()), per_task - sum(wins.values())] for wins in full]
        kappa, kind = fleiss_kappa(counts), "fleiss"
    return {
        "tasks": len(full),
        "all_agree": agree,
        "all_agree_share": _r(agree / len(full)),
        "kappa": _r(kappa),
        "kappa_kind": kind,
    }


def _attempts(store: Store, study: Study) -> list[Attempt]:
    people = {p.id: p for p in store.participants()}
    found = []
    for (session_id,) in store.read(_COUNTED, {"study": study.id}):
        grade = store.grade(int(session_id))
        if grade is not None:
            session = store.session(int(session_id))
            found.append(Attempt(session, people[session.participant_id], grade))
    return list(latest_per_participant(found).values())


def build_study_report(
    store: Store, study: Study, fuzzy_threshold: float = FUZZY_THRESHOLD
) -> dict[str, Any]:
    """The report as JSON-ready data (`render_study_report` prints it as text)."""
    plan = db.assignments(store, study)
    order = [name for name, _code in db.participants(store, study)]
    type_of = {key: task_type for _who, _pos, key, task_type in plan}
    tasks_per_type: dict[str, int] = defaultdict(int)
    for task_type in type_of.values():
        tasks_per_type[task_type] += 1
    humans: dict[str, list[Attempt]] = defaultdict(list)
    agents: dict[tuple[str, str, str], list[Attempt]] = defaultdict(list)
    for attempt in _attempts(store, study):
        task_type = type_of.get(attempt.task_key, attempt.session.task_type)
        if attempt.participant.kind == "human":
            humans[task_type].append(attempt)
        elif attempt.infrastructure_error is None:
            agents[(task_type, attempt.participant.label, attempt.protocol)].append(attempt)
    rows = []
    for task_type in sorted(tasks_per_type):
        done = humans.get(task_type, [])
        known = BY_NAME.get(task_type)
        metric = known.metric if known else (done[0].metric if done else "exact_match")
        by_task: dict[TaskKey, dict[str, bool]] = defaultdict(dict)
        for attempt in done:
            by_task[attempt.task_key][attempt.who] = attempt.win(fuzzy_threshold)
        seconds = [a.session.active_seconds for a in done if a.session.active_seconds is not None]
        time = spread(task_type, seconds).row() if seconds else None
        rows.append(
            {
                "task_type": task_type,
                "metric": metric,
                "tasks": tasks_per_type[task_type],
                "n": len(done),
                "human": estimate(done, metric, fuzzy_threshold) if done else None,
                "time": time,
                "agreement": agreement(by_task, order, study.per_task),
                "agents": [
                    {
                        "agent": agent,
                        "protocol": protocol,
                        **estimate(items, metric, fuzzy_threshold),
                    }
                    for (kind, agent, protocol), items in sorted(agents.items())
                    if kind == task_type
                ],
            }
        )
    progress = study_progress(store, study)
    return {
        "study": study.name,
        "status": study.status,
        "per_task": study.per_task,
        "participants": len(order),
        "tasks": len(type_of),
        "completion": _r(completion(progress)),
        "fuzzy_threshold": fuzzy_threshold,
        "types": rows,
    }
