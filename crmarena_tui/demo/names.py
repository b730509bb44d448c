"""Word lists for people, companies and places in the demo orgs (invented for this project)."""

from __future__ import annotations

FIRST_NAMES = (
    "Aaliyah", "Aaron", "Adaeze", "Adrian", "Aiko", "Alejandro", "Alicia", "Amara", "Amir", "Ana",
    "Andre", "Anika", "Arjun", "Astrid", "Beatriz", "Benjamin", "Bianca", "Bruno", "Camila", "Carlos",
    "Caroline", "Chen", "Chiara", "Daniel", "Dario", "Deepa", "Diego", "Dmitri", "Elena", "Elif",
    "Emeka", "Emily", "Esther", "Fatima", "Felix", "Fiona", "Gabriel", "Grace", "Hana", "Hannah",
    "Hector", "Hiro", "Ines", "Isaac", "Ivana", "Jamal", "Javier", "Jin", "Joanna", "Jonas", "Julia",
    "Kai", "Kamala", "Karim", "Keiko", "Kwame", "Lara", "Leila", "Leon", "Lucas", "Lucia", "Maya",
    "Malik", "Marco", "Mariana", "Mateus", "Mei", "Mira", "Nadia", "Naveen", "Nia", "Nikolai",
    "Noah", "Olga", "Omar", "Oscar", "Priya", "Rafael", "Rana", "Ravi", "Rosa", "Ruth", "Samir",
    "Sara", "Sebastian", "Sofia", "Soren", "Tariq", "Tessa", "Theo", "Uma", "Valentina", "Victor",
    "Wei", "Yara", "Yusuf", "Zainab", "Zoe", "Ingrid", "Kofi", "Lena", "Mohan", "Paolo", "Quinn",
)

LAST_NAMES = (
    "Abara", "Adeyemi", "Alvarado", "Andersen", "Arslan", "Bakker", "Banerjee", "Barros", "Becker",
    "Bianchi", "Brennan", "Castillo", "Chandra", "Chowdhury", "Costa", "Dalton", "Delgado", "Dubois",
    "Eriksen", "Esposito", "Farouk", "Ferreira", "Fischer", "Fontaine", "Gallagher", "Garza", "Gupta",
    "Haddad", "Hansen", "Hartmann", "Herrera", "Holm", "Ibrahim", "Iyer", "Jansen", "Jovanovic",
    "Kaur", "Kim", "Kowalski", "Kruger", "Lambert", "Larsen", "Lindqvist", "Lopez", "Mahmoud",
    "Marquez", "Mendes", "Moreau", "Murphy", "Nakamura", "Navarro", "Nguyen", "Novak", "Nwosu",
    "Okafor", "Olsen", "Ortega", "Osei", "Park", "Patel", "Pereira", "Petrov", "Quintero", "Rahman",
    "Ramos", "Reyes", "Rossi", "Saito", "Santos", "Schmidt", "Sharma", "Silva", "Sokolov", "Suzuki",
    "Tan", "Tanaka", "Torres", "Uchenna", "Vargas", "Vasquez", "Vogel", "Wagner", "Walsh", "Weber",
    "Wong", "Yamamoto", "Yilmaz", "Zhang", "Zimmer", "Zoric", "Mensah", "Lindgren", "Achebe", "Duarte",
)

COMPANY_HEADS = (
    "Apex", "Beacon", "Bright", "Cedar", "Cobalt", "Crest", "Delta", "Ember", "Evergreen", "Falcon",
    "Granite", "Harbor", "Horizon", "Ironwood", "Juniper", "Keystone", "Lakeside", "Lumen", "Maple",
    "Meridian", "Northwind", "Oakridge", "Orbit", "Pinnacle", "Prairie", "Quantum", "Redwood",
    "Riverbend", "Sable", "Silverline", "Skyward", "Summit", "Tidewater", "Trident", "Vanguard",
    "Vertex", "Willow", "Zenith", "Aurora", "Bluestone", "Copperfield", "Driftwood", "Foxglove",
    "Goldleaf", "Highland", "Ivory", "Kestrel", "Larkspur", "Monarch", "Nimbus",
)

COMPANY_TAILS = (
    "Logistics", "Health Partners", "Manufacturing", "Financial Group", "Retail Co", "Energy",
    "Labs", "Systems", "Foods", "Media", "Engineering", "Holdings", "Consulting", "Biotech",
    "Outfitters", "Transit", "Analytics", "Hospitality", "Insurance", "Academy",
)

INDUSTRIES = (
    "Technology", "Healthcare", "Manufacturing", "Finance", "Retail", "Energy", "Education",
    "Media", "Transportation", "Hospitality", "Insurance", "Biotechnology",
)

JOB_TITLES = (
    "IT Director", "Operations Manager", "Chief Technology Officer", "Procurement Lead",
    "VP of Engineering", "Head of Analytics", "Security Architect", "Product Manager",
    "Chief Financial Officer", "Facilities Manager", "Data Scientist", "Project Coordinator",
)

# The 50 states by region; the demo's ten sales territories are these groups.
TERRITORY_STATES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Pacific Northwest", ("WA", "OR", "ID", "MT", "AK")),
    ("California and Hawaii", ("CA", "HI", "NV", "UT", "AZ")),
    ("Mountain", ("CO", "WY", "NM", "ND", "SD")),
    ("Plains", ("NE", "KS", "OK", "MO", "IA")),
    ("Texas and Gulf", ("TX", "LA", "AR", "MS", "AL")),
    ("Great Lakes", ("MI", "OH", "IN", "IL", "WI")),
    ("Upper Midwest", ("MN", "KY", "TN", "WV", "VA")),
    ("Southeast", ("FL", "GA", "SC", "NC", "DE")),
    ("Mid-Atlantic", ("NY", "NJ", "PA", "MD", "CT")),
    ("New England", ("MA", "RI", "VT", "NH", "ME")),
)

STATES: tuple[str, ...] = tuple(s for _, group in TERRITORY_STATES for s in group)

LANGUAGES = ("en_US", "en_US", "en_US", "es", "fr", "de")
TIME_ZONES = ("America/Los_Angeles", "America/Denver", "America/Chicago", "America/New_York")
