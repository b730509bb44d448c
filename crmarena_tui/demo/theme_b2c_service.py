"""The B2C demo org's service side: the issues its cases report, which product categories
each issue applies to, and the knowledge base's conceptual FAQ articles."""

from __future__ import annotations

from crmarena_tui.demo.theme import FaqKind, IssueSpec

Iss = IssueSpec
ISSUES = (
    Iss(
        "Damaged on Arrival",
        "The product arrived broken or damaged.",
        ("My {product} arrived damaged", "Broken {product} in the box"),
        (
            "The {product} I received was cracked and the box was crushed when it arrived.",
            "My {product} came with a broken part straight out of the package.",
        ),
    ),
    Iss(
        "Late Delivery",
        "The order arrived later than promised or has not arrived.",
        ("Where is my {product}?", "{product} delivery is late"),
        (
            "My {product} was supposed to arrive last week and tracking has not moved since.",
            "The delivery date for my {product} passed days ago and nobody has told me why.",
        ),
    ),
    Iss(
        "Battery Drain",
        "The battery runs down much faster than advertised.",
        ("{product} battery dies quickly", "Poor battery life on {product}"),
        (
            "My {product} battery is empty after a couple of hours even though it should last days.",
            "The battery of my {product} drains overnight even when I am not using it.",
        ),
    ),
    Iss(
        "Wrong Item Shipped",
        "The customer received a different product or variant.",
        ("Received the wrong item instead of {product}", "Wrong colour of {product} delivered"),
        (
            "I ordered the {product} but the box contained a completely different item.",
            "The {product} I received is not the colour and size I ordered.",
        ),
    ),
    Iss(
        "Refund Delay",
        "A promised refund has not reached the customer.",
        ("Still waiting for my {product} refund", "Refund for {product} not received"),
        (
            "I returned the {product} three weeks ago and the refund has still not appeared on my card.",
            "You confirmed my refund for the {product} but no money has arrived.",
        ),
    ),
    Iss(
        "Charging Problem",
        "The product does not charge or charges intermittently.",
        ("{product} will not charge", "Charging issue with {product}"),
        (
            "My {product} does not charge at all with the supplied cable.",
            "The {product} only charges if I hold the cable at a certain angle.",
        ),
    ),
    Iss(
        "App Pairing Failure",
        "The product cannot be paired with the companion app.",
        ("Cannot pair {product} with the app", "{product} not found by the app"),
        (
            "The app never finds my {product} when I try to pair it, even after a reset.",
            "Pairing my {product} with my phone fails at the last step every time.",
        ),
    ),
    Iss(
        "Missing Parts",
        "Parts or accessories are missing from the package.",
        ("Parts missing from my {product}", "{product} arrived incomplete"),
        (
            "The box of my {product} was missing the screws and the instruction sheet.",
            "My {product} came without the accessories listed on the package.",
        ),
    ),
    Iss(
        "Warranty Claim",
        "The customer claims repair or replacement under warranty.",
        ("Warranty claim for {product}", "{product} failed within warranty"),
        (
            "My {product} stopped working after a few months and I would like to use the warranty.",
            "I want to file a warranty claim because my {product} no longer works properly.",
        ),
    ),
    Iss(
        "Skin Reaction",
        "The customer reports irritation after using a product.",
        ("Skin irritation after using {product}", "Reaction to {product}"),
        (
            "After two days of using {product} my skin became red and itchy.",
            "I had a rash after applying {product} and want to know what is in it.",
        ),
    ),
    Iss(
        "Noise or Rattle",
        "The product makes unexpected noises.",
        ("{product} makes a rattling noise", "Strange noise from {product}"),
        (
            "My {product} makes a loud rattling sound whenever it runs.",
            "There is a constant buzzing noise coming from the {product}.",
        ),
    ),
    Iss(
        "Overheating",
        "The product becomes too hot during use.",
        ("{product} gets very hot", "Overheating {product}"),
        (
            "The {product} gets too hot to touch after ten minutes of use.",
            "My {product} overheats and switches itself off.",
        ),
    ),
    Iss(
        "Size or Fit Issue",
        "The product does not fit as described.",
        ("{product} does not fit", "Size problem with {product}"),
        (
            "The {product} is much smaller than the dimensions on the website.",
            "The {product} does not fit the space the product page said it would.",
        ),
    ),
    Iss(
        "Subscription Billing",
        "A subscription or recurring charge is wrong.",
        ("Unexpected subscription charge for {product}", "Billed twice for {product} plan"),
        (
            "I was charged for a {product} subscription I never signed up for.",
            "My card was charged twice this month for the {product} plan.",
        ),
    ),
    Iss(
        "Setup Difficulty",
        "The customer cannot set up or assemble the product.",
        ("Cannot set up my {product}", "Help assembling {product}"),
        (
            "I have followed the instructions but cannot get my {product} set up.",
            "The assembly steps for my {product} do not match the parts in the box.",
        ),
    ),
)

