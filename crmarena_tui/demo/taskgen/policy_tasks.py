"""Policy tasks: policy_violation_identification, quote_approval, invalid_config, lead_qualification.

Facts planted by the generator: knowledge articles state each rule with its number
(`orggen/catalog.py`); case conversations (`orggen/conversations.py`) contain at most one policy
scenario; quotes (`orggen/sales.py`) break at most one discount or configuration rule; lead calls
(`orggen/leads.py`) state each BANT fact once.

Rules fixing the answer (articles are found by Title):
- policy_violation_identification: read the case's EmailMessages (ParentId = case, by MessageDate;
  a message is the agent's when FromAddress is a User's Email) and its LiveChatTranscript lines
  ("Agent ...:" / "Customer ...:"). Violations: "issued a refund of $N" with N above the limit in
  'Refund Approval Policy' and no "My manager approved this refund" -> that article; "Your order ...
  was placed" before the agent asked to "confirm the email address on your account and your order
  number" and the customer answered -> 'Customer Identity Verification'; "offer you a N% discount
  on your next order" with N above 'Goodwill Discount Limits' -> that article; "arranged a free
  replacement" when the case opened more days after the order's EffectiveDate than 'Free
  Replacement Window' allows -> that article; "closing this case" before the customer said "That
  solved it" -> 'Case Closure Confirmation'. No violation -> [None].
- quote_approval: a QuoteLineItem whose Discount exceeds the maximum of 'Discount Policy:
  <category of its product>' violates that article; configuration rules as below also count. One
  violated article -> its Id, none -> [None].
- invalid_config: 'Configuration Rule: <product>' articles: quantity outside "at least A and at
  most B", quantity not "a multiple of K", or the product without the product it "can only be
  quoted together with". The quote's single violated configuration article; [None] for a quote
  that breaks no rule at all.
- lead_qualification: from the 'Lead Qualification Criteria (BANT)' article (minimum budget,
  maximum months) and the lead's calls: Budget unmet when "a budget of $N" is below the minimum;
  Timeline unmet when "purchase within N month(s)" exceeds the maximum; Authority unmet on "the
  final decision rests with"; Need unmet on "no specific need". The unmet factors in B, A, N, T
  order as ONE string ("Authority, Need"), or [None].
"""

from __future__ import annotations

import random
import re

from crmarena_tui.demo.dates import day_of
from crmarena_tui.demo.taskgen import wording
from crmarena_tui.demo.taskgen.common import Ambiguous, Draft, OrgReader, collect

MONEY = r"\$([\d,]+)"


def _number(pattern: str, text: str) -> int:
    m = re.search(pattern, text)
    if not m:
        raise Ambiguous(f"no number for {pattern!r}")
    return int(m.group(1).replace(",", ""))


# ----------------------------------------------------------------- case conversations


def _messages(org: OrgReader, case_id: str) -> list[tuple[str, str]]:
    staff = {r[0] for r in org.rows("SELECT Email FROM User")}
    out = [
        ("agent" if r["FromAddress"] in staff else "customer", r["TextBody"] or "")
        for r in org.rows(
            "SELECT FromAddress, TextBody FROM EmailMessage WHERE ParentId = ? ORDER BY MessageDate, Id",
            case_id,
        )
    ]
    for chat in org.rows(
        "SELECT Body FROM LiveChatTranscript WHERE CaseId = ? ORDER BY EndTime, Id", case_id
    ):
        for line in (chat["Body"] or "").splitlines():
            who, _, text = line.partition(":")
            out.append(("agent" if who.startswith("Agent") else "customer", text.strip()))
    return out


def answer_policy_violation_identification(org: OrgReader, *, case: str) -> list:
    def article(title: str):
        a = org.article_titled(title)
        if a is None:
            raise Ambiguous(f"no article {title!r}")
        return a

    messages = _messages(org, case)
    violated: set[str] = set()
    asked = answered = False
    for n, (who, text) in enumerate(messages):
        if who == "customer":
            answered = answered or asked
            continue
        if "confirm the email address on your account and your order number" in text:
            asked = True
        if re.search(r"Your order \S+ was placed", text) and not (asked and answered):
            violated.add(article("Customer Identity Verification")["Id"])
        if m := re.search(r"issued a refund of " + MONEY, text):
            limit_article = article("Refund Approval Policy")
            limit = _number(r"above " + MONEY, limit_article["FAQ_Answer__c"])
            if (
                int(m.group(1).replace(",", "")) > limit
                and "My manager approved this refund" not in text
            ):
                violated.add(limit_article["Id"])
        if m := re.search(r"offer you a (\d+)% discount on your next order", text):
            goodwill = article("Goodwill Discount Limits")
            if int(m.group(1)) > _number(r"at most (\d+)%", goodwill["FAQ_Answer__c"]):
                violated.add(goodwill["Id"])
        if "arranged a free replacement" in text:
            window = article("Free Replacement Window")
            days = _number(r"within (\d+) days", window["FAQ_Answer__c"])
            row = org.rows(
                'SELECT c.CreatedDate, o.EffectiveDate FROM "Case" c JOIN OrderItem i ON i.Id = c.OrderItemId__c '
                'JOIN "Order" o ON o.Id = i.OrderId WHERE c.Id = ?',
                case,
            )[0]
            if (day_of(row["CreatedDate"]) - day_of(row["EffectiveDate"])).days > days:
                violated.add(window["Id"])
        if "closing this case" in text and not any(
            w == "customer" and "That solved it" in t for w, t in messages[:n]
        ):
            violated.add(article("Case Closure Confirmation")["Id"])
    if len(violated) > 1:
        raise Ambiguous("several violations")
    return sorted(violated) or [None]


