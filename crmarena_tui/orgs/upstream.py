"""What is known of upstream's published org snapshots: names, addresses, documented counts.

Upstream (SalesforceAIResearch/CRMArena) ships one SQLite file per org under `local_data/`, stored
with Git LFS and served through a redirect from the repository's `raw/main` address. The benchmark
documents the record counts of the real B2B org (docs: reference/CRMARENA_PRO.md, section 6); the
B2C and original orgs have no documented counts.
"""

from __future__ import annotations

from pathlib import Path

ORG_TYPES = ("b2b", "b2c", "original")
UPSTREAM_PREFIX = "upstream:"
RAW_BASE = "https://github.com/SalesforceAIResearch/CRMArena/raw/main/local_data/"

FILE_NAMES: dict[str, str] = {
    "b2b": "crmarenapro_b2b_data.db",
    "b2c": "crmarenapro_b2c_data.db",
    "original": "crmarena_data.db",
}

# Approximate sizes upstream's repository lists (bytes), for the progress bar before a server answers.

DOCUMENTED_COUNTS: dict[str, dict[str, int]] = {
    "b2b": {
        "User": 212,
        "Account": 101,
        "Contact": 886,
        "Contract": 163,
        "Lead": 1465,
        "Opportunity": 1170,
        "OpportunityLineItem": 4926,
        "Quote": 704,
        "QuoteLineItem": 2966,
        "Case": 153,
        "Knowledge__kav": 194,
        "Issue__c": 15,
        "CaseHistory__c": 393,
        "EmailMessage": 5686,
        "LiveChatTranscript": 58,
        "ProductCategory": 10,
        "Product2": 51,
        "Order": 163,
        "OrderItem": 689,
        "Task": 4783,
        "Event": 54,
        "VoiceCallTranscript__c": 4033,
        "Territory2": 10,
        "UserTerritory2Association": 184,
    },
}

# The objects the original CRMArena's tools query (upstream's crm_sandbox/env/functions.py). Its
# schema itself is only on the Hugging Face hub (Salesforce/CRMArena, config `schema`), so an
# original snapshot is typed by introspection, with the CRMArena-Pro field types where names match.
ORIGINAL_OBJECTS = (
    "Account",
    "Case",
    "CaseHistory__c",
    "Contact",
    "EmailMessage",
    "Issue__c",
    "Knowledge__kav",
    "LiveChatTranscript",
    "Order",
    "OrderItem",
    "Product2",
    "User",
)


def download_url(org_type: str) -> str:
    """The default address of `org_type`'s snapshot file."""
    return RAW_BASE + FILE_NAMES[org_type]


def guess_org_type(path: str | Path) -> str | None:
    """The org type a snapshot's file name tells (`crmarenapro_b2c_data.db` -> b2c), or None."""
    name = Path(str(path)).name.lower()
    for org_type in ("b2b", "b2c"):
        if org_type in name:
            return org_type
    if "original" in name or name.startswith("crmarena_data"):
        return "original"
    return None


def check_org_type(org_type: str) -> str:
    if org_type not in ORG_TYPES:
        raise ValueError(f"unknown org type {org_type!r}: use b2b, b2c or original")
    return org_type
