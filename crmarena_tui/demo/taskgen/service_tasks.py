"""Service analytics tasks: handle_time, transfer_count, best_region_identification.

Facts planted by the generator (`orggen/service.py`): cases with CreatedDate/ClosedDate, owner
history in CaseHistory__c ('Owner Assignment' rows: OldValue__c -> NewValue__c), per-agent and
per-state speed.

Rules fixing the answer (a period is inclusive, compared by calendar day):
- handle_time: cases "in the period" (see below); an agent handled a case when any of its 'Owner
  Assignment' rows names the agent in NewValue__c; keep agents with more than N such cases; an
  agent's handle time is the mean of ClosedDate - CreatedDate over closed cases with exactly one
  'Owner Assignment' owned by that agent; min or max. [None] when no agent qualifies.
- transfer_count: same qualifying agents; every 'Owner Assignment' row after a case's first adds
  one transfer to its OldValue__c agent; the fewest or most transfers, or the lowest or highest
  average number of transfers per case the agent handled. [None] when nobody qualifies or (most)
  nobody transferred.
- best_region_identification: closed cases in the period grouped by Account.ShippingState; the
  state with the lowest mean ClosedDate - CreatedDate (the quickest). [None] if none.
"In the period" is read two ways (CreatedDate in it, ClosedDate in it; for transfers also the
transfer row's CreatedDate); a task is only generated when both readings give the same answer,
and only when the answer is unique.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from datetime import date
from statistics import mean
from typing import Any

from crmarena_tui.demo.dates import Period, parse_dt
from crmarena_tui.demo.taskgen import wording
from crmarena_tui.demo.taskgen.common import (
    Draft,
    OrgReader,
    agree,
    best,
    capitalized,
    collect,
    pick_period,
    random_today,
)

# Period kinds per type: relative weeks/months/quarters and named quarters, seasons, months.
HANDLE_PERIODS = {"weeks": 2, "months": 4, "quarters": 3, "quarter": 1, "season": 1.5, "month": 1}
WIDE = {"months": 4, "quarters": 5, "quarter": 1, "season": 1.5}
SHORT = {"weeks": 4, "months": 1, "month": 2}


def _period(start: str, end: str) -> Period:
    return Period(date.fromisoformat(start), date.fromisoformat(end))


def _cases_in(org: OrgReader, period: Period, mode: str) -> list:
    if mode == "created":
        return [c for c in org.cases if c["CreatedDate"] in period]
    return [c for c in org.cases if c["ClosedDate"] and c["ClosedDate"] in period]


def _days(case) -> float:
    return (parse_dt(case["ClosedDate"]) - parse_dt(case["CreatedDate"])).total_seconds() / 86400


def _involved(org: OrgReader, cases: list) -> Counter:
    counts: Counter = Counter()
    for c in cases:
        for agent in {r["NewValue__c"] for r in org.assignments.get(c["Id"], [])}:
            counts[agent] += 1
    return counts


def _count_words(n: int) -> str:
    return {0: "zero", 1: "one", 2: "two", 3: "three"}.get(n, str(n))


def _when(rng: random.Random, none: bool) -> tuple[date, str, Period, str]:
    today = random_today(rng)
    text, period, kind = pick_period(rng, today, SHORT if none else WIDE)
    return today, text, period, kind


# ----------------------------------------------------------------- handle_time


def _handle_time(org: OrgReader, period: Period, direction: str, threshold: int, mode: str) -> list:
    cases = _cases_in(org, period, mode)
    qualifying = {a for a, n in _involved(org, cases).items() if n > threshold}
    durations: dict[str, list[float]] = defaultdict(list)
    for c in cases:
        history = org.assignments.get(c["Id"], [])
        if len(history) == 1 and c["ClosedDate"] and history[0]["NewValue__c"] in qualifying:
            durations[history[0]["NewValue__c"]].append(_days(c))
    return best({a: mean(v) for a, v in durations.items()}, direction)


def answer_handle_time(
    org: OrgReader, *, start: str, end: str, direction: str, threshold: int
) -> list:
    period = _period(start, end)
    return agree(
        *(_handle_time(org, period, direction, threshold, m) for m in ("created", "closed"))
    )


HANDLE_MIN = (
    "Which agent had the lowest average handle time {period}, counting only agents who handled more than {n} cases? Return only the Id of the agent.",
    "Among agents with more than {n} cases {period}, who resolved cases fastest on average? Return only the Id of the agent.",
    "Looking at agents who managed more than {n} cases {period}, which one has the minimum average handling time? Return only the Id of the agent.",
    "{Period}, which agent had the shortest average handling time among those who handled more than {n} cases? Return only the Id of the agent.",
)
HANDLE_MAX = (
    "Which agent had the longest average handle time {period} among agents who handled more than {n} cases? Return only the Id of the agent.",
    "Identify the agent who took the most time on average to close cases {period}, among those with more than {n} cases. Return only the Id of the agent.",
    "{Period}, who had the highest average handle time of the agents that managed over {n} cases? Return only the Id of the agent.",
)


def make_handle_time(org: OrgReader, rng: random.Random, n: int) -> list[Draft]:
    def one(rng: random.Random, none: bool) -> Draft:
        direction = rng.choice(("min", "min", "max"))
        today = random_today(rng)
        mix = {"weeks": 3, "month": 1} if none else HANDLE_PERIODS
        text, period, _ = pick_period(rng, today, mix)
        threshold = rng.choice((1, 2, 3) if none else (0, 0, 0, 1, 1, 2))
        params: dict[str, Any] = dict(
            start=period.bounds[0], end=period.bounds[1], direction=direction, threshold=threshold
        )
        template = rng.choice(HANDLE_MIN if direction == "min" else HANDLE_MAX)
        query = template.format(period=text, Period=capitalized(text), n=_count_words(threshold))
        return Draft(
            "handle_time",
            query,
            answer_handle_time(org, **params),
            wording.HANDLE_TIME.format(today=today),
            params | {"today": today.isoformat()},
        )

    return collect(rng, one, n)


# ----------------------------------------------------------------- transfer_count


def _transfer_counts(
    org: OrgReader, period: Period, direction: str, threshold: int, mode: str, average: bool
) -> list:
    cases = _cases_in(org, period, "created")
    involved = _involved(org, cases)
    qualifying = {a for a, k in involved.items() if k > threshold}
    counts = dict.fromkeys(qualifying, 0.0)
    source = cases if mode == "created" else org.cases
    for c in source:
        for row in org.assignments.get(c["Id"], [])[1:]:
            if mode == "history" and row["CreatedDate"] not in period:
                continue
            if row["OldValue__c"] in counts:
                counts[row["OldValue__c"]] += 1
    if not counts or (direction == "max" and max(counts.values()) == 0):
        return [None]
    if average:
        counts = {a: k / involved[a] for a, k in counts.items()}
    return best(counts, direction)


def answer_transfer_count(
    org: OrgReader,
    *,
    start: str,
    end: str,
    direction: str,
    threshold: int,
    average: bool = False,
) -> list:
    period = _period(start, end)
    return agree(
        *(
            _transfer_counts(org, period, direction, threshold, m, average)
            for m in ("created", "history")
        )
    )


TRANSFER_MAX = (
    "Which agent transferred the most cases {period} among those who handled more than {n} cases? Return only the Id of the agent.",
    "Which agent passed on the most cases to colleagues {period}, among agents who handled more than {n} cases? Return only the Id of the agent.",
    "Among agents managing over {n} cases {period}, who transferred the most cases? Return only the Id of the agent.",
)
TRANSFER_MIN = (
    "Which agent had the fewest case transfers {period} among those who handled more than {n} cases? Return only the Id of the agent.",
    "Identify the agent with the lowest transfer count {period}, among agents with more than {n} cases. Return only the Id of the agent.",
    "{Period}, which agent who worked on over {n} cases made the lowest number of transfers? Return only the Id of the agent.",
)
TRANSFER_AVERAGE = (
    "Which agent had the {word} average number of transfers per case {period}, among agents who handled more than {n} cases? Return only the Id of the agent.",
    "{Period}, identify the agent with the {word} average number of transfers per handled case, considering agents with over {n} cases. Return only the Id of the agent.",
)
TRANSFER_ANY = (
    "Of all agents working on cases {period}, which one recorded the most transfers? Return only the Id of the agent.",
    "Among the agents handling cases {period}, who had the lowest number of transfers? Return only the Id of the agent.",
)


def make_transfer_count(org: OrgReader, rng: random.Random, n: int) -> list[Draft]:
    def one(rng: random.Random, none: bool) -> Draft:
        form = rng.choices(("max", "min", "average"), weights=(42, 39, 19))[0]
        direction = rng.choice(("min", "max")) if form == "average" else form
        today, text, period, _ = _when(rng, none)
        threshold = rng.choice((2, 3) if none else (0, 0, 1, 1, 2))
        if form == "average":
            word = "lowest" if direction == "min" else "highest"
            template = rng.choice(TRANSFER_AVERAGE).replace("{word}", word)
        elif threshold == 0 and rng.random() < 0.4:
            template = TRANSFER_ANY[0 if direction == "max" else 1]
        else:
            template = rng.choice(TRANSFER_MAX if direction == "max" else TRANSFER_MIN)
        params: dict[str, Any] = dict(
            start=period.bounds[0],
            end=period.bounds[1],
            direction=direction,
            threshold=threshold,
            average=form == "average",
        )
        query = template.format(period=text, Period=capitalized(text), n=_count_words(threshold))
        return Draft(
            "transfer_count",
            query,
            answer_transfer_count(org, **params),
            wording.TRANSFER_COUNT.format(today=today),
            params | {"today": today.isoformat()},
        )

    return collect(rng, one, n)


# ----------------------------------------------------------------- best_region_identification


def _region(org: OrgReader, period: Period, mode: str) -> list:
    state_of = {r[0]: r[1] for r in org.rows("SELECT Id, ShippingState FROM Account")}
    by_state: dict[str, list[float]] = defaultdict(list)
    for c in _cases_in(org, period, mode):
        if c["ClosedDate"] and state_of.get(c["AccountId"]):
            by_state[state_of[c["AccountId"]]].append(_days(c))
    return best({s: mean(v) for s, v in by_state.items()}, "min")


def answer_best_region_identification(org: OrgReader, *, start: str, end: str) -> list:
    period = _period(start, end)
    return agree(*(_region(org, period, m) for m in ("created", "closed")))


REGION = (
    "Where were case closures quickest {period}, by customer state? Return only the two-letter abbreviation of the most matching state (eg. CA).",
    "Which state's cases got the quickest closures {period}? Return only the two-letter abbreviation of the most matching state (eg. CA).",
    "In which state were cases closed the quickest on average {period}? Return only the two-letter abbreviation of the most matching state (eg. CA).",
    "{Period}, which state showed the quickest closure of cases? Return only the two-letter abbreviation of the most matching state (eg. CA).",
)
REGION_PERIODS = {"weeks": 3, "months": 3, "quarters": 2, "month": 2, "season": 1, "quarter": 1}


def make_best_region_identification(org: OrgReader, rng: random.Random, n: int) -> list[Draft]:
    def one(rng: random.Random, none: bool) -> Draft:
        today = random_today(rng)
        mix = {"weeks": 3, "month": 1} if none else REGION_PERIODS
        text, period, _ = pick_period(rng, today, mix)
        params = dict(start=period.bounds[0], end=period.bounds[1])
        query = rng.choice(REGION).format(period=text, Period=capitalized(text))
        return Draft(
            "best_region_identification",
            query,
            answer_best_region_identification(org, **params),
            wording.TODAY_DASH.format(today=today),
            params | {"direction": "min", "today": today.isoformat()},
        )

    return collect(rng, one, n)
