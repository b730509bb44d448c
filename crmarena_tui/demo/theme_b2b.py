"""The B2B demo org: Nexora Systems sells software, devices and services to companies."""

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
    C(
        "Analytics Software",
        ("analytics software", "business intelligence tool", "data analytics platform"),
        15,
    ),
    C("Cybersecurity", ("security solution", "cybersecurity product", "security tool"), 12),
    C(
        "Cloud Infrastructure",
        ("cloud service", "cloud infrastructure service", "managed cloud service"),
        20,
    ),
    C("Design Software", ("design software", "design tool", "design application"), 18),
    C("IoT Devices", ("IoT device", "connected sensor device", "IoT hardware"), 10),
    C("AI Hardware", ("AI hardware", "machine learning hardware", "AI computing hardware"), 8),
    C(
        "Collaboration Tools",
        ("collaboration tool", "team collaboration product", "teamwork solution"),
        25,
    ),
    C("Education Kits", ("educational lab kit", "classroom kit", "STEM learning kit"), 30),
    C(
        "Simulation Software",
        ("simulation software", "engineering simulator", "simulation platform"),
        15,
    ),
    C("Networking Equipment", ("networking equipment", "network hardware", "networking gear"), 10),
)

P = ProductSpec
PRODUCTS = (
    P(
        "InsightGrid Analytics",
        "Analytics Software",
        1200.0,
        "a self-service dashboard and reporting platform",
    ),
    P(
        "DataLoom Studio",
        "Analytics Software",
        950.0,
        "a visual data preparation and blending workbench",
    ),
    P(
        "MetricForge Pro",
        "Analytics Software",
        1500.0,
        "KPI tracking with automated anomaly detection",
    ),
    P("QueryNest BI", "Analytics Software", 780.0, "an SQL-first business intelligence workspace"),
    P(
        "TrendScope Enterprise",
        "Analytics Software",
        2400.0,
        "forecasting and trend analysis at enterprise scale",
    ),
    P("VaultEdge Firewall", "Cybersecurity", 3200.0, "a next-generation firewall appliance"),
    P("SentinelCore Suite", "Cybersecurity", 1800.0, "an endpoint detection and response suite"),
    P("CipherGuard Endpoint", "Cybersecurity", 220.0, "disk and file encryption for laptops"),
    P("ShieldPath Zero Trust", "Cybersecurity", 640.0, "zero-trust access for remote teams"),
    P("AegisWatch SIEM", "Cybersecurity", 4100.0, "security event monitoring and correlation"),
    P(
        "NimbusHost Compute",
        "Cloud Infrastructure",
        560.0,
        "managed virtual machines billed per node",
    ),
    P(
        "StratoStore Archive",
        "Cloud Infrastructure",
        140.0,
        "low-cost archival object storage per terabyte",
    ),
    P("CloudSpan Kubernetes", "Cloud Infrastructure", 890.0, "a managed Kubernetes control plane"),
    P(
        "SkyVault Backup",
        "Cloud Infrastructure",
        310.0,
        "automated cloud backup with point-in-time restore",
    ),
    P(
        "AltoScale Database",
        "Cloud Infrastructure",
        1350.0,
        "a managed, auto-scaling relational database",
    ),
    P("SketchSphere Cloud", "Design Software", 420.0, "browser-based collaborative design"),
    P("FormaDraft CAD", "Design Software", 1650.0, "parametric 2D and 3D CAD"),
    P(
        "PixelPlane Studio",
        "Design Software",
        380.0,
        "graphic design and layout for marketing teams",
    ),
    P("BlueprintFlow", "Design Software", 720.0, "architectural drafting in the cloud"),
    P("ModelCraft 3D", "Design Software", 990.0, "3D modelling and rendering"),
    P("SenseNode Hub", "IoT Devices", 480.0, "a gateway that collects readings from field sensors"),
    P(
        "TempTrack Sensor Kit",
        "IoT Devices",
        260.0,
        "temperature and humidity sensors for cold chains",
    ),
    P("FlowMeter IoT", "IoT Devices", 340.0, "a connected flow meter for pipes and tanks"),
    P("AirPulse Monitor", "IoT Devices", 210.0, "an indoor air-quality monitor"),
    P("GridLink Gateway", "IoT Devices", 730.0, "an industrial IoT gateway with edge rules"),
    P("NeuroCore Accelerator", "AI Hardware", 6800.0, "a PCIe accelerator card for model training"),
    P("TensorBlade X1", "AI Hardware", 9400.0, "a rack server with eight AI accelerators"),
    P("EdgeMind Module", "AI Hardware", 890.0, "a low-power inference module for edge devices"),
    P("SynapseChip S2", "AI Hardware", 1250.0, "an inference chip development board"),
    P("InferBox Edge Server", "AI Hardware", 4300.0, "a ruggedised edge inference server"),
    P(
        "HuddleSpace Suite",
        "Collaboration Tools",
        96.0,
        "chat, calls and shared documents for teams",
    ),
    P(
        "EchoMeet Room System",
        "Collaboration Tools",
        2900.0,
        "a conference-room camera and speaker bar",
    ),
    P("TaskWeave Boards", "Collaboration Tools", 60.0, "kanban boards and project timelines"),
    P("ChatBridge Enterprise", "Collaboration Tools", 120.0, "secure enterprise messaging"),
    P("DocStream Share", "Collaboration Tools", 75.0, "document sharing with approvals"),
    P("RoboLab Starter Kit", "Education Kits", 340.0, "a programmable robot kit for classrooms"),
    P("CircuitQuest Lab Kit", "Education Kits", 180.0, "an electronics lab kit for students"),
    P("BioBench Classroom Kit", "Education Kits", 260.0, "a biology lab kit with reusable slides"),
    P(
        "CodeCraft Learning Kit",
        "Education Kits",
        150.0,
        "a coding curriculum with microcontrollers",
    ),
    P("ChemSafe Lab Set", "Education Kits", 290.0, "a safe chemistry experiment set"),
    P("TwinWorks Simulator", "Simulation Software", 5200.0, "a digital twin of production lines"),
    P("FluidFrame CFD", "Simulation Software", 4600.0, "computational fluid dynamics"),
    P("StressSim Pro", "Simulation Software", 3900.0, "structural stress and fatigue simulation"),
    P(
        "FactoryTwin Planner",
        "Simulation Software",
        2700.0,
        "factory layout and throughput simulation",
    ),
    P("OrbitSim Dynamics", "Simulation Software", 6100.0, "multibody dynamics for aerospace"),
    P("MeshWave Access Point", "Networking Equipment", 390.0, "a Wi-Fi 6E mesh access point"),
    P("CoreSwitch 48", "Networking Equipment", 2600.0, "a 48-port managed core switch"),
    P("LinkRelay Router", "Networking Equipment", 1100.0, "a branch-office router with SD-WAN"),
    P("FiberSpan Transceiver", "Networking Equipment", 85.0, "a 10G fibre transceiver module"),
    P("SignalBoost Extender", "Networking Equipment", 140.0, "a range extender for warehouses"),
    P("PortGuard Switch", "Networking Equipment", 980.0, "a 24-port switch with port security"),
)

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

