"""Sentence templates for the org's free text, with the exact phrases that carry planted facts.

Planted phrases (tasks and solvers rely on these wordings):
- Lead calls (BANT): budget "a budget of $N"; timeline "purchase within N month(s)"; authority met
  "I make the final decision", unmet "the final decision rests with our <role>"; need met
  "we need to <need>", unmet "we have no specific need".
- Opportunity calls: negative subtopic "unhappy with the <s> so far" / "The <s> is a real concern
  for us" / "frustrated with the <s> you proposed"; positive "We really like the <s>" / "The <s>
  looks great to us"; competitor with an edge "<C> has the edge over you" / "Frankly, <C> made us a
  stronger offer"; neutral competitor "We also spoke to <C>, but they were not a good fit".
- Case emails and chats: "issued a refund of $N" (with "My manager approved this refund" when
  approved); "please confirm the email address on your account and your order number" before
  "Your order <Id> ..."; "offer you a N% discount on your next order"; "arranged a free
  replacement" / "arranged a repair"; customer "That solved it" then agent "I am closing this case
  now".
"""

from __future__ import annotations

import random
from datetime import date

from crmarena_tui.demo.orggen import talk

ROLES = ("CFO", "CEO", "VP of Operations", "procurement committee", "board")
B2C_ROLES = ("spouse", "partner", "parents", "family")

BUDGET = (
    "Finance has approved a budget of {amount} for this.",
    "We have a budget of {amount} set aside for this purchase.",
    "To be transparent, we are working with a budget of {amount}.",
)
TIMELINE = (
    "We plan to purchase within {months}.",
    "Realistically we would purchase within {months}.",
    "Our target is to purchase within {months}.",
)
AUTHORITY_MET = (
    "I make the final decision on purchases like this one.",
    "For this project I make the final decision, so you are talking to the right person.",
)
AUTHORITY_UNMET = (
    "I am gathering information, but the final decision rests with our {role}.",
    "I like what I hear; still, the final decision rests with our {role}.",
)
NEED_MET = (
    "Right now we need to {need}, and it is a priority for us.",
    "The reason I reached out is that we need to {need} this year.",
)
NEED_UNMET = (
    "Honestly, we have no specific need at the moment; we are just looking around.",
    "We have no specific need right now, it is more general curiosity.",
)
NEGATIVE = (
    "Honestly, we are unhappy with the {s} so far.",
    "The {s} is a real concern for us.",
    "We are frustrated with the {s} you proposed.",
    "To be blunt, we are not convinced by the {s} at all.",
)
POSITIVE = (
    "We really like the {s} you offered.",
    "The {s} looks great to us.",
    "We are pleased with the {s} so far.",
)
EDGE = ("{c} has the edge over you right now.", "Frankly, {c} made us a stronger offer.")
BEHIND = ("{c} could not match your offer here.", "Honestly, you are well ahead of {c} on this.")
NEUTRAL = ("We also spoke to {c}, but they were not a good fit.",)


def months(n: int) -> str:
    return "1 month" if n == 1 else f"{n} months"


def money(cur: str, amount: float) -> str:
    return f"{cur}{amount:,.0f}"


# ----------------------------------------------------------------- case conversations

AGENT_ACK = (
    "Thank you for reaching out about this. I am looking into it now.",
    "Thanks for the details. I have started investigating and will keep you posted.",
    "I am sorry about the trouble. Let me check what is going on.",
)
AGENT_STEP = (
    "Could you try restarting it and tell me whether the problem persists?",
    "Could you send a screenshot or a photo of what you are seeing?",
    "Please check that you are on the latest version and let me know.",
)
CUSTOMER_REPLY = (
    "I tried that and the problem is still there.",
    "Attached is what I see. It happens every time.",
    "I checked, and it did not change anything.",
)
AGENT_FIX = (
    "I have applied a fix on our side. Please check again.",
    "Our team has corrected the configuration. It should work now.",
    "I have sent instructions that resolve this. Please try them.",
)
CUSTOMER_CONFIRM = "That solved it, thanks. Please go ahead and close the case."
AGENT_CLOSE = "Great, I am closing this case now. Have a good day."
AGENT_CLOSE_UNCONFIRMED = "I believe this is fixed, so I am closing this case now."

