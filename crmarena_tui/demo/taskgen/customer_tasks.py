"""Customer-facing tasks: knowledge_qa, named_entity_disambiguation.

Facts planted by the generator: FAQ articles per product whose Title is the question and whose
Summary is the short answer (`orggen/catalog.py`); orders of each account with dated items of
products in categories (`orggen/sales.py`, `orggen/web.py`).

Rules fixing the answer:
- knowledge_qa: the Summary of the FAQ article the question is about (the article's Title names
  the product and the kind of question; the body repeats the answer). Graded by token F1.
- named_entity_disambiguation: the contact's account (Contact.AccountId); its Orders with
  EffectiveDate exactly N days before today; among their OrderItems, the one product whose
  category (ProductCategoryProduct -> ProductCategory.Name) matches the customer's description of
  it (each description belongs to one category, `theme.Category.descriptors`). Tasks exist only
  when no other product of that category was bought by the account from N+7 days before today up
  to today, so "last week" style readings give the same product. [None] when the account bought
  no product of that category in that window at all.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from crmarena_tui.demo.taskgen import wording
from crmarena_tui.demo.taskgen.common import Ambiguous, Draft, OrgReader, collect
from crmarena_tui.demo.theme import theme_for

# ----------------------------------------------------------------- knowledge_qa


def answer_knowledge_qa(org: OrgReader, *, article: str) -> list:
    summary = org.scalar("SELECT Summary FROM Knowledge__kav WHERE Id = ?", article)
    if not summary:
        raise Ambiguous("article has no summary")
    return [summary]


GENERAL_LEADS = ("", "Quick question: ", "Hi, I was wondering: ", "Could you help me? ")


def make_knowledge_qa(org: OrgReader, rng: random.Random, n: int) -> list[Draft]:
    theme = theme_for(org.org_type)
    questions: dict[str, tuple[str, ...]] = {}
    for name in org.products.values():
        for kind in theme.faq_kinds:
            questions[kind.title.format(product=name)] = tuple(
                q.format(product=name) for q in kind.questions
            )
    faq = [a for a in org.articles if a["Title"] in questions]
    general = [a for a in org.articles if a["Title"].endswith("?") and a["Title"] not in questions]

    def one(rng: random.Random, none: bool) -> Draft:
        if general and rng.random() < 0.15:
            a = rng.choice(general)
            query = rng.choice(GENERAL_LEADS) + a["Title"]
        else:
            a = rng.choice(faq)
            query = rng.choice(questions[a["Title"]])
        return Draft(
            "knowledge_qa",
            query,
            answer_knowledge_qa(org, article=a["Id"]),
            wording.KNOWLEDGE_QA,
            {"article": a["Id"]},
        )

    return collect(rng, one, n, none_share=0, distinct=lambda d: d.params["article"])


# ----------------------------------------------------------------- named_entity_disambiguation

WHEN = {
    1: ("yesterday",),
    2: ("two days ago", "2 days ago"),
    3: ("three days ago", "3 days back"),
    4: ("four days ago",),
    5: ("five days back", "5 days ago"),
    6: ("six days ago",),
    7: ("a week ago", "last week", "seven days ago"),
    10: ("ten days ago",),
    14: ("two weeks ago", "14 days ago"),
}


def _purchases(org: OrgReader, account: str, first: date, last: date) -> list:
    return org.rows(
        'SELECT o.EffectiveDate, i.Product2Id FROM "Order" o JOIN OrderItem i ON i.OrderId = o.Id '
        "WHERE o.AccountId = ? AND o.EffectiveDate BETWEEN ? AND ? ORDER BY o.EffectiveDate, i.Id",
        account,
        first.isoformat(),
        last.isoformat(),
    )


def answer_named_entity_disambiguation(
    org: OrgReader, *, contact: str, today: str, days: int, category: str
) -> list:
    account = org.scalar("SELECT AccountId FROM Contact WHERE Id = ?", contact)
    now = date.fromisoformat(today)
    target = now - timedelta(days=days)
    matching = {
        r["Product2Id"]
        for r in _purchases(org, account, target, target)
        if org.category_of_product.get(r["Product2Id"]) == category
    }
    nearby = {
        r["Product2Id"]
        for r in _purchases(org, account, target - timedelta(days=7), now)
        if org.category_of_product.get(r["Product2Id"]) == category
    }
    if not nearby:
        return [None]
    if len(matching) != 1:
        raise Ambiguous("no single matching product on that day")
    if nearby != matching:
        raise Ambiguous("other purchases of the category nearby")
    return sorted(matching)


NED_QUERIES = (
    "Show me the {desc} I bought {when}. Return only the Id of the product from the contact's relevant past transaction.",
    "Can you pull up the {desc} I purchased {when}? Return only the Id of the product from the contact's relevant past transaction.",
    "I need the details of the {desc} I bought {when}. Return only the Id of the product from the contact's relevant past transaction.",
    "Which {desc} did I order {when}? Return only the Id of the product from the contact's relevant past transaction.",
)


def make_named_entity_disambiguation(org: OrgReader, rng: random.Random, n: int) -> list[Draft]:
    theme = theme_for(org.org_type)
    orders = org.rows('SELECT Id, AccountId, EffectiveDate FROM "Order" ORDER BY Id')
    categories = sorted(c.name for c in theme.categories)

    def one(rng: random.Random, none: bool) -> Draft | None:
        order = rng.choice(orders)
        products = [
            r[0]
            for r in org.rows(
                "SELECT Product2Id FROM OrderItem WHERE OrderId = ? ORDER BY Id", order["Id"]
            )
        ]
        product = rng.choice(products)
        category = org.category_of_product[product]
        if none:  # a kind of product the customer did not buy around then
            category = rng.choice([c for c in categories if c != category])
        days = rng.choice(sorted(WHEN))
        today = date.fromisoformat(order["EffectiveDate"]) + timedelta(days=days)
        if today > date(2025, 10, 31):
            return None
        contacts = [
            r[0]
            for r in org.rows(
                "SELECT Id FROM Contact WHERE AccountId = ? ORDER BY Id", order["AccountId"]
            )
        ]
        params = dict(
            contact=rng.choice(contacts), today=today.isoformat(), days=days, category=category
        )
        answer = answer_named_entity_disambiguation(org, **params)
        desc = rng.choice(theme.category(category).descriptors)
        query = rng.choice(NED_QUERIES).format(desc=desc, when=rng.choice(WHEN[days]))
        return Draft(
            "named_entity_disambiguation",
            query,
            answer,
            wording.NAMED_ENTITY.format(contact=params["contact"], today=today.isoformat()),
            params,
        )

    return collect(rng, one, n, distinct=lambda d: (d.params["contact"], d.params["today"]))