FAQ_KINDS = (
    FaqKind(
        "security",
        "How does {product} protect customer data?",
        "{product} protects data with",
        (
            "Which security measures does {product} use to protect our data?",
            "How is data kept safe in {product}?",
            "What does {product} rely on to guard against cyber threats?",
        ),
        (
            "Advanced encryption and multi-factor authentication",
            "End-to-end TLS encryption and role-based access control",
            "Hardware-backed key storage and tamper-evident audit logs",
            "Single sign-on with SAML and encrypted nightly backups",
            "Zero-trust network policies and real-time anomaly alerts",
        ),
    ),
    FaqKind(
        "integration",
        "Which systems does {product} integrate with?",
        "{product} integrates out of the box with",
        (
            "Which platforms can {product} connect to?",
            "What systems does {product} integrate with?",
            "Can {product} work with our other business systems, and which ones?",
        ),
        (
            "Salesforce, SAP and Microsoft Dynamics",
            "Slack, Microsoft Teams and Jira",
            "AWS, Azure and Google Cloud",
            "Snowflake, BigQuery and Redshift",
            "Any system through REST APIs and webhooks",
        ),
    ),
    FaqKind(
        "deployment",
        "How long does it take to deploy {product}?",
        "A typical deployment of {product} takes",
        (
            "How long will it take to roll out {product}?",
            "What is the usual deployment time for {product}?",
            "How quickly can {product} be up and running?",
        ),
        (
            "About two weeks for a standard rollout",
            "Under 48 hours with the guided installer",
            "Four to six weeks including data migration",
            "One business day per site",
            "Ten business days with on-site engineers",
        ),
    ),
    FaqKind(
        "support",
        "What support comes with {product}?",
        "Every {product} subscription includes",
        (
            "What kind of support do we get with {product}?",
            "Which support plan is included with {product}?",
            "If something breaks in {product}, what support is available?",
        ),
        (
            "24/7 phone support with a four-hour response target",
            "Business-hours email support and a dedicated success manager",
            "A named technical account manager and quarterly reviews",
            "Community forums plus next-business-day ticket replies",
            "Round-the-clock chat support and an online training library",
        ),
    ),
    FaqKind(
        "warranty",
        "What warranty covers {product}?",
        "{product} is covered by",
        (
            "What warranty do we get on {product}?",
            "How long is {product} under warranty?",
            "What does the {product} warranty cover?",
        ),
        (
            "A three-year limited warranty covering parts and labour",
            "A five-year warranty with advance replacement",
            "A two-year warranty and lifetime security updates",
            "A one-year warranty extendable to four years",
            "A 90-day satisfaction guarantee and a two-year warranty",
        ),
    ),
)

