"""The reference agent's answers follow the org's data: copy the demo org, change the records a
task depends on with plain sqlite3, and the agent's answer moves to what the new data says."""

from __future__ import annotations

import re
import shutil
import sqlite3
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

import pytest

from crmarena_tui.demo.generator import ensure_demo_org
from crmarena_tui.demo.stage_guide import STAGE_ACTIVITIES
from crmarena_tui.demo.taskgen.common import OrgReader
from crmarena_tui.demo.tasks import demo_tasks, draft_tasks
from crmarena_tui.orgs.local import LocalOrg
from tests.support.reference_agent_support import Player

Edit = Callable[[sqlite3.Connection], None]


@pytest.fixture()
def player(tmp_path: Path):
    p = Player(tmp_path / "sessions.db")
    yield p
    p.close()


@pytest.fixture()
def changed(tmp_path: Path):
    """`changed(org_type, edit)`: a LocalOrg over a copy of the demo org with `edit` applied."""
    opened: list[LocalOrg] = []

    def make(org_type: str, edit: Edit) -> LocalOrg:
        path = tmp_path / f"{org_type}-{len(opened)}.db"
        shutil.copyfile(ensure_demo_org(org_type), path)
        conn = sqlite3.connect(path)
        try:
            with conn:
                edit(conn)
        finally:
            conn.close()
        opened.append(LocalOrg(path))
        return opened[-1]

    yield make
    for org in opened:
        org.close()


def task_where(task_type: str, org_type: str = "b2b", pred=lambda t: True, size: str = "small"):
    return next(
        t
        for t in demo_tasks(org_type, size=size)
        if t.task == task_type and not t.interactive and pred(t)
    )


def params(task) -> dict:
    """The generator's parameters of a demo task (the test may know them; the agent may not):
    the task is draft number idx % 100 of its type."""
    n = task.idx % 100
    reader = OrgReader(ensure_demo_org(task.org_type))
    try:
        draft = draft_tasks(reader, task.task, n + 1)[n]
    finally:
        reader.close()
    assert (draft.query, draft.required) == (task.query, task.metadata.required)
    return draft.params


def record_id(task, prefix: str) -> str:
    match = re.search(rf"\b{prefix}[A-Za-z0-9]{{15}}\b", task.metadata.required)
    assert match, task.metadata.required
    return match.group(0)


def original(player: Player, task) -> str:
    org = LocalOrg(ensure_demo_org(task.org_type))
    try:
        played = player.play(task, org)
    finally:
        org.close()
    assert played.reward == 1.0, task.key
    return played.answer


def test_quote_approval_follows_line_discounts(player: Player, changed) -> None:
    compliant = task_where("quote_approval", pred=lambda t: t.answer == [None])
    quote = record_id(compliant, "0Q0")
    found: dict[str, str] = {}

    def over_the_limit(conn: sqlite3.Connection) -> None:
        line, product = conn.execute(
            "SELECT Id, Product2Id FROM QuoteLineItem WHERE QuoteId = ? ORDER BY Id LIMIT 1",
            (quote,),
        ).fetchone()
        article, body = conn.execute(
            "SELECT k.Id, k.FAQ_Answer__c FROM Knowledge__kav k JOIN ProductCategory c "
            "ON k.Title = 'Discount Policy: ' || c.Name JOIN ProductCategoryProduct p "
            "ON p.ProductCategoryId = c.Id WHERE p.ProductId = ?",
            (product,),
        ).fetchone()
        limit = int(re.search(r"at most (\d+)%", body).group(1))
        conn.execute("UPDATE QuoteLineItem SET Discount = ? WHERE Id = ?", (limit + 5, line))
        found["article"] = article

    assert original(player, compliant) == "None"
    assert player.play(compliant, changed("b2b", over_the_limit)).answer == found["article"]

    breaching = task_where("quote_approval", "b2c", lambda t: t.answer != [None])
    quote = record_id(breaching, "0Q0")
    assert original(player, breaching) == breaching.answer[0]
    no_discounts = changed(
        "b2c",
        lambda c: c.execute("UPDATE QuoteLineItem SET Discount = 0 WHERE QuoteId = ?", (quote,)),
    )
    assert player.play(breaching, no_discounts).answer == "None"


