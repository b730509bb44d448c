"""The B2B demo org's service side: the issues its cases report, which product categories
each issue applies to, and the knowledge base's conceptual FAQ articles."""

from __future__ import annotations

from crmarena_tui.demo.theme import FaqKind, IssueSpec

Iss = IssueSpec
ISSUES = (
    Iss(
        "Login Failure",
        "Users cannot sign in or are locked out of the product.",
        ("Cannot sign in to {product}", "Locked out of {product} after password reset"),
        (
            "Since this morning none of our users can log in to {product}; the sign-in page rejects valid credentials.",
            "After a password reset our admins are locked out of {product} and the login screen keeps looping.",
        ),
    ),
    Iss(
        "Data Sync Delay",
        "Data takes hours to synchronise between the product and other systems.",
        ("{product} data sync is hours behind", "Delayed synchronisation in {product}"),
        (
            "Records updated in our ERP take several hours to show up in {product}, so our teams work with stale data.",
            "The nightly synchronisation of {product} now finishes late in the morning and our reports are out of date.",
        ),
    ),
    Iss(
        "Billing Discrepancy",
        "The invoice does not match the contract or the quote.",
        ("Invoice for {product} does not match our contract", "Overcharged for {product} licences"),
        (
            "Our latest invoice charges more {product} licences than our contract covers; please correct the amount.",
            "We were billed twice for the same {product} renewal and need the duplicate charge reversed.",
        ),
    ),
    Iss(
        "Feature Malfunction",
        "A feature of the product fails or behaves wrongly.",
        ("{product} feature intermittently fails", "AI-assisted feature in {product} not working"),
        (
            "Some of the automated features in {product} intermittently fail to run, which disrupts our daily work.",
            "The smart suggestions feature of {product} stopped producing results after the last release.",
        ),
    ),
    Iss(
        "Performance Degradation",
        "The product has become slow or unresponsive.",
        ("{product} has become very slow", "Slow response times in {product}"),
        (
            "Pages in {product} now take over thirty seconds to load and the whole team is waiting on it.",
            "Since last week {product} responds sluggishly under normal load and jobs time out.",
        ),
    ),
    Iss(
        "Integration Error",
        "The connection between the product and a third-party system fails.",
        ("{product} integration returns errors", "Connector between {product} and our CRM fails"),
        (
            "The connector between {product} and our CRM fails with authentication errors on every run.",
            "API calls from our warehouse system to {product} return server errors since the update.",
        ),
    ),
    Iss(
        "Security Alert",
        "The product raised or missed a security alert.",
        ("Unexpected security alert from {product}", "Suspicious access flagged by {product}"),
        (
            "{product} flagged suspicious access from an unknown location and we need help investigating it.",
            "We received repeated security warnings from {product} that we cannot explain.",
        ),
    ),
    Iss(
        "Installation Failure",
        "The product cannot be installed or set up.",
        ("Installation of {product} fails", "Cannot complete {product} setup"),
        (
            "The installer for {product} stops halfway with an error and rolls back.",
            "Our technicians could not finish setting up {product}; the setup wizard fails at the last step.",
        ),
    ),
    Iss(
        "Missing Notifications",
        "Expected notifications or alerts are not delivered.",
        ("No notifications from {product}", "Missing feature update notifications for {product}"),
        (
            "We are no longer notified about updates and alerts from {product}, so we miss important changes.",
            "Alert emails from {product} stopped arriving for our whole team.",
        ),
    ),
    Iss(
        "License Activation",
        "A licence key cannot be activated or is reported invalid.",
        ("{product} licence key will not activate", "{product} reports our licence as invalid"),
        (
            "The licence keys we received for {product} are rejected as invalid during activation.",
            "{product} suddenly says our licence expired although we renewed it last month.",
        ),
    ),
    Iss(
        "Hardware Defect",
        "The device is physically faulty.",
        ("Defective {product} unit", "{product} hardware stopped working"),
        (
            "One of the {product} units arrived with a faulty power supply and will not switch on.",
            "A {product} unit overheats and shuts down after a few minutes of use.",
        ),
    ),
    Iss(
        "Report Export Error",
        "Reports or data cannot be exported.",
        ("Cannot export reports from {product}", "{product} export produces corrupt files"),
        (
            "Exporting reports from {product} to spreadsheet format fails with a generic error.",
            "Every export from {product} produces a file that our tools cannot open.",
        ),
    ),
    Iss(
        "Connectivity Drop",
        "The device or service loses its network connection.",
        ("{product} keeps dropping its connection", "Intermittent connectivity with {product}"),
        (
            "Our {product} devices lose their network connection several times a day.",
            "{product} disconnects from the network every few hours and needs a manual restart.",
        ),
    ),
    Iss(
        "Update Failure",
        "A software or firmware update fails to apply.",
        ("{product} update fails to install", "Latest update for {product} stuck"),
        (
            "The latest update for {product} fails and leaves the system on the old version.",
            "The update of {product} hangs at ninety percent on every attempt.",
        ),
    ),
    Iss(
        "Documentation Gap",
        "The documentation is missing or wrong for a task.",
        ("Missing documentation for {product}", "{product} guide does not match the product"),
        (
            "We cannot find any documentation on configuring single sign-on in {product}.",
            "The setup guide for {product} describes screens that no longer exist.",
        ),
    ),
)