ISSUE_SCOPE = {
    "Battery Drain": (
        "Headphones & Audio",
        "Fitness Wearables",
        "Gaming Accessories",
        "Smart Home",
    ),
    "Charging Problem": ("Headphones & Audio", "Fitness Wearables", "Gaming Accessories"),
    "App Pairing Failure": ("Headphones & Audio", "Smart Home", "Fitness Wearables", "Baby & Kids"),
    "Missing Parts": (
        "Outdoor Gear",
        "Home Office",
        "Kitchen Appliances",
        "Baby & Kids",
        "Smart Home",
    ),
    "Warranty Claim": (
        "Headphones & Audio",
        "Smart Home",
        "Kitchen Appliances",
        "Fitness Wearables",
        "Outdoor Gear",
        "Coffee & Tea",
        "Gaming Accessories",
        "Baby & Kids",
        "Home Office",
    ),
    "Skin Reaction": ("Skincare", "Fitness Wearables"),
    "Noise or Rattle": ("Kitchen Appliances", "Coffee & Tea", "Home Office", "Headphones & Audio"),
    "Overheating": ("Kitchen Appliances", "Coffee & Tea", "Gaming Accessories", "Smart Home"),
    "Size or Fit Issue": ("Outdoor Gear", "Home Office", "Fitness Wearables", "Baby & Kids"),
    "Subscription Billing": ("Smart Home", "Fitness Wearables"),
    "Setup Difficulty": (
        "Smart Home",
        "Home Office",
        "Coffee & Tea",
        "Outdoor Gear",
        "Baby & Kids",
    ),
}