def test_case_routing_follows_who_closed_the_cases(player: Player, changed) -> None:
    task = task_where("case_routing")
    issue = params(task)["issue"]
    before = original(player, task)
    newcomer: dict[str, str] = {}

    def reassign(conn: sqlite3.Connection) -> None:
        (agent,) = conn.execute(
            'SELECT OwnerId FROM "Case" WHERE OwnerId != ? ORDER BY OwnerId LIMIT 1', (before,)
        ).fetchone()
        conn.execute(
            """UPDATE "Case" SET OwnerId = ? WHERE IssueId__c = ? AND Status = 'Closed'""",
            (agent, issue),
        )
        newcomer["agent"] = agent

    assert player.play(task, changed("b2b", reassign)).answer == newcomer["agent"] != before


def test_lead_qualification_follows_the_call_transcripts(player: Player, changed) -> None:
    task = task_where("lead_qualification", pred=lambda t: t.answer == ["Authority"])
    lead = record_id(task, "00Q")
    assert original(player, task) == "Authority"

    def decision_maker(conn: sqlite3.Connection) -> None:
        for call_id, body in conn.execute(
            "SELECT Id, Body__c FROM VoiceCallTranscript__c WHERE LeadId__c = ?", (lead,)
        ).fetchall():
            new = re.sub(
                r"[^:\n]*the final decision rests with our [^\n]*",
                " I make the final decision on purchases like this one.",
                body,
            )
            conn.execute(
                "UPDATE VoiceCallTranscript__c SET Body__c = ? WHERE Id = ?", (new, call_id)
            )

    assert player.play(task, changed("b2b", decision_maker)).answer == "None"

    task = task_where(
        "lead_qualification", pred=lambda t: t.answer == ["Budget, Timeline"], size="full"
    )
    lead = record_id(task, "00Q")
    rich = changed(
        "b2b",
        lambda c: c.execute(
            "UPDATE VoiceCallTranscript__c SET Body__c = replace(Body__c, 'a budget of $', 'a budget of $9,000,') "
            "WHERE LeadId__c = ?",
            (lead,),
        ),
    )
    assert player.play(task, rich).answer == "Timeline"


def test_knowledge_answers_follow_the_article(player: Player, changed) -> None:
    task = task_where("knowledge_qa", "b2c")
    article = params(task)["article"]
    assert original(player, task) == task.answer[0]
    new = "Free lifetime repairs at any Hearthline store"
    edited = changed(
        "b2c",
        lambda c: c.execute("UPDATE Knowledge__kav SET Summary = ? WHERE Id = ?", (new, article)),
    )
    assert player.play(task, edited).answer == new


def test_top_issue_follows_the_issues_on_the_cases(player: Player, changed) -> None:
    task = task_where("top_issue_identification", pred=lambda t: t.answer != [None])
    p = params(task)
    before = original(player, task)
    other: dict[str, str] = {}

    def relabel(conn: sqlite3.Connection) -> None:
        (issue,) = conn.execute(
            "SELECT Id FROM Issue__c WHERE Id != ? ORDER BY Id LIMIT 1", (before,)
        ).fetchone()
        conn.execute(
            """UPDATE "Case" SET IssueId__c = ? WHERE OrderItemId__c IN
                        (SELECT Id FROM OrderItem WHERE Product2Id = ?)
                        AND substr(CreatedDate, 1, 10) BETWEEN ? AND ?""",
            (issue, p["product"], p["start"], p["end"]),
        )
        other["issue"] = issue

    assert player.play(task, changed("b2b", relabel)).answer == other["issue"] != before


def test_wrong_stage_follows_the_latest_activity(player: Player, changed) -> None:
    task = task_where("wrong_stage_rectification", pred=lambda t: t.answer != [None])
    opp = record_id(task, "006")
    assert original(player, task) == task.answer[0]
    recorded = (
        sqlite3.connect(ensure_demo_org("b2b"))
        .execute("SELECT StageName FROM Opportunity WHERE Id = ?", (opp,))
        .fetchone()[0]
    )
    latest = (
        "WhatId = ? AND Status IN ('Completed', 'In Progress') AND ActivityDate = (SELECT "
        "MAX(ActivityDate) FROM Task WHERE WhatId = ? AND Status IN ('Completed', 'In Progress'))"
    )

    def work_of(stage: str):
        subject = STAGE_ACTIVITIES[stage][0].format(account="Acme", contact="Ana Okafor")
        return lambda c: c.execute(
            f"UPDATE Task SET Subject = ? WHERE {latest}", (subject, opp, opp)
        )

    other = next(
        s for s in ("Negotiation", "Quote", "Discovery") if s not in (recorded, *task.answer)
    )
    assert player.play(task, changed("b2b", work_of(other))).answer == other
    # work of the stage the opportunity is recorded in: nothing to correct
    assert player.play(task, changed("b2b", work_of(recorded))).answer == "None"


