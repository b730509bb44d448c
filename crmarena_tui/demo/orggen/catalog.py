"""Catalogue: product categories, products, price books, issues and knowledge articles.

Knowledge articles hold the concrete policies the policy tasks check (one article per rule):
- "Discount Policy: <category>": the maximum discount per quote line for the category's products.
- "Configuration Rule: <product>": allowed quantity range, pack multiple, or a required companion.
- Case handling: refund approval limit, identity verification, goodwill discount limit, free
  replacement window, case closure confirmation.
- "Lead Qualification Criteria (BANT)": minimum budget and maximum purchase timeline.
- FAQ articles per product (Title is the question, Summary the short answer) and the company's
  general FAQs (`theme.general_faqs`).
Every article body (FAQ_Answer__c) has sections ("## Policy", "## Scope", "## Answer", ...): the
rule or answer itself first, then context that repeats no number and no phrase the tasks read.
"""

from __future__ import annotations

from crmarena_tui.demo.orggen.context import BuildContext, slug
from crmarena_tui.demo.theme import ConfigRule

CASE_POLICIES = (
    (
        "refund",
        "Refund Approval Policy",
        "Refunds above {cur}{refund:,} need manager approval.",
        "Agents may issue refunds of up to {cur}{refund:,} on their own. Any refund above {cur}{refund:,} "
        "must be approved by a service manager before it is issued or promised to the customer, and "
        "the approval must be mentioned to the customer.",
    ),
    (
        "identity",
        "Customer Identity Verification",
        "Verify identity before sharing order or account details.",
        "Before sharing any order or account details, agents must verify the customer's identity by "
        "asking for the email address registered on the account and the order number. Details may "
        "only be shared after the customer has provided both.",
    ),
    (
        "goodwill",
        "Goodwill Discount Limits",
        "Service agents may offer at most {goodwill}% off a future order.",
        "When a customer has had a poor experience, a service agent may offer a goodwill discount on "
        "a future order of at most {goodwill}%. Larger goodwill discounts are not permitted.",
    ),
    (
        "replacement",
        "Free Replacement Window",
        "Free replacements only within {days} days of purchase.",
        "A free replacement may be offered only when the case is opened within {days} days of the "
        "purchase date of the order. For older purchases, agents must offer a repair instead.",
    ),
    (
        "closure",
        "Case Closure Confirmation",
        "Close a case only after the customer confirms the fix.",
        "Agents must not close a case until the customer has confirmed that the issue is resolved. "
        "Closing a case without the customer's confirmation is a breach of this policy.",
    ),
)

PROPER_STARTS = {"Salesforce,", "Slack,", "AWS,", "Snowflake,", "FSC-certified"}


def rule_text(rule: ConfigRule) -> tuple[str, str]:
    """The Summary and body of a configuration rule's article."""
    if rule.kind == "range":
        summary = f"{rule.product}: quantity {rule.low} to {rule.high} per quote line."
        body = (
            f"{rule.product} must be quoted in a quantity of at least {rule.low} and at most "
            f"{rule.high} units per quote line. Quotes outside this range are an invalid configuration."
        )
    elif rule.kind == "multiple":
        summary = f"{rule.product}: quantity must be a multiple of {rule.low}."
        body = (
            f"{rule.product} is sold in packs of {rule.low}: the quoted quantity must be a multiple "
            f"of {rule.low}. Any other quantity is an invalid configuration."
        )
    else:
        summary = f"{rule.product} requires {rule.other} on the same quote."
        body = (
            f"{rule.product} can only be quoted together with {rule.other} on the same quote. "
            f"A quote with {rule.product} but without {rule.other} is an invalid configuration."
        )
    return summary, body


def build_catalog(ctx: BuildContext) -> None:
    theme = ctx.theme
    rng = ctx.rng("catalog")
    category_ids = {}
    for cat in theme.categories:
        category_ids[cat.name] = ctx.add(
            "ProductCategory", Name=cat.name, CatalogId=f"{theme.company} Catalog"
        )
    std = ctx.add(
        "Pricebook2",
        Name="Standard Price Book",
        Description="List prices of all products",
        IsActive=1,
        ValidFrom="2020-01-01T00:00:00.000+0000",
        ValidTo=None,
    )
    partner = ctx.add(
        "Pricebook2",
        Name="Partner Price Book",
        Description="Prices for resellers (10% below list)",
        IsActive=1,
        ValidFrom="2022-01-01T00:00:00.000+0000",
        ValidTo="2026-12-31T23:59:59.000+0000",
    )
    products: dict[str, dict] = {}
    for n, spec in enumerate(theme.products):
        sku = f"{theme.pod.upper()}-{slug(spec.category)[:4].upper()}-{1000 + 17 * n}"
        pid = ctx.add(
            "Product2",
            Name=spec.name,
            Description=f"{spec.name} is {spec.blurb}.",
            IsActive=1,
            External_ID__c=sku,
        )
        ctx.add(
            "ProductCategoryProduct", ProductCategoryId=category_ids[spec.category], ProductId=pid
        )
        pbe = ctx.add("PricebookEntry", Pricebook2Id=std, Product2Id=pid, UnitPrice=spec.price)
        ctx.add(
            "PricebookEntry",
            Pricebook2Id=partner,
            Product2Id=pid,
            UnitPrice=round(spec.price * 0.9, 2),
        )
        products[spec.name] = {
            "id": pid,
            "pbe": pbe,
            "price": spec.price,
            "category": spec.category,
            "name": spec.name,
        }
    ctx.index["products"] = products
    ctx.index["pricebook"] = std
    ctx.index["issues"] = {
        issue.name: ctx.add("Issue__c", Name=issue.name, Description__c=issue.description)
        for issue in theme.issues
    }
    _knowledge(ctx, rng)


