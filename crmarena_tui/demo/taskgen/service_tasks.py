"""Service analytics tasks: handle_time, transfer_count, best_region_identification,
monthly_trend_analysis, top_issue_identification, case_routing.

Facts planted by the generator (`orggen/service.py`): cases with CreatedDate/ClosedDate, owner
history in CaseHistory__c ('Owner Assignment' rows: OldValue__c -> NewValue__c), per-agent and
per-state speed, per-product monthly spikes, issue specialists among agents.

Rules fixing the answer (a period is inclusive, compared by calendar day):
- handle_time: cases "in the period" (see below); an agent handled a case when any of its 'Owner
  Assignment' rows names the agent in NewValue__c; keep agents with more than N such cases; an
  agent's handle time is the mean of ClosedDate - CreatedDate over closed cases with exactly one
  'Owner Assignment' owned by that agent; min or max. [None] when no agent qualifies.
- transfer_count: same qualifying agents; every 'Owner Assignment' row after a case's first adds
  one transfer to its OldValue__c agent; min or max; [None] when nobody qualifies or (max) nobody
  transferred.
- best_region_identification: closed cases in the period grouped by Account.ShippingState; the
  state with the lowest (quickest) or highest mean ClosedDate - CreatedDate. [None] if none.
- monthly_trend_analysis: cases whose OrderItemId__c's Product2Id is the product, CreatedDate in
  the past N months/quarters; the calendar month with more cases than every other month, else None.
- top_issue_identification: the product's cases created in the period, by IssueId__c; the issue
  with the most cases, [None] when there are no cases.
- case_routing: over all cases: the agent (OwnerId) with the most Closed cases of the new case's
  issue; tie -> most Closed cases of the new case's product; tie -> fewest cases not 'Closed'.
"In the period" is read two ways (CreatedDate in it, ClosedDate in it; for transfers also the
transfer row's CreatedDate); a task is only generated when both readings give the same answer,
and only when the answer is unique.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import date
from statistics import mean

from crmarena_tui.demo.dates import MONTH_NAMES, Period, day_of, parse_dt
from crmarena_tui.demo.taskgen import wording
from crmarena_tui.demo.taskgen.common import (
    Ambiguous,
    Draft,
    OrgReader,
    agree,
    any_period,
    best,
    collect,
    collect_each,
    random_today,
    relative_period,
)


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
    "Identify the agent with the lowest average handle time {period}, among agents who handled more than {n} cases. Return only the Id of the agent.",
    "Which agent closed cases the fastest on average {period}, considering only agents who managed more than {n} cases? Return only the Id of the agent.",
    "Find the agent with the minimum average handle time {period} among those who have dealt with over {n} cases. Return only the Id of the agent.",
)
HANDLE_MAX = (
    "Which agent had the longest average handle time {period} among agents who handled more than {n} cases? Return only the Id of the agent.",
    "Identify the agent who took the most time on average to close cases {period}, among those with more than {n} cases. Return only the Id of the agent.",
)


def _count_words(n: int) -> str:
    return {0: "zero", 1: "one", 2: "two", 3: "three"}.get(n, str(n))


def make_handle_time(org: OrgReader, rng, n: int) -> list[Draft]:
    return collect_each(
        rng,
        lambda direction: lambda rng: _handle_time_draft(org, rng, direction),
        ("min", "max"),
        n,
    )


def _handle_time_draft(org: OrgReader, rng, direction: str) -> Draft:
    today = random_today(rng)
    text, period = any_period(rng, today)
    threshold = rng.choice((0, 0, 1, 1, 2, 3))
    params = dict(
        start=period.bounds[0], end=period.bounds[1], direction=direction, threshold=threshold
    )
    answer = answer_handle_time(org, **params)
    query = rng.choice(HANDLE_MIN if direction == "min" else HANDLE_MAX).format(
        period=text, n=_count_words(threshold)
    )
    return Draft(
        "handle_time",
        query,
        answer,
        wording.HANDLE_TIME.format(today=today),
        params | {"today": today.isoformat()},
    )


# ----------------------------------------------------------------- transfer_count


def _transfer_counts(
    org: OrgReader, period: Period, direction: str, threshold: int, mode: str
) -> list:
    cases = _cases_in(org, period, "created")
    qualifying = {a for a, k in _involved(org, cases).items() if k > threshold}
    counts = dict.fromkeys(qualifying, 0)
    source = cases if mode == "created" else org.cases
    for c in source:
        for row in org.assignments.get(c["Id"], [])[1:]:
            if mode == "history" and row["CreatedDate"] not in period:
                continue
            if row["OldValue__c"] in counts:
                counts[row["OldValue__c"]] += 1
    if not counts or (direction == "max" and max(counts.values()) == 0):
        return [None]
    return best(counts, direction)


def answer_transfer_count(
    org: OrgReader, *, start: str, end: str, direction: str, threshold: int
) -> list:
    period = _period(start, end)
    return agree(
        *(_transfer_counts(org, period, direction, threshold, m) for m in ("created", "history"))
    )


TRANSFER_MAX = (
    "Which agent had the highest transfer count {period} among those who handled more than {n} cases? Return only the Id of the agent.",
    "Identify the agent with the most case transfers {period}, from those who have worked on more than {n} cases. Return only the Id of the agent.",
    "Among agents managing over {n} cases {period}, who transferred the most cases? Return only the Id of the agent.",
)
TRANSFER_MIN = (
    "Which agent had the fewest case transfers {period} among those who handled more than {n} cases? Return only the Id of the agent.",
    "Identify the agent with the lowest transfer count {period}, among agents with more than {n} cases. Return only the Id of the agent.",
)


def make_transfer_count(org: OrgReader, rng, n: int) -> list[Draft]:
    def one(rng) -> Draft:
        today = random_today(rng)
        text, period = any_period(rng, today)
        direction = rng.choice(("max", "max", "min"))
        threshold = rng.choice((0, 0, 1, 2))
        params = dict(
            start=period.bounds[0], end=period.bounds[1], direction=direction, threshold=threshold
        )
        answer = answer_transfer_count(org, **params)
        query = rng.choice(TRANSFER_MAX if direction == "max" else TRANSFER_MIN).format(
            period=text, n=_count_words(threshold)
        )
        return Draft(
            "transfer_count",
            query,
            answer,
            wording.TRANSFER_COUNT.format(today=today),
            params | {"today": today.isoformat()},
        )

    return collect(rng, one, n)


# ----------------------------------------------------------------- best_region_identification


def _region(org: OrgReader, period: Period, direction: str, mode: str) -> list:
    state_of = {r[0]: r[1] for r in org.rows("SELECT Id, ShippingState FROM Account")}
    by_state: dict[str, list[float]] = defaultdict(list)
    for c in _cases_in(org, period, mode):
        if c["ClosedDate"] and state_of.get(c["AccountId"]):
            by_state[state_of[c["AccountId"]]].append(_days(c))
    return best({s: mean(v) for s, v in by_state.items()}, direction)


def answer_best_region_identification(
    org: OrgReader, *, start: str, end: str, direction: str
) -> list:
    period = _period(start, end)
    return agree(*(_region(org, period, direction, m) for m in ("created", "closed")))


REGION_MIN = (
    "Which states have the quickest case closures {period}? Return only the two-letter abbreviation of the most matching state (eg. CA).",
    "In which state were cases closed the fastest on average {period}? Return only the two-letter abbreviation of the most matching state (eg. CA).",
)
REGION_MAX = (
    "Which state had the slowest case closures {period}? Return only the two-letter abbreviation of the most matching state (eg. CA).",
)


def make_best_region_identification(org: OrgReader, rng, n: int) -> list[Draft]:
    return collect_each(
        rng, lambda d: lambda rng: _region_draft(org, rng, d), ("min", "min", "max"), n
    )


def _region_draft(org: OrgReader, rng, direction: str) -> Draft:
    today = random_today(rng)
    text, period = any_period(rng, today, kinds=("weeks", "months", "quarters"))
    params = dict(start=period.bounds[0], end=period.bounds[1], direction=direction)
    answer = answer_best_region_identification(org, **params)
    query = rng.choice(REGION_MIN if direction == "min" else REGION_MAX).format(period=text)
    return Draft(
        "best_region_identification",
        query,
        answer,
        wording.TODAY_DASH.format(today=today),
        params | {"today": today.isoformat()},
    )


# ----------------------------------------------------------------- monthly_trend_analysis


def _product_cases(org: OrgReader, product: str, period: Period) -> list:
    return [
        c
        for c in org.cases
        if org.product_of_item.get(c["OrderItemId__c"]) == product and c["CreatedDate"] in period
    ]


def _standout(counts: Counter) -> str | None:
    if not counts:
        return None
    top = max(counts.values())
    winners = [k for k, v in counts.items() if v == top]
    return winners[0] if len(winners) == 1 else None


def answer_monthly_trend_analysis(org: OrgReader, *, product: str, start: str, end: str) -> list:
    cases = _product_cases(org, product, _period(start, end))
    by_month = Counter(
        (day_of(c["CreatedDate"]).year, day_of(c["CreatedDate"]).month) for c in cases
    )
    by_name = Counter(day_of(c["CreatedDate"]).month for c in cases)
    ym = _standout(by_month)
    name = _standout(by_name)
    first = [MONTH_NAMES[ym[1] - 1] if ym else None]
    return agree(first, [MONTH_NAMES[name - 1] if name else None])


TREND = (
    "Is there any month {period} where the number of cases received for {name} significantly exceeds other months? The associated product Id is {pid}. Return only the month name.",
    "{Period}, is there a month where {name} received significantly more cases compared to other months? The associated product Id is {pid}. Return only the month name.",
    "Did any single month {period} see notably more cases for {name} than the other months? The associated product Id is {pid}. Return only the month name.",
)


def make_monthly_trend_analysis(org: OrgReader, rng, n: int) -> list[Draft]:
    product_cases: dict[str, list] = defaultdict(list)
    for c in org.cases:
        product_cases[org.product_of_item[c["OrderItemId__c"]]].append(c)
    products = sorted(product_cases)

    def one(rng) -> Draft | None:
        product = rng.choice(products)
        anchor = day_of(rng.choice(product_cases[product])["CreatedDate"])
        today = min(
            date(2025, 10, 31),
            anchor + (random_today(rng, date(2021, 1, 1), date(2021, 9, 1)) - date(2021, 1, 1)),
        )
        text, period = relative_period(rng, today, kinds=("months", "quarters"))
        if (
            period.end.year * 12 + period.end.month - period.start.year * 12 - period.start.month
            < 2
        ):
            return None
        params = dict(product=product, start=period.bounds[0], end=period.bounds[1])
        answer = answer_monthly_trend_analysis(org, **params)
        if answer != [None]:
            month = MONTH_NAMES.index(answer[0]) + 1
            if (
                sum(
                    day_of(c["CreatedDate"]).month == month
                    for c in _product_cases(org, product, period)
                )
                < 2
            ):
                return None
        template = rng.choice(TREND)
        query = template.format(
            period=text, Period=text[0].upper() + text[1:], name=org.products[product], pid=product
        )
        return Draft(
            "monthly_trend_analysis",
            query,
            answer,
            wording.TODAY_DASH.format(today=today),
            params | {"today": today.isoformat()},
        )

    return collect(
        rng, one, n, none_share=0.3, distinct=lambda d: (d.params["product"], d.answer[0])
    )


# ----------------------------------------------------------------- top_issue_identification


def answer_top_issue_identification(org: OrgReader, *, product: str, start: str, end: str) -> list:
    counts = Counter(c["IssueId__c"] for c in _product_cases(org, product, _period(start, end)))
    return best(dict(counts), "max")


TOP_ISSUE = (
    "What is the most frequently reported problem with {name} {period}? The associated product Id is {pid}. Return only the issue Id of the most reported issue for this product.",
    "Which issue has been reported most often for {name} {period}? The associated product Id is {pid}. Return only the issue Id of the most reported issue for this product.",
    "What has been the most common complaint about {name} {period}? The associated product Id is {pid}. Return only the issue Id of the most reported issue for this product.",
)


def make_top_issue_identification(org: OrgReader, rng, n: int) -> list[Draft]:
    product_cases: dict[str, list] = defaultdict(list)
    for c in org.cases:
        product_cases[org.product_of_item[c["OrderItemId__c"]]].append(c)
    products = sorted(product_cases)

    def one(rng) -> Draft:
        product = rng.choice(products)
        anchor = day_of(rng.choice(product_cases[product])["CreatedDate"])
        today = min(date(2025, 10, 31), date.fromordinal(anchor.toordinal() + rng.randint(0, 200)))
        text, period = any_period(rng, today, fixed_share=0.2, kinds=("months", "quarters"))
        params = dict(product=product, start=period.bounds[0], end=period.bounds[1])
        answer = answer_top_issue_identification(org, **params)
        query = rng.choice(TOP_ISSUE).format(name=org.products[product], period=text, pid=product)
        return Draft(
            "top_issue_identification",
            query,
            answer,
            wording.TODAY_DASH.format(today=today),
            params | {"today": today.isoformat()},
        )

    return collect(rng, one, n, distinct=lambda d: (d.params["product"], d.answer[0]))


# ----------------------------------------------------------------- case_routing


def answer_case_routing(org: OrgReader, *, issue: str, product: str) -> list:
    closed = [c for c in org.cases if c["Status"] == "Closed"]
    by_issue = Counter(c["OwnerId"] for c in closed if c["IssueId__c"] == issue)
    if not by_issue:
        raise Ambiguous("nobody closed a case of this issue")
    top = max(by_issue.values())
    tied = [a for a, k in by_issue.items() if k == top]
    if len(tied) > 1:
        by_product = Counter(
            c["OwnerId"] for c in closed if org.product_of_item.get(c["OrderItemId__c"]) == product
        )
        top = max(by_product.get(a, 0) for a in tied)
        tied = [a for a in tied if by_product.get(a, 0) == top]
    if len(tied) > 1:
        open_cases = Counter(c["OwnerId"] for c in org.cases if c["Status"] != "Closed")
        low = min(open_cases.get(a, 0) for a in tied)
        tied = [a for a in tied if open_cases.get(a, 0) == low]
    if len(tied) > 1:
        raise Ambiguous("tie after every criterion")
    return tied


ROUTING = (
    "Use the case routing policy to determine the most suitable agent for the given case. Return only the Id of the agent.",
    "Following the case routing policy, which agent should this new case be assigned to? Return only the Id of the agent.",
    "Apply the case routing policy and find the best agent for the case below. Return only the Id of the agent.",
)


def make_case_routing(org: OrgReader, rng, n: int) -> list[Draft]:
    from crmarena_tui.demo.theme import theme_for

    theme = theme_for(org.org_type)
    issue_ids = {r["Name"]: r["Id"] for r in org.rows("SELECT Id, Name FROM Issue__c")}
    product_ids = {name: pid for pid, name in org.products.items()}
    specs = sorted(theme.issues, key=lambda i: i.name)

    def one(rng) -> Draft:
        spec = rng.choice(specs)
        fitting = [p.name for p in theme.products if spec.name in theme.issues_for(p.category)]
        name = rng.choice(fitting)
        params = dict(issue=issue_ids[spec.name], product=product_ids[name])
        answer = answer_case_routing(org, **params)
        subject = rng.choice(spec.subjects).format(product=name)
        body = rng.choice(spec.bodies).format(product=name)
        query = f"{rng.choice(ROUTING)}\n## Given Case\n- Case Subject: {subject}\n- Case Description: {body}"
        return Draft("case_routing", query, answer, wording.CASE_ROUTING, params)

    return collect(
        rng, one, n, none_share=0, distinct=lambda d: (d.params["issue"], d.params["product"])
    )