VIOLATION_QUERIES = (
    "Did the agent handling this case go against any policy? If so, which knowledge article did they violate? Return only the Id of the knowledge article or None if no violation is found.",
    "Did the agent break any company policy while handling this case, and if so, which knowledge article? Return only the Id of the knowledge article or None if no violation is found.",
    "Was the handling of this case compliant? If not, which knowledge article did the agent violate? Return only the Id of the knowledge article or None if no violation is found.",
    "Looking at how this case was handled, was a company policy broken, and under which knowledge article? Return only the Id of the knowledge article or None if no violation is found.",
)


def make_policy_violation_identification(org: OrgReader, rng: random.Random, n: int) -> list[Draft]:
    cases = [r[0] for r in org.rows('SELECT Id FROM "Case" ORDER BY Id')]

    def one(rng: random.Random, none: bool) -> Draft:
        case = rng.choice(cases)
        return Draft(
            "policy_violation_identification",
            rng.choice(VIOLATION_QUERIES),
            answer_policy_violation_identification(org, case=case),
            wording.POLICY_VIOLATION.format(case=case),
            {"case": case},
        )

    return collect(rng, one, n, none_share=0.77, distinct=lambda d: d.params["case"])


# ----------------------------------------------------------------- quotes


def quote_violations(org: OrgReader, quote: str) -> list[tuple[str, str]]:
    """(kind, article Id) for every rule the quote breaks; kind is 'discount' or 'config'."""
    key = ("quote_violations", quote)
    if key not in org.memo:
        org.memo[key] = _quote_violations(org, quote)
    return org.memo[key]


def _quote_violations(org: OrgReader, quote: str) -> list[tuple[str, str]]:
    lines = org.rows(
        "SELECT Product2Id, Quantity, Discount FROM QuoteLineItem WHERE QuoteId = ?", quote
    )
    names = {org.products[r["Product2Id"]]: r for r in lines}
    out: list[tuple[str, str]] = []
    for a in org.articles:
        title, body = a["Title"], a["FAQ_Answer__c"] or ""
        if title.startswith("Discount Policy: "):
            category = title.removeprefix("Discount Policy: ")
            top = _number(r"at most (\d+)%", body)
            if any(
                org.category_of_product.get(r["Product2Id"]) == category
                and (r["Discount"] or 0) > top
                for r in lines
            ):
                out.append(("discount", a["Id"]))
        elif title.startswith("Configuration Rule: "):
            product = title.removeprefix("Configuration Rule: ")
            line = names.get(product)
            if line is None:
                continue
            qty = line["Quantity"]
            if m := re.search(r"at least (\d+) and at most (\d+)", body):
                bad = not int(m.group(1)) <= qty <= int(m.group(2))
            elif m := re.search(r"multiple of (\d+)", body):
                bad = qty % int(m.group(1)) != 0
            elif m := re.search(r"together with (.+?) on the same quote", body):
                bad = m.group(1) not in names
            else:
                raise Ambiguous(f"unreadable rule in {title!r}")
            if bad:
                out.append(("config", a["Id"]))
    return out


def answer_quote_approval(org: OrgReader, *, quote: str) -> list:
    violations = quote_violations(org, quote)
    if len(violations) > 1:
        raise Ambiguous("several violations")
    return [violations[0][1]] if violations else [None]


def answer_invalid_config(org: OrgReader, *, quote: str) -> list:
    violations = quote_violations(org, quote)
    if len(violations) > 1:
        raise Ambiguous("several violations")
    config = [v for v in violations if v[0] == "config"]
    return [config[0][1]] if config else [None]


APPROVAL_QUERIES = (
    "Can this quote be approved under our pricing and configuration policies? If not, which knowledge article stands in the way? Return only the Id of the knowledge article that the quote violates. If no violation is found, return None.",
    "Are this quote's price and configuration within policy? If they are not, which knowledge article do they go against? Return only the Id of the knowledge article that the quote violates. If no violation is found, return None.",
    "Can this quote be approved as it stands, its price and setup included? If a policy blocks it, which knowledge article? Return only the Id of the knowledge article that the quote violates. If no violation is found, return None.",
)
CONFIG_QUERIES = (
    "Does the way products are configured in this quote, quantities included, go against company policy? Return only the Id of the knowledge article that the invalid config violates. ",
    "Is anything in this quote's product setup, such as quantities or add-ons, against our configuration rules? Return only the Id of the knowledge article that the invalid config violates. ",
    "Which configuration rule does this quote's product setup break? Return only the Id of the knowledge article that the invalid config violates. ",
)


