"""Customer-facing answers: knowledge_qa and named_entity_disambiguation.

knowledge_qa finds the article the question is about (its product, then the kind of question:
what the article's title asks, compared through a small vocabulary of related words) and answers
with the article's summary. named_entity_disambiguation reads the customer's orders on the day
they point to and picks the product whose category matches how they describe it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from crmarena_tui.agents.solvers.base import (
    Record,
    Solver,
    Steps,
    Workbench,
    children,
    get,
    literal,
    metadata_id,
    quoted,
)
from crmarena_tui.agents.solvers.periods import find_days_ago
from crmarena_tui.agents.solvers.text import STOPWORDS, mask, related, stem, tokens
from crmarena_tui.tasks.model import Task

# What a question is about, read from its words: a question and an article title that share
# these ideas ask the same thing, whatever their wording.
CONCEPTS: dict[str, tuple[str, ...]] = {
    "importance": ("why", "crucial", "critical", "matter", "important", "essential"),
    "security": ("secur", "protect", "safe", "cyber", "encrypt", "harm"),
    "measures": ("measure", "safeguard", "guard", "threat", "attack", "defen"),
    "benefit": (
        "benefit",
        "grow",
        "pay off",
        "expand",
        "advantage",
        "everyday",
        "daily",
        "improve life",
        "life at home",
    ),
    "integration": ("integrat", "fit in", "existing", "tools", "connect"),
    "scale": ("scale", "usage", "keep up", "peak", "demand", "cope"),
    "automation": ("automat", "efficien", "save time", "hands"),
    "smart": ("smart", "app", "adapt", "habit"),
    "materials": ("material", "environment", "sustainab", "recycl"),
    "care": ("cared", "maintain", "clean", "condition", "lasts"),
    "design": ("design", "comfort", "shape", "feel"),
    "deployment": ("deploy", "roll out", "rollout", "up and running"),
    "support": ("support", "help desk"),
    "warranty": ("warrant", "guarantee"),
    "returns": ("return", "send back", "refund"),
}


def concepts(text: str) -> set[str]:
    lowered = text.lower()
    found = set()
    for concept, cues in CONCEPTS.items():
        for cue in cues:
            if (" " in cue and cue in lowered) or any(
                w.startswith(cue) for w in re.findall(r"[a-z]+", lowered)
            ):
                found.add(concept)
    return found


@dataclass(frozen=True, slots=True)
class Question:
    text: str


class KnowledgeQA(Solver):
    task = "knowledge_qa"

    def parse(self, text: str, task: Task) -> Question:
        return Question(" ".join(text.split()))

    def missing(self, request: Question) -> str | None:
        return None if "?" in request.text or len(request.text.split()) > 3 else "your question"

    def solve(self, bench: Workbench, request: Question) -> Steps:
        products = yield from bench.run(
            "SELECT Id, Name FROM Product2",
            "Which product is the question about? I list the catalogue to find the name it uses.",
        )
        lowered = request.text.lower()
        named = [p["Name"] for p in products if p.get("Name") and p["Name"].lower() in lowered]
        product = max(named, key=len, default=None)
        if product:
            articles = yield from bench.run(
                f"SELECT Id, Title, Summary FROM Knowledge__kav WHERE Title LIKE {literal('%' + product + '%')}",
                f"The question is about {product}. Its knowledge articles:",
            )
        else:
            terms = [
                w for w in re.findall(r"[A-Za-z]{3,}", request.text) if w.lower() not in STOPWORDS
            ]
            articles = yield from bench.run(
                f"FIND {{{' OR '.join(dict.fromkeys(terms)) or 'help'}}} IN ALL FIELDS "
                "RETURNING Knowledge__kav(Id, Title, Summary)",
                "No product is named: a general question. Searching the knowledge base for its words.",
            )
        article = self._best(request.text, articles, product)
        if article is None:
            bench.note("No article answers this question.")
            return "I could not find an answer in our knowledge articles."
        bench.note(
            f"'{article.get('Title')}' ({article['Id']}) answers it; its summary is the answer."
        )
        return article.get("Summary") or ""

    @staticmethod
    def _best(question: str, articles: list[Record], product: str | None) -> Record | None:
        asked = mask(question, [product] if product else [])
        asked_concepts, asked_words = concepts(asked), set(tokens(asked))
        best, best_score = None, 0.0
        for article in articles:
            title = mask(article.get("Title") or "", [product] if product else [])
            about = concepts(title)
            score = (
                2.0 * len(asked_concepts & about)
                - len(about - asked_concepts)
                + len(asked_words & set(tokens(title))) / 10
            )
            if title.strip().lower() in question.lower():
                score += 5
            if score > best_score:
                best, best_score = article, score
        return best


# -- named_entity_disambiguation -----------------------------------------------------------------

# Descriptor words and the category words they stand for.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "intelligence": ("analytics",),
    "bi": ("analytics",),
    "teamwork": ("collaboration",),
    "classroom": ("education",),
    "stem": ("education",),
    "machine": ("ai",),
    "sensor": ("iot",),
    "connected": ("iot", "smart"),
    "engineering": ("simulation",),
    "sound": ("audio",),
    "camping": ("outdoor",),
    "countertop": ("kitchen",),
    "brewing": ("coffee",),
    "beauty": ("skincare",),
    "children": ("kid",),
    "nursery": ("baby",),
    "workout": ("fitness",),
    "work": ("office",),
    "peripheral": ("gaming",),
    "hiking": ("outdoor",),
    "espresso": ("coffee",),
}
GENERIC = frozenset(
    stem(w)
    for w in (
        "tool",
        "software",
        "hardware",
        "device",
        "product",
        "item",
        "gear",
        "equipment",
        "kit",
        "platform",
        "solution",
        "service",
        "application",
        "appliance",
        "accessory",
        "gadget",
        "system",
    )
)
_SYNONYMS = {stem(word): targets for word, targets in SYNONYMS.items()}


def descriptor_score(descriptor: str, category: str) -> float:
    """How well a customer's description ("security tool") fits a category ("Cybersecurity")."""
    cat_words = tokens(category)
    score = 0.0
    for word in tokens(descriptor):
        weight = 0.25 if word in GENERIC else 1.0
        candidates = (word, *_SYNONYMS.get(word, ()))
        if any(related(c, w) for c in candidates for w in cat_words):
            score += weight
    return score