def test_sales_amount_follows_the_order_items(player: Player, changed) -> None:
    task = task_where(
        "sales_amount_understanding", pred=lambda t: "most" in t.query or "highest" in t.query
    )
    p = params(task)
    before = original(player, task)
    winner: dict[str, str] = {}

    def big_order(conn: sqlite3.Connection) -> None:
        owner, item = conn.execute(
            """SELECT o.OwnerId, i.Id FROM Opportunity o JOIN Contract c ON c.Id = o.ContractID__c
               JOIN "Order" r ON r.ContractId = c.Id JOIN OrderItem i ON i.OrderId = r.Id
               WHERE c.CompanySignedDate BETWEEN ? AND ? AND o.OwnerId != ?
               AND (SELECT COUNT(*) FROM Opportunity x WHERE x.ContractID__c = c.Id) = 1
               ORDER BY i.Id LIMIT 1""",
            (p["start"], p["end"], before),
        ).fetchone()
        conn.execute("UPDATE OrderItem SET Quantity = 1000000 WHERE Id = ?", (item,))
        winner["agent"] = owner

    assert player.play(task, changed("b2b", big_order)).answer == winner["agent"] != before


def test_policy_violation_follows_the_conversation(player: Player, changed) -> None:
    refund = (
        sqlite3.connect(ensure_demo_org("b2b"))
        .execute("SELECT Id FROM Knowledge__kav WHERE Title = 'Refund Approval Policy'")
        .fetchone()[0]
    )
    task = task_where(
        "policy_violation_identification", pred=lambda t: t.answer == [refund], size="full"
    )
    case = record_id(task, "500")
    assert original(player, task) == task.answer[0]

    def approved(conn: sqlite3.Connection) -> None:
        phrase, fixed = (
            "I have issued a refund of",
            "My manager approved this refund, so I have issued a refund of",
        )
        conn.execute(
            "UPDATE EmailMessage SET TextBody = replace(TextBody, ?, ?) WHERE ParentId = ?",
            (phrase, fixed, case),
        )
        conn.execute(
            "UPDATE LiveChatTranscript SET Body = replace(Body, ?, ?) WHERE CaseId = ?",
            (phrase, fixed, case),
        )

    assert player.play(task, changed("b2b", approved)).answer == "None"


def test_a_purchase_nobody_made_is_none_until_it_is_made(player: Player, changed) -> None:
    task = task_where("named_entity_disambiguation", pred=lambda t: t.answer == [None])
    p = params(task)
    assert original(player, task) == "None"
    added: dict[str, str] = {}

    def buy(conn: sqlite3.Connection) -> None:
        (account,) = conn.execute(
            "SELECT AccountId FROM Contact WHERE Id = ?", (p["contact"],)
        ).fetchone()
        (product,) = conn.execute(
            "SELECT x.ProductId FROM ProductCategoryProduct x JOIN ProductCategory c "
            "ON c.Id = x.ProductCategoryId WHERE c.Name = ? ORDER BY x.ProductId LIMIT 1",
            (p["category"],),
        ).fetchone()
        day = (date.fromisoformat(p["today"]) - timedelta(days=p["days"])).isoformat()
        conn.execute(
            'INSERT INTO "Order" (Id, AccountId, Status, EffectiveDate) VALUES (?, ?, ?, ?)',
            ("801TESTORDER00001A", account, "Activated", day),
        )
        conn.execute(
            "INSERT INTO OrderItem (Id, OrderId, Product2Id, Quantity, UnitPrice) "
            "VALUES (?, ?, ?, 1, 10)",
            ("802TESTITEM000001A", "801TESTORDER00001A", product),
        )
        added["product"] = product

    assert player.play(task, changed(task.org_type, buy)).answer == added["product"]