RULES = (
    ConfigRule("range", "TensorBlade X1", 1, 4),
    ConfigRule("range", "NeuroCore Accelerator", 2, 16),
    ConfigRule("range", "EchoMeet Room System", 1, 10),
    ConfigRule("range", "OrbitSim Dynamics", 1, 5),
    ConfigRule("range", "AegisWatch SIEM", 1, 3),
    ConfigRule("multiple", "FiberSpan Transceiver", 4),
    ConfigRule("multiple", "TempTrack Sensor Kit", 5),
    ConfigRule("multiple", "HuddleSpace Suite", 10),
    ConfigRule("multiple", "CircuitQuest Lab Kit", 6),
    ConfigRule("multiple", "StratoStore Archive", 5),
    ConfigRule("requires", "CipherGuard Endpoint", other="SentinelCore Suite"),
    ConfigRule("requires", "GridLink Gateway", other="SenseNode Hub"),
    ConfigRule("requires", "SkyVault Backup", other="NimbusHost Compute"),
    ConfigRule("requires", "EdgeMind Module", other="InferBox Edge Server"),
    ConfigRule("requires", "SignalBoost Extender", other="MeshWave Access Point"),
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

THEME = Theme(
    org_type="b2b",
    company="Nexora Systems",
    email_domain="nexora.example",
    pod="Dm",
    categories=CATEGORIES,
    products=PRODUCTS,
    issues=ISSUES,
    competitors=(
        "Stratagem Software",
        "Corvid Networks",
        "Helix Dynamics",
        "BrightPath Analytics",
        "Quorum Tech",
        "Ironclad Security Co",
        "Vectorline Systems",
        "Parallax Cloud",
    ),
    subtopics=(
        "pricing",
        "implementation timeline",
        "integration complexity",
        "data migration",
        "customer support",
        "contract terms",
        "training requirements",
        "security compliance",
        "scalability",
        "reporting features",
    ),
    faq_kinds=FAQ_KINDS,
    config_rules=RULES,
    policies=Policies(
        refund_limit=5000, goodwill_max=10, replacement_days=90, bant_budget=50000, bant_months=6
    ),
    issue_scope=ISSUE_SCOPE,
    quantity_range=(2, 60),
    lines_per_order=(2, 6),
    buyer_needs=(
        "consolidate our reporting",
        "secure our remote workforce",
        "move our servers to the cloud",
        "monitor our cold-chain shipments",
        "speed up product design reviews",
        "modernise the network in our branches",
        "train models on our own hardware",
        "bring our teams onto one collaboration tool",
    ),
)
