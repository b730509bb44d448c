"""SOQL engine latency on a scale-1.0 org, against the same hand-written SQL run raw.

For 20 queries shaped like the benchmark's tasks, prints per query: the engine's p50 through
`LocalOrg.query` (plan cache off, so every call parses and translates), the raw SQL's p50 on a plain
sqlite3 connection in the same process, their ratio, and the engine's own cost (parse + translate +
shape, i.e. everything but executing SQL). Then the p50/p95 over all calls and the median own cost
(target: <= 1 ms). The org comes from the demo generator (seed 0, scale 1.0) when it is installed,
otherwise from random rows at the real org's record counts.
Run: python benchmarks/bench_soql.py [--org PATH] [--repeat N]
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from crmarena_tui.orgs.local import LocalOrg  # noqa: E402
from crmarena_tui.orgs.soql.engine import compile_query  # noqa: E402
from crmarena_tui.orgs.soql.shape import build_aggregate, build_record, child_result  # noqa: E402

COUNTS = {
    "User": 212,
    "Account": 101,
    "Contact": 886,
    "Contract": 163,
    "Lead": 1465,
    "Opportunity": 1170,
    "OpportunityLineItem": 4926,
    "Quote": 704,
    "QuoteLineItem": 2966,
    "Case": 153,
    "Knowledge__kav": 194,
    "Issue__c": 15,
    "CaseHistory__c": 393,
    "EmailMessage": 5686,
    "LiveChatTranscript": 58,
    "ProductCategory": 10,
    "Product2": 51,
    "ProductCategoryProduct": 51,
    "Pricebook2": 2,
    "PricebookEntry": 102,
    "Order": 163,
    "OrderItem": 689,
    "Task": 4783,
    "Event": 54,
    "VoiceCallTranscript__c": 4033,
    "Territory2": 10,
    "UserTerritory2Association": 184,
}
WORDS = [
    "battery",
    "screen",
    "login",
    "password",
    "refund",
    "return",
    "policy",
    "discount",
    "quote",
    "invoice",
    "router",
    "sensor",
    "upgrade",
    "budget",
    "timeline",
    "authority",
    "need",
    "renewal",
]


def random_org(path: Path, seed: int = 0) -> Path:
    """Fill the reference schema with random rows at the real org's record counts."""
    from crmarena_tui.orgs.reference_schema import reference_schema
    from crmarena_tui.orgs.schema import write_meta, write_schema

    rng = random.Random(seed)
    schema = reference_schema()
    ids = {
        name: [f"{obj.key_prefix}{n:012d}AAA" for n in range(COUNTS[name])]
        for name, obj in schema.objects.items()
    }
    start = date(2020, 1, 1)

    def value(f):  # noqa: ANN001, ANN202
        if rng.random() < 0.05 and f.name != "Id":
            return None
        if f.type == "reference":
            return rng.choice(ids[f.reference_to])
        if f.type in ("int",):
            return rng.randint(1, 5000)
        if f.type in ("double", "currency", "percent"):
            return round(rng.uniform(1, 10000), 2)
        if f.type == "boolean":
            return rng.randint(0, 1)
        if f.type in ("date", "datetime"):
            day = start + timedelta(days=rng.randint(0, 2100))
            if f.type == "date":
                return day.isoformat()
            return (
                f"{day.isoformat()}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00.000+0000"
            )
        if f.type == "picklist":
            return rng.choice(["Open", "Closed", "New", "Working", "Accepted", "Owner Assignment"])
        if f.type == "textarea":
            return " ".join(rng.choice(WORDS) for _ in range(40))
        return " ".join(rng.choice(WORDS) for _ in range(3)).title()

    conn = sqlite3.connect(path)
    write_schema(conn, schema)
    write_meta(conn, {"org_type": "b2b", "today": "2025-11-03"})
    for name, obj in schema.objects.items():
        cols = obj.field_names
        rows = [
            [ids[name][i] if c == "Id" else value(obj.field(c)) for c in cols]
            for i in range(COUNTS[name])
        ]
        conn.executemany(f'INSERT INTO "{name}" VALUES ({", ".join("?" * len(cols))})', rows)
    conn.commit()
    conn.close()
    return path


def build(path: Path) -> tuple[Path, str]:
    try:
        from crmarena_tui.demo.generator import build_org
    except ImportError:
        return random_org(path), "random rows at the real counts"
    return build_org(path, org_type="b2b", seed=0, scale=1.0), "demo generator, seed 0, scale 1.0"


def pick(raw: sqlite3.Connection, sql: str) -> str:
    row = raw.execute(sql).fetchone()
    return row[0] if row else "000000000000000AAA"