SOFTWARE = (
    "Analytics Software",
    "Cybersecurity",
    "Cloud Infrastructure",
    "Design Software",
    "Collaboration Tools",
    "Simulation Software",
)
HARDWARE = ("IoT Devices", "AI Hardware", "Education Kits", "Networking Equipment")
ISSUE_SCOPE = {
    "Login Failure": SOFTWARE,
    "Data Sync Delay": (*SOFTWARE, "IoT Devices"),
    "Performance Degradation": (*SOFTWARE, "IoT Devices", "AI Hardware", "Networking Equipment"),
    "Integration Error": (*SOFTWARE, "IoT Devices"),
    "Security Alert": (
        "Cybersecurity",
        "Cloud Infrastructure",
        "Networking Equipment",
        "Collaboration Tools",
    ),
    "Missing Notifications": (*SOFTWARE, "IoT Devices"),
    "License Activation": SOFTWARE,
    "Hardware Defect": HARDWARE,
    "Report Export Error": (
        "Analytics Software",
        "Simulation Software",
        "Design Software",
        "Cybersecurity",
    ),
    "Connectivity Drop": (
        "IoT Devices",
        "Networking Equipment",
        "AI Hardware",
        "Cloud Infrastructure",
    ),
    "Update Failure": (*SOFTWARE, "IoT Devices", "AI Hardware", "Networking Equipment"),
}

