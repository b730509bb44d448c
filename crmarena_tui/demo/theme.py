"""What distinguishes the B2B demo org from the B2C one: catalogue, issues, competitors, policies.

Both orgs share every object and task type; a `Theme` supplies the business they model. Policy
numbers here are planted into knowledge articles by the generator; tasks read them back from the
articles, never from this module.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Category:
    name: str
    descriptors: tuple[str, ...]  # how a customer refers to a product of this category
    max_discount: int  # percent, planted in the category's discount policy article


@dataclass(frozen=True, slots=True)
class ProductSpec:
    name: str
    category: str
    price: float  # list price in the standard price book
    blurb: str  # one clause describing the product


@dataclass(frozen=True, slots=True)
class IssueSpec:
    name: str
    description: str
    subjects: tuple[str, ...]  # case subjects; {product} is filled in
    bodies: tuple[str, ...]  # case descriptions; {product} is filled in


@dataclass(frozen=True, slots=True)
class FaqKind:
    key: str
    title: str  # article title; {product} is filled in
    lead: str  # sentence start of the body before the answer
    questions: tuple[str, ...]  # knowledge_qa wordings; {product} is filled in
    answers: tuple[str, ...]  # pool of short answers (the article's Summary)


@dataclass(frozen=True, slots=True)
class ConfigRule:
    kind: str  # "range", "multiple" or "requires"
    product: str
    low: int = 0  # range: allowed quantities low..high; multiple: the pack size
    high: int = 0
    other: str = ""  # requires: the product that must be on the same quote


@dataclass(frozen=True, slots=True)
class Policies:
    refund_limit: int  # refunds above this need manager approval
    goodwill_max: int  # percent a service agent may offer on a future order
    replacement_days: int  # free replacement only within this many days of purchase
    bant_budget: int  # minimum confirmed budget for a qualified lead
    bant_months: int  # purchase must be planned within this many months
    currency_unit: str = "$"


@dataclass(frozen=True, slots=True)
class Theme:
    org_type: str
    company: str  # the company whose org this is
    email_domain: str
    pod: str  # two Id characters that tell the orgs' Ids apart
    categories: tuple[Category, ...]
    products: tuple[ProductSpec, ...]
    issues: tuple[IssueSpec, ...]
    competitors: tuple[str, ...]
    subtopics: tuple[str, ...]
    faq_kinds: tuple[FaqKind, ...]
    config_rules: tuple[ConfigRule, ...]
    policies: Policies
    quantity_range: tuple[int, int]  # usual quantity on an order or quote line
    lines_per_order: tuple[int, int]
    buyer_needs: tuple[str, ...]  # what a lead with a real need says it needs
    issue_scope: dict[str, tuple[str, ...]] = field(
        default_factory=dict
    )  # issue -> categories (all if absent)
    web_orders: int = 0  # extra direct orders (no opportunity) at scale 1.0
    general_faqs: tuple[tuple[str, str, str], ...] = ()  # (question, short answer, explanation)
    extras: dict[str, str] = field(default_factory=dict)

    def issues_for(self, category: str) -> list[str]:
        """Names of the issues a product of `category` can have."""
        return [
            i.name for i in self.issues if category in self.issue_scope.get(i.name, (category,))
        ]

    def category(self, name: str) -> Category:
        return next(c for c in self.categories if c.name == name)


def theme_for(org_type: str) -> Theme:
    if org_type == "b2b":
        from crmarena_tui.demo.theme_b2b import THEME
    elif org_type == "b2c":
        from crmarena_tui.demo.theme_b2c import THEME
    else:
        raise ValueError(f"unknown demo org type {org_type!r}: use b2b or b2c")
    return THEME