def queries(raw: sqlite3.Connection, today: date) -> list[tuple[str, str, str]]:
    """(task, SOQL, hand-written SQL) pairs on values picked from the data."""
    pid = pick(
        raw,
        'SELECT oi.Product2Id FROM "Case" c JOIN OrderItem oi ON oi.Id = c.OrderItemId__c '
        "WHERE oi.Product2Id IS NOT NULL GROUP BY oi.Product2Id ORDER BY COUNT(*) DESC",
    )
    iid = pick(
        raw,
        'SELECT IssueId__c FROM "Case" WHERE IssueId__c IS NOT NULL GROUP BY IssueId__c ORDER BY COUNT(*) DESC',
    )
    cid = pick(
        raw,
        "SELECT ParentId FROM EmailMessage WHERE ParentId IS NOT NULL GROUP BY ParentId ORDER BY COUNT(*) DESC",
    )
    aid = pick(
        raw,
        'SELECT AccountId FROM "Order" WHERE AccountId IS NOT NULL GROUP BY AccountId ORDER BY COUNT(*) DESC',
    )
    oid = pick(
        raw,
        "SELECT WhatId FROM Task WHERE WhatId IS NOT NULL GROUP BY WhatId ORDER BY COUNT(*) DESC",
    )
    lid = pick(raw, "SELECT LeadId__c FROM VoiceCallTranscript__c WHERE LeadId__c IS NOT NULL")
    qid = pick(raw, "SELECT QuoteId FROM QuoteLineItem GROUP BY QuoteId ORDER BY COUNT(*) DESC")
    tid = pick(raw, "SELECT Id FROM Territory2")
    six = date(today.year - (today.month <= 6), (today.month - 7) % 12 + 1, 1).isoformat()
    this_month = today.replace(day=1).isoformat()
    since = (today - timedelta(days=180)).isoformat()
    return [
        (
            "handle_time",
            f"SELECT Id, CreatedDate, ClosedDate, OwnerId FROM Case WHERE CreatedDate >= {since}T00:00:00Z AND ClosedDate != null",
            f"SELECT Id, CreatedDate, ClosedDate, OwnerId FROM \"Case\" WHERE CreatedDate >= '{since}T00:00:00.000+0000' AND ClosedDate IS NOT NULL",
        ),
        (
            "transfer_count",
            "SELECT CaseId__c, OldValue__c, NewValue__c, CreatedDate FROM CaseHistory__c WHERE Field__c = 'Owner Assignment' AND CreatedDate = LAST_N_MONTHS:6",
            f"SELECT CaseId__c, OldValue__c, NewValue__c, CreatedDate FROM CaseHistory__c WHERE Field__c = 'Owner Assignment' AND CreatedDate >= '{six}' AND CreatedDate < '{this_month}'",
        ),
        (
            "best_region",
            "SELECT Account.ShippingState, CreatedDate, ClosedDate FROM Case WHERE Status = 'Closed' AND ClosedDate = LAST_N_MONTHS:6",
            f"SELECT a.ShippingState, c.CreatedDate, c.ClosedDate FROM \"Case\" c LEFT JOIN Account a ON a.Id = c.AccountId WHERE c.Status = 'Closed' AND c.ClosedDate >= '{six}' AND c.ClosedDate < '{this_month}'",
        ),
        (
            "monthly_trend",
            f"SELECT CALENDAR_MONTH(CreatedDate), COUNT(Id) FROM Case WHERE OrderItemId__r.Product2Id = '{pid}' GROUP BY CALENDAR_MONTH(CreatedDate)",
            f"SELECT CAST(substr(c.CreatedDate, 6, 2) AS INT) m, COUNT(*) FROM \"Case\" c JOIN OrderItem oi ON oi.Id = c.OrderItemId__c WHERE oi.Product2Id = '{pid}' GROUP BY m",
        ),
        (
            "top_issue",
            f"SELECT IssueId__c, COUNT(Id) FROM Case WHERE OrderItemId__r.Product2Id = '{pid}' GROUP BY IssueId__c ORDER BY COUNT(Id) DESC LIMIT 1",
            f"SELECT c.IssueId__c, COUNT(*) n FROM \"Case\" c JOIN OrderItem oi ON oi.Id = c.OrderItemId__c WHERE oi.Product2Id = '{pid}' GROUP BY c.IssueId__c ORDER BY n DESC LIMIT 1",
        ),
        (
            "case_routing",
            f"SELECT OwnerId, COUNT(Id) FROM Case WHERE IssueId__c = '{iid}' AND Status = 'Closed' GROUP BY OwnerId ORDER BY COUNT(Id) DESC",
            f"SELECT OwnerId, COUNT(*) n FROM \"Case\" WHERE IssueId__c = '{iid}' AND Status = 'Closed' GROUP BY OwnerId ORDER BY n DESC",
        ),
        (
            "policy_violation",
            f"SELECT Id, Subject, TextBody, MessageDate FROM EmailMessage WHERE ParentId = '{cid}' ORDER BY MessageDate",
            f"SELECT Id, Subject, TextBody, MessageDate FROM EmailMessage WHERE ParentId = '{cid}' ORDER BY MessageDate",
        ),
        (
            "knowledge_qa",
            "SELECT Id, Title, Summary FROM Knowledge__kav WHERE Title LIKE '%discount%'",
            "SELECT Id, Title, Summary FROM Knowledge__kav WHERE Title LIKE '%discount%'",
        ),
        (
            "named_entity",
            f"SELECT Id, Product2.Name, Order.EffectiveDate FROM OrderItem WHERE Order.AccountId = '{aid}' ORDER BY Order.EffectiveDate DESC",
            f"SELECT oi.Id, p.Name, o.EffectiveDate FROM OrderItem oi LEFT JOIN Product2 p ON p.Id = oi.Product2Id JOIN \"Order\" o ON o.Id = oi.OrderId WHERE o.AccountId = '{aid}' ORDER BY o.EffectiveDate DESC",
        ),
        (
            "sales_amount",
            "SELECT OrderId, Quantity, UnitPrice, Order.OwnerId FROM OrderItem WHERE Order.EffectiveDate = LAST_N_MONTHS:6",
            f"SELECT oi.OrderId, oi.Quantity, oi.UnitPrice, o.OwnerId FROM OrderItem oi JOIN \"Order\" o ON o.Id = oi.OrderId WHERE o.EffectiveDate >= '{six}' AND o.EffectiveDate < '{this_month}'",
        ),
        (
            "sales_cycle",
            "SELECT Id, CreatedDate, OwnerId, ContractID__r.CompanySignedDate FROM Opportunity WHERE ContractID__r.CompanySignedDate = LAST_N_MONTHS:6",
            f"SELECT o.Id, o.CreatedDate, o.OwnerId, c.CompanySignedDate FROM Opportunity o JOIN Contract c ON c.Id = o.ContractID__c WHERE c.CompanySignedDate >= '{six}' AND c.CompanySignedDate < '{this_month}'",
        ),
        (
            "conversion_rate",
            "SELECT OwnerId, COUNT(Id) FROM Lead WHERE IsConverted = true AND CreatedDate = LAST_N_MONTHS:6 GROUP BY OwnerId",
            f"SELECT OwnerId, COUNT(*) FROM Lead WHERE IsConverted = 1 AND CreatedDate >= '{six}' AND CreatedDate < '{this_month}' GROUP BY OwnerId",
        ),
        (
            "lead_routing_territory",
            f"SELECT UserId, User.Name FROM UserTerritory2Association WHERE Territory2Id = '{tid}'",
            f"SELECT x.UserId, u.Name FROM UserTerritory2Association x LEFT JOIN User u ON u.Id = x.UserId WHERE x.Territory2Id = '{tid}'",
        ),
        (
            "lead_routing_quotes",
            "SELECT Opportunity.OwnerId, COUNT(Id) FROM Quote WHERE Status = 'Accepted' GROUP BY Opportunity.OwnerId",
            "SELECT o.OwnerId, COUNT(*) FROM Quote q LEFT JOIN Opportunity o ON o.Id = q.OpportunityId WHERE q.Status = 'Accepted' GROUP BY o.OwnerId",
        ),
        (
            "lead_qualification",
            f"SELECT Id, Body__c, CreatedDate FROM VoiceCallTranscript__c WHERE LeadId__c = '{lid}'",
            f"SELECT Id, Body__c, CreatedDate FROM VoiceCallTranscript__c WHERE LeadId__c = '{lid}'",
        ),
        (
            "wrong_stage",
            f"SELECT Subject, Status, ActivityDate FROM Task WHERE WhatId = '{oid}' ORDER BY ActivityDate DESC",
            f"SELECT Subject, Status, ActivityDate FROM Task WHERE WhatId = '{oid}' ORDER BY ActivityDate DESC",
        ),
        (
            "activity_priority",
            f"SELECT Id, Subject, What.Name FROM Task WHERE WhatId = '{oid}' AND Status = 'Not Started'",
            f"SELECT t.Id, t.Subject, o.Name FROM Task t LEFT JOIN Opportunity o ON o.Id = t.WhatId WHERE t.WhatId = '{oid}' AND t.Status = 'Not Started'",
        ),
        (
            "quote_approval",
            f"SELECT Id, Quantity, UnitPrice, Discount, Product2.Name FROM QuoteLineItem WHERE QuoteId = '{qid}'",
            f"SELECT q.Id, q.Quantity, q.UnitPrice, q.Discount, p.Name FROM QuoteLineItem q LEFT JOIN Product2 p ON p.Id = q.Product2Id WHERE q.QuoteId = '{qid}'",
        ),
        (
            "open_leads_count",
            "SELECT COUNT() FROM Lead WHERE Status LIKE 'Open%' AND OwnerId IN (SELECT UserId FROM UserTerritory2Association)",
            "SELECT COUNT(*) FROM Lead WHERE Status LIKE 'Open%' AND OwnerId IN (SELECT UserId FROM UserTerritory2Association WHERE UserId IS NOT NULL)",
        ),
        (
            "accounts_with_cases",
            "SELECT Id, Name, (SELECT Id, Subject FROM Cases) FROM Account WHERE ShippingState = 'CA'",
            "SELECT a.Id, a.Name, c.Id, c.Subject FROM Account a LEFT JOIN \"Case\" c ON c.AccountId = a.Id WHERE a.ShippingState = 'CA'",
        ),
    ]