@dataclass(frozen=True, slots=True)
class Purchase:
    contact: str | None
    description: str | None
    days: int | None
    today: date | None


class NamedEntity(Solver):
    task = "named_entity_disambiguation"

    def parse(self, text: str, task: Task) -> Purchase:
        match = re.search(
            r"\b(?:the|which|my)\s+(.+?)\s+(?:that\s+)?(?:I|did\s+I)\s+"
            r"(?:purchased|bought|ordered|order|buy|purchase|got)\b",
            text,
            re.I,
        )
        description = re.split(r"\bthe\s+", match.group(1), flags=re.I)[-1] if match else None
        return Purchase(
            metadata_id(task, text, "003"), description, find_days_ago(text), task.today()
        )

    def missing(self, request: Purchase) -> str | None:
        parts = []
        if request.description is None:
            parts.append("which product you mean")
        if request.days is None:
            parts.append("when you bought it")
        return " and ".join(parts) or None

    def solve(self, bench: Workbench, request: Purchase) -> Steps:
        contact, today = request.contact or "", request.today or date.today()
        target = today - timedelta(days=request.days or 0)
        categories = yield from bench.run(
            "SELECT Id, Name FROM ProductCategory",
            f"Which kind of product is '{request.description}'? The catalogue's categories:",
        )
        scores = {
            c["Name"]: descriptor_score(request.description or "", c.get("Name") or "")
            for c in categories
            if c.get("Name")
        }
        meant = max(sorted(scores), key=lambda name: scores[name], default=None)
        if meant is None or scores[meant] <= 0:
            bench.note(f"No category of the catalogue fits '{request.description}'.")
            return "None"
        rows = yield from bench.run(
            f"SELECT Id, AccountId FROM Contact WHERE Id = {literal(contact)}",
            f"'{request.description}' means a product of {meant} (fit {scores[meant]:.2f}). The "
            f"customer is contact {contact}; purchases are recorded on their account.",
        )
        account = rows[0]["AccountId"] if rows else ""
        orders = yield from bench.run(
            f"SELECT Id, EffectiveDate, (SELECT Product2Id, Product2.Name FROM OrderItems) FROM Order "
            f"WHERE AccountId = {literal(account or '')} AND EffectiveDate = {target.isoformat()}",
            f"{request.days} days before {today.isoformat()} is {target.isoformat()}: the account's "
            "orders placed that day, with their products.",
        )
        best = yield from self._match(bench, meant, orders)
        if best is None:
            orders = yield from bench.run(
                f"SELECT Id, EffectiveDate, (SELECT Product2Id, Product2.Name FROM OrderItems) FROM Order "
                f"WHERE AccountId = {literal(account or '')} AND EffectiveDate >= "
                f"{(target - timedelta(days=7)).isoformat()} AND EffectiveDate <= {today.isoformat()}",
                f"Nothing of {meant} was bought that day; widening to the week before it, up to "
                "today.",
            )
            best = yield from self._match(bench, meant, orders)
        if best is None:
            bench.note(f"The account bought nothing of {meant} around then.")
            return "None"
        return best

    def _match(self, bench: Workbench, meant: str, orders: list[Record]) -> Steps:
        """The bought product of category `meant` (the first one), None when there is none."""
        items = [i for o in orders for i in children(o, "OrderItems")]
        products = sorted({i["Product2Id"] for i in items if i.get("Product2Id")})
        if not products:
            bench.note("No purchase on the account in that window.")
            return None
        cats = yield from bench.run(
            f"SELECT ProductId, ProductCategory.Name FROM ProductCategoryProduct "
            f"WHERE ProductId IN ({quoted(products)})",
            f"{len(products)} products bought. Their categories, to find the {meant} one.",
        )
        category = {c["ProductId"]: get(c, "ProductCategory.Name") or "" for c in cats}
        names = {i["Product2Id"]: get(i, "Product2.Name") for i in items}
        fitting = [p for p in products if category.get(p) == meant]
        if not fitting:
            bench.note(
                "None of them is a product of "
                + f"{meant} (they are: "
                + ", ".join(sorted({category.get(p, "?") for p in products}))
                + ")."
            )
            return None
        bench.note(f"The {meant} product bought: {names.get(fitting[0])} ({fitting[0]}).")
        return fitting[0]