AGENT_FOLLOW_UP = (
    "Thanks. Roughly when did this start? Was it before or after {day}?",
    "Understood. How many of your users are affected, about {n}?",
    "Could you tell me which version you are on? You will find it on the About screen.",
    "Does it happen all the time or only at certain hours of the day?",
)
CUSTOMER_DETAIL = (
    "It started around {day}, as far as I can tell.",
    "About {n} of us see it, the rest are fine for now.",
    "We are on the latest version, installed on {day}.",
    "Mostly in the mornings, when everyone logs on at once.",
    "Hard to say. My team noticed it first, maybe {n} days ago.",
)
COLLEAGUE_NOTE = (
    "Jumping in here, I work with the same setup. We see this on {n} machines as well.",
    "Adding myself to the thread. It was fine until {day} on our side too.",
    "Hi, colleague here. I can share more logs if that helps.",
)
HANDOVER = "I'm looping in {name} from our second-line team, who knows this area well."
SECOND_LINE = (
    "Hello, I've read through the thread. I'm checking the logs from {day} now.",
    "Hi, second-line support here. I can see what is going on and I'm on it.",
    "Thanks for the details so far. I have reproduced it on our side.",
)
CHAT_HELLO = (
    "Hi, thanks.",
    "Hello! Yes, I'm here.",
    "Hi there.",
    "Thanks for picking this up so quickly.",
)
GREET_STAFF = ("Hi {name},", "Hello {name},", "Dear {name},", "{name},", "Good morning {name},")
GREET_CUSTOMER = ("Hi {name},", "Hello,", "Hi there,", "Dear {name},", "Hello {name},")
SIGN_OFFS = ("Best regards,", "Kind regards,", "Thanks,", "Many thanks,", "Cheers,", "Regards,")
STAFF_OPENERS = (
    "",
    "Thanks for your patience.",
    "Sorry for the slow reply, we had {n} tickets come in on {day}.",
    "Thank you for getting back to me.",
    "I hope your week is going well.",
)
CUSTOMER_OPENERS = (
    "",
    "Thanks for getting back to me.",
    "Quick update from our side.",
    "Sorry, I was out until {day}.",
    "Thanks for looking into this.",
)


def mail(
    rng: random.Random,
    text: str,
    reader: str,
    writer: str,
    staff: bool,
    company: str,
    today: date,
) -> str:
    """An email body around `text` (kept whole): greeting, maybe an opening line, sign-off."""
    greet = rng.choice(GREET_STAFF if staff else GREET_CUSTOMER).format(name=reader)
    opener = talk.fill(rng, rng.choice(STAFF_OPENERS if staff else CUSTOMER_OPENERS), today)
    body = f"{opener} {text}".strip() if rng.random() < 0.5 else f"{opener}\n\n{text}".strip()
    signature = f"{writer}\n{company} Support" if staff else writer
    return f"{greet}\n\n{body}\n\n{rng.choice(SIGN_OFFS)}\n{signature}"


def customer_mail(rng: random.Random, writer: str, description: str, today: date) -> str:
    """The customer's first email: the case description with a greeting and a sign-off."""
    greet = rng.choice(("Hello,", "Hi support team,", "Hi,", "Dear support,", "Good morning,"))
    ask = rng.choice(
        (
            "Thanks in advance.",
            "Looking forward to hearing from you.",
            "Please let me know if you need anything else from me.",
            "I'm around all day on {day} if a call is easier.",
        )
    )
    return f"{greet}\n\n{description}\n\n{talk.fill(rng, ask, today)}\n\n{writer}"


VERIFY_ASK = (
    "Before I can share any order details, please confirm the email address on your account "
    "and your order number."
)
VERIFY_GIVE = "Sure, the email is {email} and the order number is {order}."
ORDER_DETAILS = "Your order {order} was placed on {date} and has been delivered to {state}."
REFUND = "I have issued a refund of {amount} to your original payment method."
REFUND_APPROVED = "My manager approved this refund, so I have issued a refund of {amount} to your original payment method."
GOODWILL = "As an apology, I can offer you a {pct}% discount on your next order."
REPLACE = "I have arranged a free replacement of your {product}; it ships this week."
REPAIR = "Your purchase is outside the replacement window, so I have arranged a repair of your {product}."

SALES_EMAILS = {
    "Qualification": (
        "Introduction from {company}",
        "Hi {contact},\n\nI lead the {company} team for {account}. "
        "I would love to learn about your priorities this year. Do you have 20 minutes next week?\n\n{agent}",
    ),
    "Discovery": (
        "Notes from our discovery call",
        "Hi {contact},\n\nThanks for walking me through your goals. "
        "I have summarised the challenges you described and will map them to our offering.\n\n{agent}",
    ),
    "Quote": (
        "Proposal for {account}",
        "Hi {contact},\n\nAttached is the tailored proposal we discussed, "
        "with the products and quantities from the demo.\n\n{agent}",
    ),
    "Negotiation": (
        "Revised terms for {account}",
        "Hi {contact},\n\nFollowing your feedback, here are the revised "
        "terms. I am happy to walk through them with your team.\n\n{agent}",
    ),
    "Closed": (
        "Welcome aboard, {account}",
        "Hi {contact},\n\nThank you for choosing {company}. Our onboarding "
        "team will reach out to schedule the kick-off.\n\n{agent}",
    ),
}
FOLLOW_UPS = (
    (
        "Following up",
        "Hi {contact},\n\nJust checking in on my last message. Let me know if you have questions.\n\n{agent}",
    ),
    (
        "Quick question",
        "Hi {contact},\n\nWho else on your team should be part of our next conversation?\n\n{agent}",
    ),
    (
        "Resources you asked for",
        "Hi {contact},\n\nHere are the resources I mentioned on our call.\n\n{agent}",
    ),
)
