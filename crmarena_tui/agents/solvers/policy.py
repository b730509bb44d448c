"""Policy checks: policy_violation_identification, quote_approval, invalid_config,
lead_qualification. The rules (limits, windows, allowed quantities, BANT thresholds) are read from
the knowledge articles that state them; the facts from the case's emails and chats, the quote's
lines, or the lead's call transcripts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from crmarena_tui.agents.solvers.base import (
    Record,
    Solver,
    Steps,
    Workbench,
    get,
    literal,
    metadata_id,
    quoted,
)
from crmarena_tui.tasks.model import Task

MONEY = r"\$\s?([\d,]+(?:\.\d+)?)"
ARTICLE_FIELDS = "Id, Title, Summary, FAQ_Answer__c"


def amount(text: str) -> float:
    return float(text.replace(",", ""))


def first_number(pattern: str, *texts: str | None) -> float | None:
    for text in texts:
        match = re.search(pattern, text or "", re.I)
        if match:
            return amount(match.group(1))
    return None


def body(article: Record) -> str:
    return f"{article.get('Summary') or ''}\n{article.get('FAQ_Answer__c') or ''}"


def titled(articles: list[Record], term: str) -> Record | None:
    """The article whose title holds every word of the search term, else the first one found."""
    wanted = re.findall(r"\w+", term.lower())
    for article in articles:
        title = (article.get("Title") or "").lower()
        if all(w in title for w in wanted):
            return article
    return articles[0] if articles else None


@dataclass(frozen=True, slots=True)
class RecordRef:
    record: str | None


class _OnRecord(Solver):
    prefix = ""
    label = ""

    def parse(self, text: str, task: Task) -> RecordRef:
        return RecordRef(metadata_id(task, text, self.prefix))

    def missing(self, request: RecordRef) -> str | None:
        return None if request.record else f"the Id of the {self.label}"


# -- policy_violation_identification -----------------------------------------------------------

# scenario -> (what the agent says that triggers the check, SOSL term that finds the article)
SCENARIOS: dict[str, tuple[re.Pattern[str], str]] = {
    "refund": (re.compile(r"issued a refund of " + MONEY, re.I), '"refund approval"'),
    "identity": (re.compile(r"Your order \S+ was placed", re.I), '"identity verification"'),
    "goodwill": (re.compile(r"offer you a (\d+)% discount on your next order", re.I), "goodwill"),
    "replacement": (re.compile(r"arranged a free replacement", re.I), '"free replacement"'),
    "closure": (re.compile(r"closing this case", re.I), '"case closure"'),
}
VERIFY_ASK = re.compile(r"confirm the email address.*order number", re.I | re.S)
CONFIRMED_FIX = re.compile(
    r"\b(that solved it|that fixed it|it works now|issue is resolved)\b", re.I
)
MANAGER_OK = re.compile(r"manager approved", re.I)


def conversation(
    emails: list[Record], chats: list[Record], staff: set[str]
) -> list[tuple[str, str]]:
    """(speaker, text) in order: emails (agent when sent from a user's address), then chat lines."""
    out = [
        (
            "agent" if (e.get("FromAddress") or "").lower() in staff else "customer",
            e.get("TextBody") or "",
        )
        for e in emails
    ]
    for chat in chats:
        for line in (chat.get("Body") or "").splitlines():
            who, _, said = line.partition(":")
            out.append(
                ("agent" if who.strip().lower().startswith("agent") else "customer", said.strip())
            )
    return out


class PolicyViolation(_OnRecord):
    task = "policy_violation_identification"
    prefix, label = "500", "case"

    def solve(self, bench: Workbench, request: RecordRef) -> Steps:
        case_id = request.record or ""
        cases = yield from bench.run(
            f"SELECT Id, Subject, CreatedDate, OwnerId, OrderItemId__r.Order.EffectiveDate "
            f"FROM Case WHERE Id = {literal(case_id)}",
            f"Case {case_id}: when it was opened, and when the order it is about took effect.",
        )
        case = cases[0] if cases else {}
        emails = yield from bench.run(
            f"SELECT Id, FromAddress, TextBody, MessageDate FROM EmailMessage "
            f"WHERE ParentId = {literal(case_id)} ORDER BY MessageDate",
            "How the agent handled it: the case's emails, in order.",
        )
        chats = yield from bench.run(
            f"SELECT Id, Body, EndTime FROM LiveChatTranscript WHERE CaseId = {literal(case_id)} "
            "ORDER BY EndTime",
            f"{len(emails)} emails. Any live chat about the case as well?",
        )
        senders = sorted({e["FromAddress"] for e in emails if e.get("FromAddress")})
        staff: set[str] = set()
        if senders:
            users = yield from bench.run(
                f"SELECT Id, Email FROM User WHERE Email IN ({quoted(senders)})",
                "Which email senders are our own agents?",
            )
            staff = {(u.get("Email") or "").lower() for u in users}
        messages = conversation(emails, chats, staff)
        violated: list[tuple[str, Record]] = []
        for scenario, (trigger, term) in SCENARIOS.items():
            hits = [
                (n, text)
                for n, (who, text) in enumerate(messages)
                if who == "agent" and trigger.search(text)
            ]
            if not hits:
                continue
            found = yield from bench.run(
                f"FIND {{{term}}} IN ALL FIELDS RETURNING Knowledge__kav({ARTICLE_FIELDS})",
                f"The agent's messages touch the {scenario} policy. Looking up the article that "
                "states it.",
            )
            article = titled(found, term)
            if article is not None and self._broken(scenario, hits, messages, article, case):
                violated.append((scenario, article))
        if not violated:
            bench.note(
                f"{len(messages)} messages read; the handling follows every policy it touches."
            )
            return "None"
        scenario, article = violated[0]
        bench.note(
            f"The {scenario} rule in '{article.get('Title')}' ({article['Id']}) was broken"
            + (f"; also {', '.join(s for s, _ in violated[1:])}." if len(violated) > 1 else ".")
        )
        return article["Id"]

    @staticmethod
    def _broken(
        scenario: str,
        hits: list[tuple[int, str]],
        messages: list[tuple[str, str]],
        article: Record,
        case: Record,
    ) -> bool:
        rule = body(article)
        if scenario == "refund":
            limit = first_number(r"above " + MONEY, rule)
            if limit is None:
                return False
            return any(
                amount(m.group(1)) > limit and not MANAGER_OK.search(text)
                for _, text in hits
                if (m := SCENARIOS["refund"][0].search(text))
            )
        if scenario == "goodwill":
            top = first_number(r"at most (\d+)%", rule)
            return top is not None and any(
                int(m.group(1)) > top
                for _, text in hits
                if (m := SCENARIOS["goodwill"][0].search(text))
            )
        if scenario == "replacement":
            window = first_number(r"within (\d+) days", rule)
            bought = get(case, "OrderItemId__r.Order.EffectiveDate")
            if window is None or not bought or not case.get("CreatedDate"):
                return False
            opened = date.fromisoformat(case["CreatedDate"][:10])
            return (opened - date.fromisoformat(bought[:10])).days > window
        if scenario == "identity":
            first = hits[0][0]
            asked = next(
                (
                    n
                    for n, (who, text) in enumerate(messages[:first])
                    if who == "agent" and VERIFY_ASK.search(text)
                ),
                None,
            )
            answered = asked is not None and any(
                who == "customer" for who, _ in messages[asked + 1 : first]
            )
            return not answered
        if scenario == "closure":
            first = hits[0][0]
            return not any(
                who == "customer" and CONFIRMED_FIX.search(text) for who, text in messages[:first]
            )
        return False


# -- quotes --------------------------------------------------------------------------------------


def quote_rules(
    lines: list[Record], category: dict[str, str], articles: list[Record]
) -> list[tuple[str, Record, str]]:
    """(kind, article, finding) for every rule the quote's lines break; kind 'discount'/'config'."""
    names = {get(line, "Product2.Name") for line in lines}
    broken: list[tuple[str, Record, str]] = []
    for article in articles:
        title, text = article.get("Title") or "", body(article)
        subject = title.split(":", 1)[1].strip() if ":" in title else ""
        top = first_number(r"discount of at most (\d+(?:\.\d+)?)%", text)
        if top is not None:
            over = [
                line
                for line in lines
                if category.get(line.get("Product2Id") or "") == subject
                and (line.get("Discount") or 0) > top
            ]
            if over:
                broken.append(
                    (
                        "discount",
                        article,
                        f"{get(over[0], 'Product2.Name')} discounted "
                        f"{over[0]['Discount']}% (max {top:g}%)",
                    )
                )
            continue
        mine = [line for line in lines if get(line, "Product2.Name") == subject]
        if not subject or not mine:
            continue
        quantity = mine[0].get("Quantity") or 0
        if m := re.search(r"at least (\d+) and at most (\d+)", text):
            bad = not int(m.group(1)) <= quantity <= int(m.group(2))
            finding = f"quantity {quantity:g} outside {m.group(1)}-{m.group(2)}"
        elif m := re.search(r"multiple of (\d+)", text):
            bad = quantity % int(m.group(1)) != 0
            finding = f"quantity {quantity:g} not a multiple of {m.group(1)}"
        elif m := re.search(r"together with (.+?) on the same quote", text):
            bad = m.group(1) not in names
            finding = f"{subject} quoted without {m.group(1)}"
        else:
            continue
        if bad:
            broken.append(("config", article, finding))
    return broken


class QuoteApproval(_OnRecord):
    task = "quote_approval"
    prefix, label = "0Q0", "quote"
    kinds: tuple[str, ...] = ("discount", "config")

    def solve(self, bench: Workbench, request: RecordRef) -> Steps:
        quote = request.record or ""
        lines = yield from bench.run(
            f"SELECT Id, Product2Id, Product2.Name, Quantity, UnitPrice, Discount FROM QuoteLineItem "
            f"WHERE QuoteId = {literal(quote)}",
            f"The lines of quote {quote}: products, quantities, prices and discounts.",
        )
        if not lines:
            bench.note("The quote has no lines, so nothing can break a rule.")
            return "None"
        products = sorted({line["Product2Id"] for line in lines if line.get("Product2Id")})
        cats = yield from bench.run(
            f"SELECT ProductId, ProductCategory.Name FROM ProductCategoryProduct "
            f"WHERE ProductId IN ({quoted(products)})",
            f"{len(lines)} lines. Discount limits are set per product category: the categories of "
            "these products.",
        )
        category = {c["ProductId"]: get(c, "ProductCategory.Name") for c in cats}
        articles = yield from bench.run(
            f"SELECT {ARTICLE_FIELDS} FROM Knowledge__kav WHERE Title LIKE 'Discount Policy%' "
            "OR Title LIKE 'Configuration Rule%'",
            "The pricing and configuration policies in the knowledge base.",
        )
        broken = [b for b in quote_rules(lines, category, articles) if b[0] in self.kinds]
        if not broken:
            bench.note(
                f"Checked {len(lines)} lines against {len(articles)} policy articles: "
                "no rule is broken."
            )
            return "None"
        kind, article, finding = broken[0]
        bench.note(
            f"{finding}: this breaks '{article.get('Title')}' ({article['Id']})"
            + (f"; {len(broken) - 1} more finding(s)." if len(broken) > 1 else ".")
        )
        return article["Id"]


class InvalidConfig(QuoteApproval):
    task = "invalid_config"
    kinds = ("config",)


# -- lead_qualification --------------------------------------------------------------------------


class LeadQualification(_OnRecord):
    task = "lead_qualification"
    prefix, label = "00Q", "lead"

    def solve(self, bench: Workbench, request: RecordRef) -> Steps:
        lead = request.record or ""
        found = yield from bench.run(
            f"FIND {{BANT}} IN ALL FIELDS RETURNING Knowledge__kav({ARTICLE_FIELDS})",
            "The qualification criteria (Budget, Authority, Need, Timeline) from the knowledge base.",
        )
        criteria = body(found[0]) if found else ""
        min_budget = first_number(r"at least " + MONEY, criteria)
        max_months = first_number(r"within (\d+) months", criteria)
        calls = yield from bench.run(
            f"SELECT Id, CreatedDate, Body__c FROM VoiceCallTranscript__c WHERE LeadId__c = {literal(lead)} "
            "ORDER BY CreatedDate",
            f"Criteria: budget of at least {min_budget:,.0f}, purchase within {max_months:g} months, "
            f"decision maker, specific need. Now the calls with lead {lead}."
            if min_budget is not None and max_months is not None
            else f"The calls with lead {lead}.",
        )
        text = "\n".join(c.get("Body__c") or "" for c in calls)
        budget = first_number(r"a budget of " + MONEY, text)
        months = first_number(r"purchase within (\d+) months?", text)
        unmet = []
        if budget is not None and min_budget is not None and budget < min_budget:
            unmet.append("Budget")
        if re.search(
            r"final decision rests with|not the decision maker|need approval from", text, re.I
        ):
            unmet.append("Authority")
        if re.search(r"no specific need|no real need", text, re.I):
            unmet.append("Need")
        if months is not None and max_months is not None and months > max_months:
            unmet.append("Timeline")
        said = (
            (f"budget {budget:,.0f}" if budget is not None else "no budget stated")
            + ", "
            + (f"purchase within {months:g} months" if months is not None else "no timeline stated")
        )
        bench.note(
            f"{len(calls)} calls: {said}. "
            + (f"Unmet: {', '.join(unmet)}." if unmet else "All four criteria are met.")
        )
        return ", ".join(unmet) or "None"
