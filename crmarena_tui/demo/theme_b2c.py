"""The B2C demo org: Hearthline Goods sells home, audio, fitness and outdoor products to consumers."""

from __future__ import annotations

from crmarena_tui.demo.theme import (
    Category,
    ConfigRule,
    FaqKind,
    IssueSpec,
    Policies,
    ProductSpec,
    Theme,
)

C = Category
CATEGORIES = (
    C("Headphones & Audio", ("audio device", "audio gear", "sound equipment"), 15),
    C("Smart Home", ("smart home device", "smart home gadget", "connected home product"), 12),
    C("Kitchen Appliances", ("kitchen appliance", "kitchen gadget", "countertop appliance"), 20),
    C("Fitness Wearables", ("fitness wearable", "wearable fitness device", "workout wearable"), 10),
    C("Skincare", ("skincare product", "skin care item", "beauty product"), 25),
    C("Outdoor Gear", ("outdoor gear", "camping gear", "outdoor equipment"), 18),
    C("Coffee & Tea", ("coffee gear", "coffee and tea appliance", "brewing equipment"), 15),
    C("Gaming Accessories", ("gaming accessory", "gaming gear", "gaming peripheral"), 20),
    C("Baby & Kids", ("baby product", "children's product", "nursery item"), 10),
    C("Home Office", ("home office product", "work-from-home gear", "home office accessory"), 12),
)