FAQ_KINDS = (
    FaqKind(
        "importance",
        "Why is safety an important feature of {product}?",
        "Safety is important for {product}:",
        (
            "Why is safety an important feature of {product}?",
            "Why does safety matter so much for {product}?",
            "What makes safety essential in {product}?",
        ),
        (
            "To keep children and pets out of harm's way at home",
            "Because it runs unattended for hours in a busy household",
            "It prevents overheating and electrical faults during daily use",
            "So the whole family can use it without special precautions",
            "Because it is used close to the skin every single day",
        ),
    ),
    FaqKind(
        "materials",
        "How do the materials in {product} help the environment?",
        "The materials of {product} were chosen with care:",
        (
            "How do the materials in {product} help the environment?",
            "In what way is {product} made with the environment in mind?",
            "Which sustainable materials go into {product}?",
        ),
        (
            "Recycled plastics and responsibly sourced natural fibres",
            "A recyclable aluminium body and plastic-free packaging",
            "Plant-based ingredients and a refillable glass container",
            "Parts that can be replaced instead of throwing it away",
            "Low-impact materials certified by an independent body",
        ),
    ),
    FaqKind(
        "care",
        "How should {product} be cared for so it lasts longer?",
        "To make {product} last longer:",
        (
            "How should {product} be cared for so it lasts longer?",
            "What is the best way to maintain {product}?",
            "How do I keep {product} in good condition?",
        ),
        (
            "Wipe it with a soft dry cloth and avoid harsh cleaners",
            "Keep it charged between twenty and eighty percent",
            "Rinse it after each use and let it dry in open air",
            "Store it in its case, away from heat and direct sunlight",
            "Descale it once a month and replace the filter regularly",
        ),
    ),
    FaqKind(
        "benefit",
        "What is the main benefit of {product} for everyday life?",
        "In everyday life, the main benefit of {product} is this:",
        (
            "What is the main benefit of {product} for everyday life?",
            "How does {product} make daily routines easier?",
            "In what way does {product} improve life at home?",
        ),
        (
            "It saves time every morning so the day starts calmer",
            "Less clutter, because one device replaces several others",
            "It turns a daily chore into something quick and simple",
            "Better sleep and more energy thanks to a steady routine",
            "More time with family instead of waiting on appliances",
        ),
    ),
    FaqKind(
        "smart",
        "How do the smart features of {product} save time?",
        "The smart features of {product} help",
        (
            "How do the smart features of {product} save time?",
            "What can the app do for {product} owners?",
            "In what way does {product} adapt to my habits?",
        ),
        (
            "It learns your routine and adjusts settings on its own",
            "Remote control from the app, so nothing waits for you",
            "Reminders and schedules that run without any setup",
            "It pauses and resumes automatically when you step away",
            "Voice commands handle the routine steps hands-free",
        ),
    ),
    FaqKind(
        "design",
        "What makes the design of {product} comfortable to use?",
        "{product} was designed for comfort:",
        (
            "What makes the design of {product} comfortable to use?",
            "How was {product} designed for comfort?",
            "What about the shape of {product} makes it feel comfortable?",
        ),
        (
            "A lightweight build with rounded, soft-touch edges",
            "Controls placed where your hand naturally rests",
            "An adjustable fit that suits both small and large hands",
            "Quiet operation and a grip that does not slip when wet",
            "Breathable materials that stay cool during long use",
        ),
    ),
)
# Company-wide FAQ articles: (question, short answer, explanation).
GENERAL_FAQS = (
    (
        "Why does Hearthline Goods test every product at home before selling it?",
        "To make sure it works in real homes, not only in a lab",
        "Every product spends weeks in volunteer households, so we see how it copes with real kitchens, children, pets and daily routines.",
    ),
    (
        "How does Hearthline Goods reduce packaging waste?",
        "Plastic-free, recyclable boxes sized to each product",
        "We ship in plastic-free boxes cut to the size of each product, which uses less material and fills delivery vans more efficiently.",
    ),
    (
        "Why does Hearthline Goods offer spare parts for its products?",
        "So products can be repaired instead of thrown away",
        "Spare parts keep products working for years: a worn part can be replaced at home rather than replacing the whole product.",
    ),
    (
        "How does Hearthline Goods protect customer privacy in its apps?",
        "Data stays on your device unless you choose to share it",
        "Our apps keep usage data on your own device by default; anything shared with us is optional, encrypted and never sold.",
    ),
    (
        "What is Hearthline Goods' approach to product safety?",
        "Independent certification and recalls handled within days",
        "Every product is certified by an independent lab, and in the rare case of a safety problem we contact owners within days.",
    ),
    (
        "Why does Hearthline Goods design products for the whole family?",
        "Because most homes share devices between several people",
        "Most of our products are shared by several people at home, so we design controls and settings that suit adults and children alike.",
    ),
    (
        "How does Hearthline Goods choose its materials?",
        "Durable, low-impact materials certified by independent bodies",
        "We choose materials that last, can be recycled and are certified by independent bodies for their environmental impact.",
    ),
    (
        "Why does Hearthline Goods publish care guides for every product?",
        "Good care keeps products working well for many years",
        "Simple care, like cleaning and correct storage, prevents most faults, so every product comes with a short care guide.",
    ),
)