def timed(fn, repeat: int) -> list[float]:  # noqa: ANN001
    fn()
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def own_cost(org: LocalOrg, conn: sqlite3.Connection, soql: str, repeat: int) -> list[float]:
    """Parse + translate + shape (SQL execution excluded), per call, in ms."""
    out = []
    for _ in range(repeat + 1):
        t0 = time.perf_counter()
        plan = compile_query(org._index, soql, org.today)
        t1 = time.perf_counter()
        rows = conn.execute(plan.sql, plan.params).fetchall()
        child_rows = []
        for cp in plan.children:
            ids = list(dict.fromkeys(r[plan.id_col] for r in rows))
            child_rows.append(
                conn.execute(
                    cp.head + ", ".join("?" * len(ids)) + cp.tail, [*ids, *cp.params]
                ).fetchall()
                if ids
                else []
            )
        t2 = time.perf_counter()
        if plan.mode == "aggregate":
            [build_aggregate(r, plan.slots) for r in rows]  # type: ignore[arg-type]
        elif plan.mode == "records":
            children = []
            for cp, crow in zip(plan.children, child_rows, strict=True):
                grouped: dict = {}
                for r in crow:
                    grouped.setdefault(r[cp.fk_col], []).append(r)
                children.append(
                    {
                        k: child_result(
                            [build_record(r, cp.slots, cp.type_name, cp.id_col) for r in v]
                        )
                        for k, v in grouped.items()
                    }
                )
            [build_record(r, plan.slots, plan.type_name, plan.id_col, children) for r in rows]
        t3 = time.perf_counter()
        out.append(((t1 - t0) + (t3 - t2)) * 1000)
    return out[1:]


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--org", type=Path, default=None, help="an existing org file (default: build one)"
    )
    ap.add_argument("--repeat", type=int, default=30)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.org:
            path, source = args.org, str(args.org)
        else:
            start = time.perf_counter()
            path, source = build(Path(tmp) / "org.db")
            source += f", built in {time.perf_counter() - start:.1f} s"
        org = LocalOrg(path)
        org.cache_plans = False
        raw = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        shaped = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        org.query("SELECT Id FROM Account LIMIT 1")  # builds the grammar once
        print(f"org: {source}; today {org.today}; {args.repeat} timed calls per query")
        print(
            f"{'task':<24}{'rows':>6}{'engine p50':>12}{'raw SQL p50':>13}{'ratio':>8}{'own p50':>10}"
        )
        all_engine, all_raw, own_medians = [], [], []
        for task, soql, sql in queries(raw, org.today):
            res = org.query(soql)
            if res.error:
                raise SystemExit(f"{task}: {res.error}")
            engine = timed(lambda soql=soql: org.query(soql), args.repeat)
            base = timed(lambda sql=sql: raw.execute(sql).fetchall(), args.repeat)
            own = own_cost(org, shaped, soql, args.repeat)
            all_engine += engine
            all_raw += base
            own_medians.append(statistics.median(own))
            rows = res.total_size
            e50, r50 = statistics.median(engine), statistics.median(base)
            print(
                f"{task:<24}{rows:>6}{e50:>10.3f}ms{r50:>11.3f}ms{e50 / r50:>7.1f}x{own_medians[-1]:>8.3f}ms"
            )
        print()
        print(
            f"all calls: engine p50 {pct(all_engine, 0.5):.3f} ms, p95 {pct(all_engine, 0.95):.3f} ms; "
            f"raw SQL p50 {pct(all_raw, 0.5):.3f} ms, p95 {pct(all_raw, 0.95):.3f} ms; "
            f"ratio of p50s {pct(all_engine, 0.5) / pct(all_raw, 0.5):.1f}x"
        )
        median_own = statistics.median(own_medians)
        print(
            f"engine's own cost (parse + translate + shape, cache off): median {median_own:.3f} ms, "
            f"max {max(own_medians):.3f} ms -> target <= 1 ms median: "
            f"{'met' if median_own <= 1.0 else 'NOT met'}"
        )
        org.close()
        raw.close()
        shaped.close()


if __name__ == "__main__":
    main()