P = ProductSpec
PRODUCTS = (
    P(
        "AuraBuds Pro",
        "Headphones & Audio",
        179.0,
        "true wireless earbuds with active noise cancelling",
    ),
    P("HushWave Over-Ear", "Headphones & Audio", 249.0, "over-ear headphones with 40-hour battery"),
    P("PocketBoom Speaker", "Headphones & Audio", 89.0, "a waterproof pocket speaker"),
    P("StudioLine Monitors", "Headphones & Audio", 329.0, "a pair of bookshelf studio speakers"),
    P("SleepTone Buds", "Headphones & Audio", 129.0, "soft earbuds designed for sleeping"),
    P("ThermaSense Thermostat", "Smart Home", 199.0, "a learning thermostat with room sensors"),
    P("DoorView Doorbell", "Smart Home", 149.0, "a 2K video doorbell with night vision"),
    P("GlowMesh Bulb Pack", "Smart Home", 59.0, "a four-pack of colour smart bulbs"),
    P("SafeLatch Smart Lock", "Smart Home", 229.0, "a keyless smart lock with fingerprint reader"),
    P("AirNest Purifier", "Smart Home", 279.0, "an app-controlled HEPA air purifier"),
    P("VortexBlend 900", "Kitchen Appliances", 139.0, "a high-speed countertop blender"),
    P("CrispAir Fryer XL", "Kitchen Appliances", 119.0, "a 6-litre air fryer"),
    P("SlowSimmer Cooker", "Kitchen Appliances", 79.0, "a programmable slow cooker"),
    P("KneadMaster Mixer", "Kitchen Appliances", 349.0, "a stand mixer with three attachments"),
    P("PureSip Water Filter", "Kitchen Appliances", 45.0, "a countertop water filter pitcher"),
    P("StrideBand 3", "Fitness Wearables", 99.0, "a slim fitness tracker with sleep scoring"),
    P("PulseWatch Active", "Fitness Wearables", 279.0, "a GPS smartwatch for runners"),
    P("CoreRing Tracker", "Fitness Wearables", 299.0, "a smart ring that tracks recovery"),
    P("HeartLine Chest Strap", "Fitness Wearables", 69.0, "a heart-rate chest strap"),
    P("SwimTrack Band", "Fitness Wearables", 129.0, "a waterproof swim tracker"),
    P("DewDrop Hydrating Serum", "Skincare", 38.0, "a hyaluronic acid face serum"),
    P("SunVeil SPF 50", "Skincare", 24.0, "a lightweight daily sunscreen"),
    P("NightRenew Cream", "Skincare", 52.0, "a retinol night moisturiser"),
    P("ClearPath Cleanser", "Skincare", 19.0, "a gentle foaming cleanser"),
    P("GlowTone Vitamin C", "Skincare", 44.0, "a brightening vitamin C serum"),
    P("TrailPeak 2P Tent", "Outdoor Gear", 289.0, "a two-person backpacking tent"),
    P("SummitPack 45L", "Outdoor Gear", 189.0, "a 45-litre hiking backpack"),
    P("EmberGlow Camp Stove", "Outdoor Gear", 79.0, "a compact camping stove"),
    P("RiverRun Kayak Paddle", "Outdoor Gear", 119.0, "a carbon kayak paddle"),
    P("NightSky Sleeping Bag", "Outdoor Gear", 159.0, "a three-season sleeping bag"),
    P("BaristaOne Espresso", "Coffee & Tea", 449.0, "a semi-automatic espresso machine"),
    P("GrindWell Burr Grinder", "Coffee & Tea", 129.0, "a conical burr coffee grinder"),
    P("BrewClock Drip Maker", "Coffee & Tea", 89.0, "a programmable drip coffee maker"),
    P("LeafLuxe Tea Kettle", "Coffee & Tea", 69.0, "a temperature-control tea kettle"),
    P("FrothCloud Milk Frother", "Coffee & Tea", 49.0, "an induction milk frother"),
    P("ArcadeGrip Controller", "Gaming Accessories", 69.0, "a wireless game controller"),
    P("EchoStrike Headset", "Gaming Accessories", 119.0, "a surround-sound gaming headset"),
    P("SwiftKeys Keyboard", "Gaming Accessories", 139.0, "a mechanical gaming keyboard"),
    P("GlidePro Mouse", "Gaming Accessories", 59.0, "a lightweight gaming mouse"),
    P("ChargeDock Station", "Gaming Accessories", 39.0, "a charging dock for two controllers"),
    P("LullaCam Baby Monitor", "Baby & Kids", 169.0, "a video baby monitor with breathing alerts"),
    P("CloudStep Stroller", "Baby & Kids", 399.0, "a foldable city stroller"),
    P("SnugNest Bassinet", "Baby & Kids", 219.0, "a bedside bassinet"),
    P("TinyChef Play Kitchen", "Baby & Kids", 129.0, "a wooden play kitchen"),
    P("BrightStart Night Light", "Baby & Kids", 29.0, "a soothing night light with sounds"),
    P("ErgoFlex Chair", "Home Office", 429.0, "an ergonomic mesh office chair"),
    P("LiftDesk Standing Desk", "Home Office", 549.0, "an electric standing desk"),
    P("FocusLamp LED", "Home Office", 59.0, "a dimmable desk lamp"),
    P("CableCalm Organizer", "Home Office", 19.0, "an under-desk cable tray"),
    P("ViewRise Monitor Arm", "Home Office", 99.0, "a gas-spring monitor arm"),
    P("FootRest Pro", "Home Office", 39.0, "an adjustable foot rest"),
)

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

