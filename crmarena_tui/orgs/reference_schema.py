"""The CRMArena-Pro org schema (27 objects) with field descriptions, as the demo orgs use it.

The B2B and B2C demo orgs share these objects (and an org imported from an upstream snapshot takes
its fields' describe properties from here); descriptions follow the style of the hub's
`b2b_schema` rows. The objects live in `schema_sales` and `schema_service`, built with the field
builders of `schema_fields`; `ORDER` is the order an agent's prompt lists them in. Written for this
project.
"""

from __future__ import annotations

from crmarena_tui.orgs import schema_sales, schema_service
from crmarena_tui.orgs.schema import ObjectDef, Schema

ORDER: tuple[str, ...] = (
    "User",
    "Account",
    "Contact",
    "Contract",
    "Lead",
    "Opportunity",
    "OpportunityLineItem",
    "Quote",
    "QuoteLineItem",
    "Case",
    "Knowledge__kav",
    "Issue__c",
    "CaseHistory__c",
    "EmailMessage",
    "LiveChatTranscript",
    "ProductCategory",
    "Product2",
    "ProductCategoryProduct",
    "Pricebook2",
    "PricebookEntry",
    "Order",
    "OrderItem",
    "Task",
    "Event",
    "VoiceCallTranscript__c",
    "Territory2",
    "UserTerritory2Association",
)

_BY_NAME = {o.name: o for o in (*schema_sales.OBJECTS, *schema_service.OBJECTS)}
OBJECTS: list[ObjectDef] = [_BY_NAME[name] for name in ORDER]


def reference_schema() -> Schema:
    return Schema(
        {
            o.name: ObjectDef(o.name, o.key_prefix, o.label, o.description, list(o.fields))
            for o in OBJECTS
        }
    )