def _quotes(org: OrgReader) -> list[str]:
    return [r[0] for r in org.rows("SELECT Id FROM Quote ORDER BY Id")]


def make_quote_approval(org: OrgReader, rng: random.Random, n: int) -> list[Draft]:
    quotes = _quotes(org)

    def one(rng: random.Random, none: bool) -> Draft | None:
        quote = rng.choice(quotes)
        answer = answer_quote_approval(org, quote=quote)
        if (
            answer != [None]
            and quote_violations(org, quote)[0][0] != "discount"
            and rng.random() < 0.7
        ):
            return None  # mostly discount breaches; configuration breaches are invalid_config's
        return Draft(
            "quote_approval",
            rng.choice(APPROVAL_QUERIES),
            answer,
            wording.QUOTE_APPROVAL.format(quote=quote),
            {"quote": quote},
        )

    return collect(rng, one, n, attempts=3000, distinct=lambda d: d.params["quote"])


def make_invalid_config(org: OrgReader, rng: random.Random, n: int) -> list[Draft]:
    quotes = _quotes(org)

    def one(rng: random.Random, none: bool) -> Draft | None:
        quote = rng.choice(quotes)
        answer = answer_invalid_config(org, quote=quote)
        if answer == [None] and quote_violations(org, quote):
            return None  # a discount breach is not a configuration question's None
        return Draft(
            "invalid_config",
            rng.choice(CONFIG_QUERIES),
            answer,
            wording.INVALID_CONFIG.format(quote=quote),
            {"quote": quote},
        )

    return collect(rng, one, n, attempts=3000, distinct=lambda d: d.params["quote"])


# ----------------------------------------------------------------- lead_qualification


def answer_lead_qualification(org: OrgReader, *, lead: str) -> list:
    bant = org.article_titled("Lead Qualification Criteria (BANT)")
    if bant is None:
        raise Ambiguous("no BANT article")
    min_budget = _number(r"at least " + MONEY, bant["FAQ_Answer__c"])
    max_months = _number(r"within (\d+) months", bant["FAQ_Answer__c"])
    text = "\n".join(
        r[0]
        for r in org.rows(
            "SELECT Body__c FROM VoiceCallTranscript__c WHERE LeadId__c = ? "
            "ORDER BY CreatedDate, Id",
            lead,
        )
    )
    unmet = []
    if _number(r"a budget of " + MONEY, text) < min_budget:
        unmet.append("Budget")
    if "the final decision rests with" in text:
        unmet.append("Authority")
    elif "I make the final decision" not in text:
        raise Ambiguous("authority not stated")
    if "no specific need" in text:
        unmet.append("Need")
    elif "we need to " not in text:
        raise Ambiguous("need not stated")
    if _number(r"purchase within (\d+) months?", text) > max_months:
        unmet.append("Timeline")
    return [", ".join(unmet)] if unmet else [None]


BANT_QUERIES = (
    "Looking at the calls with this lead, does it qualify? If not, which of 'Budget', 'Authority', 'Need' or 'Timeline' are missing? Return only one or several of the four BANT factors that the lead qualification fails to meet (i.e. 'Budget', 'Authority', 'Need', 'Timeline').",
    "Should this lead count as qualified after its recent calls? If not, tell me which of 'Budget', 'Authority', 'Need' and 'Timeline' it does not meet. Return only one or several of the four BANT factors that the lead qualification fails to meet (i.e. 'Budget', 'Authority', 'Need', 'Timeline').",
    "Based on the calls with this lead, does it meet our qualification criteria? If not, which of 'Budget', 'Authority', 'Need' or 'Timeline' fall short? Return only one or several of the four BANT factors that the lead qualification fails to meet (i.e. 'Budget', 'Authority', 'Need', 'Timeline').",
)


def make_lead_qualification(org: OrgReader, rng: random.Random, n: int) -> list[Draft]:
    leads = [
        r[0]
        for r in org.rows(
            "SELECT DISTINCT LeadId__c FROM VoiceCallTranscript__c WHERE LeadId__c IS NOT NULL ORDER BY 1"
        )
    ]

    def one(rng: random.Random, none: bool) -> Draft | None:
        lead = rng.choice(leads)
        answer = answer_lead_qualification(org, lead=lead)
        # about a third of the leads with unmet factors have several; keeping a fifth of those
        # makes about one answered task in ten name several factors (upstream: 8 of 100)
        if answer[0] is not None and ", " in answer[0] and rng.random() > 0.18:
            return None
        return Draft(
            "lead_qualification",
            rng.choice(BANT_QUERIES),
            answer,
            wording.LEAD_QUALIFICATION.format(lead=lead),
            {"lead": lead},
        )

    return collect(rng, one, n, distinct=lambda d: d.params["lead"])