FAQ_KINDS = (
    FaqKind(
        "importance",
        "Why is strong security essential for {product}?",
        "Strong security is essential for {product}:",
        (
            "Why is strong security essential for {product}?",
            "Why does security matter so much for {product}?",
            "What makes security critical for {product} users?",
        ),
        (
            "To protect data integrity and the privacy of every customer",
            "Because a single breach could expose every connected system",
            "It keeps sensitive business data away from unauthorised users",
            "To meet compliance duties and keep the trust of our customers",
            "Because it handles financial and personal records every day",
        ),
    ),
    FaqKind(
        "measures",
        "Which security measures protect {product} against cyber threats?",
        "{product} is protected by",
        (
            "Which security measures are implemented in {product} to protect against cyber threats?",
            "How does {product} guard against cyber threats?",
            "What safeguards does {product} rely on against attacks?",
        ),
        (
            "Advanced encryption and multi-factor authentication",
            "End-to-end TLS encryption with role-based access control",
            "Hardware-backed key storage and tamper-evident audit logs",
            "Zero-trust network policies and real-time anomaly alerts",
            "Single sign-on with SAML and encrypted nightly backups",
        ),
    ),
    FaqKind(
        "benefit",
        "What is the main benefit of {product} for a growing business?",
        "For a growing business, the main benefit of {product} is this:",
        (
            "What is the main benefit of {product} for a growing business?",
            "How does {product} help a business grow?",
            "In what way does {product} pay off for an expanding team?",
        ),
        (
            "It cuts manual work so teams can focus on higher-value tasks",
            "Faster decisions thanks to real-time visibility of operations",
            "Lower running costs as usage rises, without extra headcount",
            "One shared source of truth that every department can trust",
            "Shorter project cycles and fewer handovers between teams",
        ),
    ),
    FaqKind(
        "integration",
        "Why is integration with existing systems important for {product}?",
        "Integration matters for {product}:",
        (
            "Why is integration with existing systems important for {product}?",
            "How does {product} fit in with the tools a company already uses?",
            "What role does integration play in {product}?",
        ),
        (
            "So data moves between existing systems without manual re-entry",
            "It connects to current CRM and ERP tools through open APIs",
            "It avoids duplicate records and keeps every system in sync",
            "Teams keep their familiar tools while sharing one data set",
            "Because isolated tools create gaps and slow down reporting",
        ),
    ),
    FaqKind(
        "scale",
        "How does {product} scale when usage increases?",
        "When usage increases, {product} keeps up",
        (
            "How does {product} scale when usage increases?",
            "Can {product} keep up as more people start using it, and how?",
            "How does {product} cope with peaks in demand?",
        ),
        (
            "By adding capacity automatically as workloads increase",
            "Through a modular design that adds users without downtime",
            "It spreads the load across nodes and scales out on demand",
            "By pooling resources across sites during busy periods",
            "Capacity grows in small steps, so costs follow real usage",
        ),
    ),
    FaqKind(
        "automation",
        "How does {product} use automation to improve efficiency?",
        "Automation makes {product} efficient:",
        (
            "How does {product} use automation to improve efficiency?",
            "In what way does automation in {product} save time?",
            "What routine work does {product} take off people's hands?",
        ),
        (
            "It runs routine checks automatically and flags anomalies early",
            "Scheduled workflows replace repetitive manual updates",
            "It routes tasks to the right person without manual triage",
            "Rules trigger alerts and fixes before users notice a problem",
            "It fills in reports automatically from live operational data",
        ),
    ),
)
# Company-wide FAQ articles: (question, short answer, explanation).
GENERAL_FAQS = (
    (
        "Why is data security critical for Nexora Systems' cloud customers?",
        "Because their workloads hold regulated and personal data",
        "Cloud customers run regulated workloads on our platforms, so a lapse in security would expose personal and financial data and breach their own compliance duties.",
    ),
    (
        "Why does Nexora Systems offer open APIs on every product?",
        "So customers can connect their own tools without lock-in",
        "Open, documented APIs let customers connect the systems they already run and move data freely, instead of being locked into one vendor's stack.",
    ),
    (
        "How does Nexora Systems support customers during onboarding?",
        "With a named specialist and a structured thirty-day plan",
        "Every new customer gets a named onboarding specialist and a thirty-day plan covering setup, data migration and training for key users.",
    ),
    (
        "What is Nexora Systems' approach to responsible AI?",
        "Human review of automated decisions and clear audit trails",
        "Our AI features keep a person in the loop for consequential decisions and record an audit trail of what the models suggested and why.",
    ),
    (
        "Why does Nexora Systems release updates every quarter?",
        "To ship fixes quickly while keeping changes predictable",
        "A fixed quarterly rhythm lets us deliver improvements and fixes often while giving customers a predictable calendar to plan and test changes.",
    ),
    (
        "How does Nexora Systems protect customer privacy?",
        "By collecting only the data a service needs and never selling it",
        "We collect the minimum data each service needs, keep it encrypted, and never sell or share it with advertisers.",
    ),
    (
        "How does Nexora Systems reduce the environmental impact of its hardware?",
        "Recycled metals, efficient power supplies and a take-back program",
        "Our devices use recycled metals and efficient power supplies, and a take-back program recycles hardware at the end of its life.",
    ),
    (
        "Why does Nexora Systems train customer administrators?",
        "Well-trained admins solve most problems before they escalate",
        "Administrators who know the products well resolve most everyday problems themselves, which shortens outages and reduces support tickets.",
    ),
)
