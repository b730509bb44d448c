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
  have done: the share where all K agree, and Fleiss' kappa (for K = 2 it is Scott's pi), which
  does not depend on the order the experts are listed in;
- the non-answers (`no_answer`: grades whose metrics say the answer gave none).
Agents are named by their configuration (`storage.configuration`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from crmarena_tui.reports.agreement import FEW_ITEMS, MIN_ITEMS
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


def agreement(by_task: dict[TaskKey, dict[str, bool]], per_task: int) -> dict[str, Any] | None:
    """Agreement on correctness over the tasks all `per_task` experts have done: Fleiss' kappa,
    which does not depend on the order the experts are listed in (with two experts per task it
    is Scott's pi). Cohen's kappa would need the same two raters on every task; here the pairs
    change from task to task, and calling one of each pair "rater A" made the figure depend on
    the order of the study's participants."""
    full = [wins for wins in by_task.values() if len(wins) == per_task]
    if per_task < 2 or not full:
        return None
    agree = sum(len(set(wins.values())) == 1 for wins in full)
    counts = [[sum(wins.values()), per_task - sum(wins.values())] for wins in full]
    kappa = fleiss_kappa(counts)
    kind = "scott_pi" if per_task == 2 else "fleiss"
    return {
        "tasks": len(full),
        "all_agree": agree,
        "all_agree_share": _r(agree / len(full)),
        "kappa": _r(kappa),
        "kappa_kind": kind,
        "warning": FEW_ITEMS if len(full) < MIN_ITEMS else None,
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


def _agent_name(attempt: Attempt) -> str:
    """The agent's configuration, with its model when the name does not say it."""
    model = attempt.participant.model
    who = attempt.who
    return f"{who} ({model})" if model and model not in who else who


def _protocols(attempts: Sequence[Attempt]) -> str:
    return " + ".join(sorted({a.protocol for a in attempts})) or "-"


def _row(
    split: str,
    task_type: str,
    metric: str,
    tasks: int,
    done: list[Attempt],
    agents: dict[tuple[str, str], list[Attempt]],
    context: tuple[int, float],
) -> dict[str, Any]:
    """One row: the humans' figures on these tasks, and each agent's beside them."""
    per_task, fuzzy_threshold = context
    by_task: dict[TaskKey, dict[str, bool]] = defaultdict(dict)
    for attempt in done:
        # the study's experts by name (the study lists them so), aided or not
        by_task[attempt.task_key][attempt.participant.name] = attempt.win(fuzzy_threshold)
    seconds = [a.session.active_seconds for a in done if a.session.active_seconds is not None]
    return {
        "split": split,
        "task_type": task_type,
        "metric": metric,
        "tasks": tasks,
        "n": len(done),
        "protocol": _protocols(done),
        "no_answer": sum(a.no_answer for a in done),
        "human": estimate(done, metric, fuzzy_threshold) if done else None,
        "time": spread(task_type, seconds).row() if seconds else None,
        "agreement": agreement(by_task, per_task),
        "agents": [
            {
                "agent": agent,
                "protocol": protocol,
                "no_answer": sum(a.no_answer for a in items),
                **estimate(items, metric, fuzzy_threshold),
            }
            for (agent, protocol), items in sorted(agents.items())
        ],
    }


def build_study_report(
    store: Store, study: Study, fuzzy_threshold: float = FUZZY_THRESHOLD
) -> dict[str, Any]:
    """The report as JSON-ready data (`render_study_report` prints it as text).

    Rows are per split (org type x single-turn or chat, as `report` splits) and task type, then
    `overall`: per split when there are several, and over every task (`all`), each with its
    interval (for tasks of mixed metrics, the share of wins by `is_win`, Wilson). Every row names
    the grading protocols of its rewards; `warnings` says when rows mix them."""
    plan = db.assignments(store, study)
    order = [name for name, _code in db.participants(store, study)]
    type_of = {key: task_type for _who, _pos, key, task_type in plan}
    counted = _attempts(store, study)
    split_of: dict[TaskKey, str] = {}
    for attempt in counted:
        split_of.setdefault(attempt.task_key, attempt.split)
    seen = sorted(set(split_of.values()))
    fallback = seen[0] if len(seen) == 1 else "unknown"
    tasks_per: dict[tuple[str, str], int] = defaultdict(int)
    for key, task_type in type_of.items():
        tasks_per[(split_of.get(key, fallback), task_type)] += 1
    humans: dict[tuple[str, str], list[Attempt]] = defaultdict(list)
    agents: dict[tuple[str, str], dict[tuple[str, str], list[Attempt]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for attempt in counted:
        task_type = type_of.get(attempt.task_key, attempt.session.task_type)
        where = (split_of.get(attempt.task_key, attempt.split), task_type)
        if attempt.participant.kind == "human":
            humans[where].append(attempt)
        elif attempt.infrastructure_error is None:
            agents[where][(_agent_name(attempt), attempt.protocol)].append(attempt)
    context = (study.per_task, fuzzy_threshold)
    rows = []
    for split, task_type in sorted(tasks_per):
        done = humans.get((split, task_type), [])
        known = BY_NAME.get(task_type)
        metric = known.metric if known else (done[0].metric if done else "exact_match")
        found = agents.get((split, task_type), {})
        rows.append(
            _row(split, task_type, metric, tasks_per[(split, task_type)], done, found, context)
        )
    splits = sorted({split for split, _ in tasks_per})
    overall = []
    for split in [*splits, "all"] if len(splits) > 1 else ["all"]:
        mine = [r for r in rows if split in ("all", r["split"])]
        done = [a for r in mine for a in humans.get((r["split"], r["task_type"]), [])]
        beside: dict[tuple[str, str], list[Attempt]] = defaultdict(list)
        for r in mine:
            for name, items in agents.get((r["split"], r["task_type"]), {}).items():
                beside[name] += items
        metrics = {r["metric"] for r in mine}
        metric = metrics.pop() if len(metrics) == 1 else "mixed"
        tasks = sum(r["tasks"] for r in mine)
        overall.append(_row(split, "all", metric, tasks, done, beside, context))
    every = {
        a.protocol for a in counted if a.participant.kind == "human" or not a.infrastructure_error
    }
    warnings = []
    if len(every) > 1:
        warnings.append(
            f"the rows' rewards come from more than one grading protocol ({', '.join(sorted(every))}): "
            "compare figures of one protocol"
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
        "overall": overall,
        "warnings": warnings,
    }
