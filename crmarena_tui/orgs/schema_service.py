"""The benchmark's service, knowledge and catalogue objects (see `reference_schema`)."""

from __future__ import annotations

from crmarena_tui.orgs.schema import ObjectDef
from crmarena_tui.orgs.schema_fields import (
    CUSTOM_LONG_TEXT,
    FILTER_SORT,
    field,
    id_field,
    long_text,
    ref_field,
)

OBJECTS: list[ObjectDef] = [
    ObjectDef(
        "Case",
        "500",
        "Case",
        "A customer's service request",
        [
            id_field("case"),
            field("Priority", "picklist", "Priority (Low, Medium, High)"),
            field("Subject", "string", "Subject of the case"),
            long_text("Description", "Description of the case"),
            field("Status", "picklist", "Status (New, Working, Escalated, Closed)"),
            ref_field("ContactId", "Contact", "Contact who raised the case", child="Cases"),
            field("CreatedDate", "datetime", "Date and time the case was opened"),
            field("ClosedDate", "datetime", "Date and time the case was closed"),
            ref_field(
                "OrderItemId__c",
                "OrderItem",
                "Order item the case is about",
                rel="OrderItemId__r",
                child="Cases__r",
            ),
            ref_field(
                "IssueId__c",
                "Issue__c",
                "Issue reported in the case",
                rel="IssueId__r",
                child="Cases__r",
            ),
            ref_field("AccountId", "Account", "Account of the case", child="Cases"),
            ref_field(
                "OwnerId", "User", "Agent who owns the case", child="Cases", polymorphic=True
            ),
        ],
    ),
    ObjectDef(
        "Knowledge__kav",
        "ka0",
        "Knowledge",
        "A knowledge article: FAQs and company policies",
        [
            id_field("knowledge article"),
            field("Title", "string", "Title of the article"),
            long_text("FAQ_Answer__c", "Body of the article", CUSTOM_LONG_TEXT),
            field("Summary", "textarea", "Summary of the article", length=1000, **FILTER_SORT),
            field("UrlName", "string", "URL name of the article"),
        ],
    ),
    ObjectDef(
        "Issue__c",
        "a03",
        "Issue",
        "A kind of problem customers report",
        [
            id_field("issue"),
            field("Name", "string", "Name of the issue"),
            long_text("Description__c", "Description of the issue", CUSTOM_LONG_TEXT),
        ],
    ),
    ObjectDef(
        "CaseHistory__c",
        "a0x",
        "Case History",
        "A change to a case: owner assignments",
        [
            id_field("case history"),
            ref_field(
                "CaseId__c", "Case", "Case that changed", rel="CaseId__r", child="CaseHistories__r"
            ),
            field("OldValue__c", "string", "Previous value (a User Id for owner assignments)"),
            field("NewValue__c", "string", "New value (a User Id for owner assignments)"),
            field("CreatedDate", "datetime", "Date and time of the change"),
            field(
                "Field__c",
                "picklist",
                "What changed ('Owner Assignment', 'Case Creation', 'Case Closed')",
            ),
        ],
    ),
    ObjectDef(
        "EmailMessage",
        "02s",
        "Email Message",
        "An email exchanged about a case",
        [
            id_field("email message"),
            field("Subject", "string", "Subject of the email"),
            long_text("TextBody", "Body of the email"),
            ref_field(
                "ParentId", "Case", "Case the email belongs to", rel="Parent", child="EmailMessages"
            ),
            field("FromAddress", "email", "Sender's address"),
            field("ToIds", "string", "Recipient Ids"),
            field("MessageDate", "datetime", "Date and time the email was sent"),
            field("RelatedToId", "string", "Id of the record the email relates to"),
        ],
    ),
    ObjectDef(
        "LiveChatTranscript",
        "570",
        "Live Chat Transcript",
        "A chat between an agent and a customer",
        [
            id_field("chat transcript"),
            ref_field("CaseId", "Case", "Case the chat is about", child="LiveChatTranscripts"),
            ref_field("AccountId", "Account", "Account of the customer"),
            ref_field("OwnerId", "User", "Agent in the chat", polymorphic=True),
            long_text("Body", "Transcript of the chat"),
            field("EndTime", "datetime", "Date and time the chat ended"),
            field("LiveChatVisitorId", "string", "Visitor Id of the customer"),
            ref_field("ContactId", "Contact", "Contact in the chat"),
        ],
    ),
    ObjectDef(
        "ProductCategory",
        "0ZG",
        "Product Category",
        "A category of the product catalogue",
        [
            id_field("product category"),
            field("Name", "string", "Name of the category"),
            field("CatalogId", "string", "Catalogue the category belongs to"),
        ],
    ),
    ObjectDef(
        "Product2",
        "01t",
        "Product",
        "A product the company sells",
        [
            id_field("product"),
            field("Name", "string", "Name of the product"),
            field(
                "Description", "textarea", "Description of the product", length=4000, **FILTER_SORT
            ),
            field("IsActive", "boolean", "Whether the product is sold"),
            field("External_ID__c", "string", "External identifier (SKU)"),
        ],
    ),
    ObjectDef(
        "ProductCategoryProduct",
        "0ZH",
        "Product Category Product",
        "A product in a category",
        [
            id_field("category membership"),
            ref_field(
                "ProductCategoryId", "ProductCategory", "Category", child="ProductCategoryProducts"
            ),
            ref_field(
                "ProductId", "Product2", "Product", rel="Product", child="ProductCategoryProducts"
            ),
        ],
    ),
    ObjectDef(
        "Pricebook2",
        "01s",
        "Price Book",
        "A list of prices",
        [
            id_field("price book"),
            field("Name", "string", "Name of the price book"),
            field("Description", "string", "Description of the price book"),
            field("IsActive", "boolean", "Whether the price book is in use"),
            field("ValidFrom", "datetime", "Start of validity"),
            field("ValidTo", "datetime", "End of validity"),
        ],
    ),
    ObjectDef(
        "PricebookEntry",
        "01u",
        "Price Book Entry",
        "A product's price in a price book",
        [
            id_field("price book entry"),
            ref_field("Pricebook2Id", "Pricebook2", "Price book", child="PricebookEntries"),
            ref_field("Product2Id", "Product2", "Product", child="PricebookEntries"),
            field("UnitPrice", "currency", "List price of the product"),
        ],
    ),
]
