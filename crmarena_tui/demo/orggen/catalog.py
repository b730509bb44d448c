"""Catalogue: product categories, products, price books, issues and knowledge articles.

Knowledge articles hold the concrete policies the policy tasks check (one article per rule):
- "Discount Policy: <category>": the maximum discount per quote line for the category's products.
- "Configuration Rule: <product>": allowed quantity range, pack multiple, or a required companion.
- Case handling: refund approval limit, identity verification, goodwill discount limit, free
  replacement window, case closure confirmation.
- "Lead Qualification Criteria (BANT)": minimum budget and maximum purchase timeline.
- FAQ articles per product (Title is the question, Summary the short answer) and general FAQs.
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

GENERAL_FAQS = (
    (
        "What payment methods do you accept?",
        "Credit card, bank transfer and purchase order",
        "We accept credit cards, bank transfers and purchase orders for approved accounts.",
    ),
    (
        "How long does shipping take?",
        "Three to five business days within the continental US",
        "Orders ship within one business day and arrive in three to five business days within the continental US.",
    ),
    (
        "What are your customer support hours?",
        "Monday to Friday, 7 am to 7 pm Eastern",
        "Our support team is available Monday to Friday, 7 am to 7 pm Eastern, by phone, email and chat.",
    ),
    (
        "How do I reset my account password?",
        "Use the Forgot password link on the sign-in page",
        "Use the Forgot password link on the sign-in page; a reset link is emailed within five minutes.",
    ),
    (
        "Do you ship internationally?",
        "Yes, to Canada and Mexico only",
        "We currently ship to Canada and Mexico only; duties are paid by the recipient.",
    ),
    (
        "How do I update my billing address?",
        "Under Settings, then Billing, in your account portal",
        "You can update your billing address under Settings, then Billing, in your account portal.",
    ),
    (
        "Can I change an order after placing it?",
        "Yes, within two hours of ordering",
        "Orders can be changed within two hours of being placed by contacting support.",
    ),
    (
        "How is my personal data used?",
        "Only to fulfil orders and provide support",
        "We use personal data only to fulfil orders and provide support, and never sell it.",
    ),
    (
        "Do you offer volume pricing?",
        "Yes, through your account representative",
        "Volume pricing is available through your account representative.",
    ),
    (
        "How do I download my invoices?",
        "From the Invoices tab of the account portal",
        "All invoices can be downloaded as PDF files from the Invoices tab of the account portal.",
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
            f"Quote lines for {cat.name} products ({names}) may carry a discount of at most "
            f"{cat.max_discount}%. A quote with a larger discount on any of these products violates "
            f"this policy and cannot be approved.",
        )
    for rule in theme.config_rules:
        summary, body = rule_text(rule)
        _article(ctx, f"Configuration Rule: {rule.product}", summary, body)
    values = {
        "cur": cur,
        "refund": pol.refund_limit,
        "goodwill": pol.goodwill_max,
        "days": pol.replacement_days,
    }
    for _key, title, summary, body in CASE_POLICIES:
        _article(ctx, title, summary.format(**values), body.format(**values))
    _article(
        ctx,
        "Lead Qualification Criteria (BANT)",
        f"Qualified leads meet Budget (at least {cur}{pol.bant_budget:,}), Authority, Need and "
        f"Timeline (within {pol.bant_months} months).",
        f"A lead is qualified only when all four BANT criteria are met. Budget: the lead has a "
        f"confirmed budget of at least {cur}{pol.bant_budget:,}. Authority: the person we speak with "
        f"is the final decision maker for the purchase. Need: the lead has a specific, current need "
        f"that our products address. Timeline: the lead plans to purchase within "
        f"{pol.bant_months} months. Any criterion that is not met disqualifies the lead.",
    )
    for spec in theme.products:
        for kind in rng.sample(theme.faq_kinds, 3):
            answer = rng.choice(kind.answers)
            lower = answer if answer.split()[0] in PROPER_STARTS else answer[0].lower() + answer[1:]
            _article(
                ctx,
                kind.title.format(product=spec.name),
                answer,
                f"{kind.lead.format(product=spec.name)} {lower}. {spec.name} is {spec.blurb}.",
            )
    for title, summary, body in GENERAL_FAQS:
        _article(ctx, title, summary, body)