POLICY_SCOPE = {
    "discount": "Applies to every quote prepared by the sales team, for all customers and regions.",
    "config": "Applies to every quote line for the product, whatever the price book.",
    "case": "Applies to every service agent handling customer cases, by email, chat or phone.",
    "lead": "Applies to every lead handled by the lead desk and the sales team.",
}
POLICY_WHY = {
    "discount": "Consistent pricing protects margins and treats similar customers alike.",
    "config": "Quotes that cannot be delivered as configured cause delays and rework later.",
    "case": "Consistent handling protects customers and keeps the company's commitments.",
    "lead": "Focusing on qualified leads keeps the pipeline healthy and forecasts honest.",
}


def sections(*parts: tuple[str, str]) -> str:
    """An article body: "## Heading" sections separated by blank lines."""
    return "\n\n".join(f"## {heading}\n{text}" for heading, text in parts if text)


def policy_body(kind: str, rule: str) -> str:
    return sections(("Policy", rule), ("Scope", POLICY_SCOPE[kind]), ("Why", POLICY_WHY[kind]))


def _article(ctx: BuildContext, title: str, summary: str, body: str) -> str:
    return ctx.add(
        "Knowledge__kav",
        Title=title,
        FAQ_Answer__c=body,
        Summary=summary,
        UrlName=slug(title).replace(".", "-"),
    )


def _knowledge(ctx: BuildContext, rng) -> None:
    theme, pol = ctx.theme, ctx.theme.policies
    cur = pol.currency_unit
    by_category: dict[str, list[str]] = {}
    for spec in theme.products:
        by_category.setdefault(spec.category, []).append(spec.name)
    for cat in theme.categories:
        names = ", ".join(by_category[cat.name])
        _article(
            ctx,
            f"Discount Policy: {cat.name}",
            f"Maximum discount of {cat.max_discount}% per quote line for {cat.name} products.",
            policy_body(
                "discount",
                f"Quote lines for {cat.name} products ({names}) may carry a discount of at most "
                f"{cat.max_discount}%. A quote with a larger discount on any of these products "
                "violates this policy and cannot be approved.",
            ),
        )
    for rule in theme.config_rules:
        summary, body = rule_text(rule)
        _article(ctx, f"Configuration Rule: {rule.product}", summary, policy_body("config", body))
    values = {
        "cur": cur,
        "refund": pol.refund_limit,
        "goodwill": pol.goodwill_max,
        "days": pol.replacement_days,
    }
    for _key, title, summary, body in CASE_POLICIES:
        _article(ctx, title, summary.format(**values), policy_body("case", body.format(**values)))
    _article(
        ctx,
        "Lead Qualification Criteria (BANT)",
        f"Qualified leads meet Budget (at least {cur}{pol.bant_budget:,}), Authority, Need and "
        f"Timeline (within {pol.bant_months} months).",
        policy_body(
            "lead",
            f"A lead is qualified only when all four BANT criteria are met. Budget: the lead has a "
            f"confirmed budget of at least {cur}{pol.bant_budget:,}. Authority: the person we speak "
            f"with is the final decision maker for the purchase. Need: the lead has a specific, "
            f"current need that our products address. Timeline: the lead plans to purchase within "
            f"{pol.bant_months} months. Any criterion that is not met disqualifies the lead.",
        ),
    )
    for spec in theme.products:
        kinds = rng.sample(theme.faq_kinds, 3)
        for kind in kinds:
            answer = rng.choice(kind.answers)
            lower = answer if answer.split()[0] in PROPER_STARTS else answer[0].lower() + answer[1:]
            related = [k.title.format(product=spec.name) for k in kinds if k is not kind]
            _article(
                ctx,
                kind.title.format(product=spec.name),
                answer,
                sections(
                    ("Answer", f"{answer}."),
                    ("Details", f"{kind.lead.format(product=spec.name)} {lower}."),
                    ("About the product", f"{spec.name} is {spec.blurb}."),
                    ("Related articles", "\n".join(f"- {t}" for t in related)),
                ),
            )
    for title, summary, body in theme.general_faqs:
        _article(ctx, title, summary, sections(("Answer", f"{summary}."), ("Details", body)))