FAQ_KINDS = (
    FaqKind(
        "warranty",
        "What warranty comes with {product}?",
        "{product} comes with",
        (
            "What warranty does the {product} have?",
            "How long is the {product} covered by warranty?",
            "If my {product} breaks, what warranty applies?",
        ),
        (
            "A two-year manufacturer warranty",
            "A one-year warranty covering defects",
            "A three-year warranty with free shipping on repairs",
            "A lifetime warranty on the frame",
            "A 90-day warranty on accessories and one year on the device",
        ),
    ),
    FaqKind(
        "returns",
        "Can I return {product}?",
        "You can return {product} within",
        (
            "How long do I have to return the {product}?",
            "What is the return window for {product}?",
            "Can I still send back the {product}, and until when?",
        ),
        (
            "30 days in its original packaging",
            "60 days with the receipt",
            "14 days if unopened",
            "45 days for a full refund",
            "30 days, return shipping included",
        ),
    ),
    FaqKind(
        "materials",
        "What is {product} made of?",
        "{product} is made of",
        (
            "What materials are used in the {product}?",
            "What is the {product} made from?",
            "Which materials does the {product} contain?",
        ),
        (
            "Recycled aluminium and BPA-free plastic",
            "Stainless steel and tempered glass",
            "Plant-based ingredients without parabens",
            "Ripstop nylon and recycled polyester",
            "FSC-certified wood and water-based paint",
        ),
    ),
    FaqKind(
        "care",
        "How do I clean and care for {product}?",
        "To keep {product} in good shape, use",
        (
            "How should I clean my {product}?",
            "What is the right way to care for the {product}?",
            "How do I keep my {product} clean?",
        ),
        (
            "A damp cloth and mild soap only",
            "The dishwasher's top rack for removable parts",
            "A dry microfibre cloth, never water",
            "Cool water and air drying away from sunlight",
            "The cleaning cycle in the companion app once a month",
        ),
    ),
    FaqKind(
        "box",
        "What is in the box with {product}?",
        "The {product} box contains",
        (
            "What comes in the box with the {product}?",
            "Which accessories are included with the {product}?",
            "What do I get in the {product} package?",
        ),
        (
            "The device, a USB-C cable and a quick-start guide",
            "Two sizes of tips and a charging case",
            "A wall mount, screws and a power adapter",
            "A travel pouch and a spare strap",
            "The main unit and a 12-month filter supply",
        ),
    ),
)

RULES = (
    ConfigRule("range", "BaristaOne Espresso", 1, 2),
    ConfigRule("range", "CloudStep Stroller", 1, 2),
    ConfigRule("range", "LiftDesk Standing Desk", 1, 3),
    ConfigRule("range", "KneadMaster Mixer", 1, 2),
    ConfigRule("range", "CoreRing Tracker", 1, 3),
    ConfigRule("multiple", "GlowMesh Bulb Pack", 2),
    ConfigRule("multiple", "SunVeil SPF 50", 3),
    ConfigRule("multiple", "ClearPath Cleanser", 2),
    ConfigRule("multiple", "BrightStart Night Light", 2),
    ConfigRule("multiple", "CableCalm Organizer", 2),
    ConfigRule("requires", "FrothCloud Milk Frother", other="BaristaOne Espresso"),
    ConfigRule("requires", "ChargeDock Station", other="ArcadeGrip Controller"),
    ConfigRule("requires", "ViewRise Monitor Arm", other="LiftDesk Standing Desk"),
    ConfigRule("requires", "HeartLine Chest Strap", other="PulseWatch Active"),
    ConfigRule("requires", "FootRest Pro", other="ErgoFlex Chair"),
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

THEME = Theme(
    org_type="b2c",
    company="Hearthline Goods",
    email_domain="hearthline.example",
    pod="Dc",
    categories=CATEGORIES,
    products=PRODUCTS,
    issues=ISSUES,
    competitors=(
        "HomeNest",
        "PureLeaf Living",
        "Brightway Electronics",
        "Summit Outdoor Co",
        "KettleCraft",
        "PlayForge",
        "Lullaby Labs",
        "DeskWorks",
    ),
    subtopics=(
        "price",
        "shipping costs",
        "delivery time",
        "return policy",
        "product durability",
        "warranty coverage",
        "battery life",
        "ease of setup",
        "subscription fees",
        "design",
    ),
    faq_kinds=FAQ_KINDS,
    config_rules=RULES,
    policies=Policies(
        refund_limit=200, goodwill_max=15, replacement_days=30, bant_budget=1500, bant_months=3
    ),
    issue_scope=ISSUE_SCOPE,
    quantity_range=(1, 6),
    lines_per_order=(1, 4),
    buyer_needs=(
        "furnish a new home office",
        "replace our old kitchen appliances",
        "equip the whole family for a camping trip",
        "make our home smarter and safer",
        "set up a nursery before the baby arrives",
        "upgrade our gaming setup",
        "find gifts for a team of twenty",
        "start a fitness routine with friends",
    ),
    web_orders=420,
)
