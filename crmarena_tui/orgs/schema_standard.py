"""Standard fields a live Salesforce org has beyond the benchmark schema's, which agents reach for.

The benchmark schema (`reference_schema`) lists the fields its tasks were written against, and the
agent's prompt lists only those; but every object of a live org carries Salesforce's standard
fields, and agents query them from what they know of Salesforce (`Account.Owner.Name`,
`Contact.Phone`, `Case.Origin`). The demo orgs hold these fields too (`org_schema`, filled by
`demo/orggen/standard.py`), so such a query answers as it would on the live org instead of failing
with INVALID_FIELD; an imported snapshot that carries one of these columns types it as Salesforce
defines it (a reference resolves its parent even when the sampled values cannot tell the target).

The names, types and relationships are Salesforce's standard fields (its object reference for
Account, Contact, Lead, Case, Opportunity, User, Task, Contract and Order); the descriptions are
this project's words. None of them is listed in an agent's prompt (`unlisted`): the live org's
prompt in upstream's runs listed the benchmark's fields only.
"""

from __future__ import annotations

from crmarena_tui.orgs.schema import FieldDef, ObjectDef, Schema
from crmarena_tui.orgs.schema_fields import field, ref_field

STANDARD_FIELDS: dict[str, tuple[FieldDef, ...]] = {
    "User": (
        field("Title", "string", "Job title of the user"),
        field("Department", "string", "Department the user works in"),
        ref_field("ManagerId", "User", "The user's manager"),
    ),
    "Account": (
        ref_field("OwnerId", "User", "Sales agent who owns the account"),
        field("Type", "picklist", "Kind of account (Prospect, Customer - Direct)"),
        field("AnnualRevenue", "currency", "Yearly revenue of the account"),
        field("Website", "url", "Web address of the account"),
        field("BillingCity", "string", "City of the billing address"),
        field("BillingState", "string", "State of the billing address (two-letter code)"),
        field("BillingCountry", "string", "Country of the billing address"),
    ),
    "Contact": (
        ref_field("OwnerId", "User", "Agent who owns the contact"),
        field("Phone", "phone", "Business phone number of the contact"),
        field("Title", "string", "Job title of the contact"),
        field("Department", "string", "Department of the contact"),
        field("MailingCity", "string", "City of the contact's mailing address"),
        field("MailingState", "string", "State of the mailing address (two-letter code)"),
        field("MailingCountry", "string", "Country of the contact's mailing address"),
    ),
    "Lead": (
        field("LeadSource", "picklist", "Where the lead came from (Web, Phone Inquiry, ...)"),
        field("Industry", "picklist", "Industry of the lead's company"),
        field("State", "string", "State of the lead's address (two-letter code)"),
        field("Country", "string", "Country of the lead's address"),
    ),
    "Case": (
        field("CaseNumber", "string", "Number the case is known by"),
        field("Origin", "picklist", "Channel the case came in through (Phone, Email, Web, Chat)"),
        field("Type", "picklist", "Kind of case (Problem, Question, Feature Request)"),
        field("Reason", "picklist", "Reason given for the case"),
        field("IsClosed", "boolean", "Whether the case is closed"),
        field("IsEscalated", "boolean", "Whether the case was escalated"),
    ),
    "Opportunity": (
        field("Type", "picklist", "New business or business with an existing customer"),
        field("LeadSource", "picklist", "Where the opportunity came from"),
        field("ForecastCategoryName", "picklist", "Forecast category (Pipeline ... Closed)"),
        field("IsClosed", "boolean", "Whether the opportunity is closed"),
    ),
    "Task": (
        ref_field("WhoId", "Contact", "The contact the task is about", rel="Who", polymorphic=True),
        field("Type", "picklist", "Kind of task (Call, Email, Meeting, Other)"),
    ),
    "Contract": (
        ref_field("OwnerId", "User", "Agent who owns the contract"),
        field("ContractNumber", "string", "Number the contract is known by"),
        field("EndDate", "date", "Date the contract ends"),
    ),
    "Order": (
        field("OrderNumber", "string", "Number the order is known by"),
        field("TotalAmount", "currency", "Total of the order's products"),
    ),
}


def standard_field(object_name: str, field_name: str) -> FieldDef | None:
    """Salesforce's standard field `field_name` of `object_name` as defined here, if any."""
    low = field_name.lower()
    for f in STANDARD_FIELDS.get(object_name, ()):
        if f.name.lower() == low:
            return f
    return None


def unlisted(object_name: str, field_name: str) -> bool:
    """Whether an agent's prompt leaves the field out: a standard field beyond the benchmark's."""
    return standard_field(object_name, field_name) is not None


def with_standard_fields(schema: Schema) -> Schema:
    """`schema` with the standard fields it lacks appended to each object."""
    out = Schema()
    for name, obj in schema.objects.items():
        have = {f.name.lower() for f in obj.fields}
        extra = [f for f in STANDARD_FIELDS.get(name, ()) if f.name.lower() not in have]
        out.objects[name] = ObjectDef(
            obj.name, obj.key_prefix, obj.label, obj.description, [*obj.fields, *extra]
        )
    return out


def org_schema() -> Schema:
    """The demo orgs' schema: the benchmark's objects and fields, then the standard ones."""
    from crmarena_tui.orgs.reference_schema import reference_schema

    return with_standard_fields(reference_schema())
