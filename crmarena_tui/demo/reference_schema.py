"""The CRMArena-Pro org schema (27 objects) with field descriptions, as the demo orgs use it.

The B2B and B2C demo orgs share these objects; descriptions follow the style of the hub's
`b2b_schema` rows. Written for this project.
"""

from __future__ import annotations

from crmarena_tui.orgs.schema import FieldDef, ObjectDef, Schema


def _id(obj: str) -> FieldDef:
    return FieldDef("Id", "id", f"Unique identifier of the {obj} record")


def _ref(
    name: str, target: str, desc: str, rel: str | None = None, child: str | None = None
) -> FieldDef:
    rel = rel or (name[:-2] if name.endswith("Id") else name.replace("__c", "__r"))
    return FieldDef(
        name,
        "reference",
        desc,
        reference_to=target,
        relationship_name=rel,
        child_relationship=child,
    )


def _f(name: str, typ: str, desc: str) -> FieldDef:
    return FieldDef(name, typ, desc)  # type: ignore[arg-type]


OBJECTS: list[ObjectDef] = [
    ObjectDef(
        "User",
        "005",
        "User",
        "An employee of the company: sales and service agents",
        [
            _id("user"),
            _f("FirstName", "string", "First name of the user"),
            _f("LastName", "string", "Last name of the user"),
            _f("Name", "string", "Full name of the user"),
            _f("Email", "email", "Email address of the user"),
            _f("Phone", "phone", "Phone number of the user"),
            _f("Username", "string", "Login name of the user"),
            _f("Alias", "string", "Short name of the user"),
            _f("LanguageLocaleKey", "picklist", "Language of the user's interface"),
            _f("TimeZoneSidKey", "picklist", "Time zone of the user"),
            _f("IsActive", "boolean", "Whether the user can log in"),
        ],
    ),
    ObjectDef(
        "Account",
        "001",
        "Account",
        "A customer company or household",
        [
            _id("account"),
            _f("Name", "string", "Name of the account"),
            _f("Phone", "phone", "Main phone number of the account"),
            _f("Industry", "picklist", "Industry the account belongs to"),
            _f("Description", "textarea", "Description of the account"),
            _f("NumberOfEmployees", "int", "Number of employees of the account"),
            _f("ShippingState", "string", "State of the shipping address (two-letter code)"),
        ],
    ),
    ObjectDef(
        "Contact",
        "003",
        "Contact",
        "A person at a customer account",
        [
            _id("contact"),
            _f("FirstName", "string", "First name of the contact"),
            _f("LastName", "string", "Last name of the contact"),
            _f("Name", "string", "Full name of the contact"),
            _f("Email", "email", "Email address of the contact"),
            _ref("AccountId", "Account", "Account the contact belongs to", child="Contacts"),
        ],
    ),
    ObjectDef(
        "Contract",
        "800",
        "Contract",
        "A signed agreement with an account",
        [
            _id("contract"),
            _ref("AccountId", "Account", "Account the contract is with", child="Contracts"),
            _f("Status", "picklist", "Status of the contract (Draft, Activated)"),
            _f("StartDate", "date", "Date the contract starts"),
            _f("CustomerSignedDate", "date", "Date the customer signed the contract"),
            _f("CompanySignedDate", "date", "Date the company signed the contract"),
            _f("Description", "textarea", "Description of the contract"),
            _f("ContractTerm", "int", "Length of the contract in months"),
        ],
    ),
    ObjectDef(
        "Lead",
        "00Q",
        "Lead",
        "A prospective customer not yet qualified",
        [
            _id("lead"),
            _f("FirstName", "string", "First name of the lead"),
            _f("LastName", "string", "Last name of the lead"),
            _f("Name", "string", "Full name of the lead"),
            _f("Email", "email", "Email address of the lead"),
            _f("Phone", "phone", "Phone number of the lead"),
            _f("Company", "string", "Company the lead works for"),
            _f(
                "Status",
                "picklist",
                "Status of the lead (Open, Working, Closed - Converted, Closed - Not Converted)",
            ),
            _ref("ConvertedContactId", "Contact", "Contact created when the lead converted"),
            _ref("ConvertedAccountId", "Account", "Account created when the lead converted"),
            _f("Title", "string", "Job title of the lead"),
            _f("CreatedDate", "datetime", "Date and time the lead was created"),
            _f("ConvertedDate", "date", "Date the lead converted"),
            _f("IsConverted", "boolean", "Whether the lead has converted"),
            _ref("OwnerId", "User", "Agent who owns the lead", child="Leads"),
        ],
    ),
    ObjectDef(
        "Opportunity",
        "006",
        "Opportunity",
        "A potential sale to an account",
        [
            _id("opportunity"),
            _ref(
                "ContractID__c",
                "Contract",
                "Contract signed for this opportunity",
                rel="ContractID__r",
                child="Opportunities__r",
            ),
            _ref("AccountId", "Account", "Account of the opportunity", child="Opportunities"),
            _ref("ContactId", "Contact", "Main contact of the opportunity"),
            _ref("OwnerId", "User", "Agent who owns the opportunity", child="Opportunities"),
            _f("Probability", "percent", "Likelihood of closing, in percent"),
            _f("Amount", "currency", "Estimated total sale amount"),
            _f(
                "StageName",
                "picklist",
                "Stage (Qualification, Discovery, Quote, Negotiation, Closed)",
            ),
            _f("Name", "string", "Name of the opportunity"),
            _f("Description", "textarea", "Description of the opportunity"),
            _f("CreatedDate", "datetime", "Date and time the opportunity was created"),
            _f("CloseDate", "date", "Expected or actual close date"),
        ],
    ),
    ObjectDef(
        "OpportunityLineItem",
        "00k",
        "Opportunity Product",
        "A product on an opportunity",
        [
            _id("opportunity line item"),
            _ref(
                "OpportunityId",
                "Opportunity",
                "Opportunity of the line item",
                child="OpportunityLineItems",
            ),
            _ref("Product2Id", "Product2", "Product of the line item"),
            _ref("PricebookEntryId", "PricebookEntry", "Price book entry of the line item"),
            _f("Quantity", "double", "Quantity of the product"),
            _f("TotalPrice", "currency", "Total price of the line item"),
        ],
    ),
    ObjectDef(
        "Quote",
        "0Q0",
        "Quote",
        "A priced proposal for an opportunity",
        [
            _id("quote"),
            _ref("OpportunityId", "Opportunity", "Opportunity of the quote", child="Quotes"),
            _ref("AccountId", "Account", "Account of the quote", child="Quotes"),
            _ref("ContactId", "Contact", "Contact of the quote"),
            _f("Name", "string", "Name of the quote"),
            _f("Description", "textarea", "Description of the quote"),
            _f(
                "Status",
                "picklist",
                "Status (Draft, Needs Review, In Review, Approved, Rejected, Presented, Accepted, Denied)",
            ),
            _f("CreatedDate", "datetime", "Date and time the quote was created"),
            _f("ExpirationDate", "date", "Date the quote expires"),
        ],
    ),
    ObjectDef(
        "QuoteLineItem",
        "0QL",
        "Quote Line Item",
        "A product on a quote",
        [
            _id("quote line item"),
            _ref("QuoteId", "Quote", "Quote of the line item", child="QuoteLineItems"),
            _ref("OpportunityLineItemId", "OpportunityLineItem", "Opportunity line item it quotes"),
            _ref("Product2Id", "Product2", "Product of the line item"),
            _ref("PricebookEntryId", "PricebookEntry", "Price book entry of the line item"),
            _f("Quantity", "double", "Quantity quoted"),
            _f("UnitPrice", "currency", "Unit price quoted"),
            _f("Discount", "percent", "Discount in percent"),
            _f("TotalPrice", "currency", "Total price after discount"),
        ],
    ),
    ObjectDef(
        "Case",
        "500",
        "Case",
        "A customer's service request",
        [
            _id("case"),
            _f("Priority", "picklist", "Priority (Low, Medium, High)"),
            _f("Subject", "string", "Subject of the case"),
            _f("Description", "textarea", "Description of the case"),
            _f("Status", "picklist", "Status (New, Working, Escalated, Closed)"),
            _ref("ContactId", "Contact", "Contact who raised the case", child="Cases"),
            _f("CreatedDate", "datetime", "Date and time the case was opened"),
            _f("ClosedDate", "datetime", "Date and time the case was closed"),
            _ref(
                "OrderItemId__c",
                "OrderItem",
                "Order item the case is about",
                rel="OrderItemId__r",
                child="Cases__r",
            ),
            _ref(
                "IssueId__c",
                "Issue__c",
                "Issue reported in the case",
                rel="IssueId__r",
                child="Cases__r",
            ),
            _ref("AccountId", "Account", "Account of the case", child="Cases"),
            _ref("OwnerId", "User", "Agent who owns the case", child="Cases"),
        ],
    ),
    ObjectDef(
        "Knowledge__kav",
        "ka0",
        "Knowledge",
        "A knowledge article: FAQs and company policies",
        [
            _id("knowledge article"),
            _f("Title", "string", "Title of the article"),
            _f("FAQ_Answer__c", "textarea", "Body of the article"),
            _f("Summary", "textarea", "Summary of the article"),
            _f("UrlName", "string", "URL name of the article"),
        ],
    ),
    ObjectDef(
        "Issue__c",
        "a03",
        "Issue",
        "A kind of problem customers report",
        [
            _id("issue"),
            _f("Name", "string", "Name of the issue"),
            _f("Description__c", "textarea", "Description of the issue"),
        ],
    ),
    ObjectDef(
        "CaseHistory__c",
        "a0x",
        "Case History",
        "A change to a case: owner assignments",
        [
            _id("case history"),
            _ref(
                "CaseId__c", "Case", "Case that changed", rel="CaseId__r", child="CaseHistories__r"
            ),
            _f("OldValue__c", "string", "Previous value (a User Id for owner assignments)"),
            _f("NewValue__c", "string", "New value (a User Id for owner assignments)"),
            _f("CreatedDate", "datetime", "Date and time of the change"),
            _f(
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
            _id("email message"),
            _f("Subject", "string", "Subject of the email"),
            _f("TextBody", "textarea", "Body of the email"),
            _ref(
                "ParentId", "Case", "Case the email belongs to", rel="Parent", child="EmailMessages"
            ),
            _f("FromAddress", "email", "Sender's address"),
            _f("ToIds", "string", "Recipient Ids"),
            _f("MessageDate", "datetime", "Date and time the email was sent"),
            _f("RelatedToId", "string", "Id of the record the email relates to"),
        ],
    ),
    ObjectDef(
        "LiveChatTranscript",
        "570",
        "Live Chat Transcript",
        "A chat between an agent and a customer",
        [
            _id("chat transcript"),
            _ref("CaseId", "Case", "Case the chat is about", child="LiveChatTranscripts"),
            _ref("AccountId", "Account", "Account of the customer"),
            _ref("OwnerId", "User", "Agent in the chat"),
            _f("Body", "textarea", "Transcript of the chat"),
            _f("EndTime", "datetime", "Date and time the chat ended"),
            _f("LiveChatVisitorId", "string", "Visitor Id of the customer"),
            _ref("ContactId", "Contact", "Contact in the chat"),
        ],
    ),
    ObjectDef(
        "ProductCategory",
        "0ZG",
        "Product Category",
        "A category of the product catalogue",
        [
            _id("product category"),
            _f("Name", "string", "Name of the category"),
            _f("CatalogId", "string", "Catalogue the category belongs to"),
        ],
    ),
    ObjectDef(
        "Product2",
        "01t",
        "Product",
        "A product the company sells",
        [
            _id("product"),
            _f("Name", "string", "Name of the product"),
            _f("Description", "textarea", "Description of the product"),
            _f("IsActive", "boolean", "Whether the product is sold"),
            _f("External_ID__c", "string", "External identifier (SKU)"),
        ],
    ),
    ObjectDef(
        "ProductCategoryProduct",
        "0ZH",
        "Product Category Product",
        "A product in a category",
        [
            _id("category membership"),
            _ref(
                "ProductCategoryId", "ProductCategory", "Category", child="ProductCategoryProducts"
            ),
            _ref(
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
            _id("price book"),
            _f("Name", "string", "Name of the price book"),
            _f("Description", "textarea", "Description of the price book"),
            _f("IsActive", "boolean", "Whether the price book is in use"),
            _f("ValidFrom", "datetime", "Start of validity"),
            _f("ValidTo", "datetime", "End of validity"),
        ],
    ),
    ObjectDef(
        "PricebookEntry",
        "01u",
        "Price Book Entry",
        "A product's price in a price book",
        [
            _id("price book entry"),
            _ref("Pricebook2Id", "Pricebook2", "Price book", child="PricebookEntries"),
            _ref("Product2Id", "Product2", "Product", child="PricebookEntries"),
            _f("UnitPrice", "currency", "List price of the product"),
        ],
    ),
    ObjectDef(
        "Order",
        "801",
        "Order",
        "A customer's purchase",
        [
            _id("order"),
            _ref("AccountId", "Account", "Account that ordered", child="Orders"),
            _f("Status", "picklist", "Status (Draft, Activated)"),
            _f("EffectiveDate", "date", "Date the order took effect (purchase date)"),
            _ref("Pricebook2Id", "Pricebook2", "Price book of the order"),
            _ref("OwnerId", "User", "Agent who owns the order", child="Orders"),
            _ref(
                "ContractId",
                "Contract",
                "Contract the order fulfils (empty for direct web orders)",
                child="Orders",
            ),
        ],
    ),
    ObjectDef(
        "OrderItem",
        "802",
        "Order Product",
        "A product on an order",
        [
            _id("order item"),
            _ref("OrderId", "Order", "Order of the item", child="OrderItems"),
            _ref("Product2Id", "Product2", "Product ordered", child="OrderItems"),
            _f("Quantity", "double", "Quantity ordered"),
            _f("UnitPrice", "currency", "Unit price paid"),
            _ref("PriceBookEntryId", "PricebookEntry", "Price book entry", rel="PriceBookEntry"),
        ],
    ),
    ObjectDef(
        "Task",
        "00T",
        "Task",
        "A to-do item on an opportunity",
        [
            _id("task"),
            _ref("WhatId", "Opportunity", "Record the task is about", rel="What", child="Tasks"),
            _ref("OwnerId", "User", "Agent who owns the task", child="Tasks"),
            _f("Priority", "picklist", "Priority (High, Normal, Low)"),
            _f("Status", "picklist", "Status (Not Started, In Progress, Completed)"),
            _f("ActivityDate", "date", "Due date of the task"),
            _f("Subject", "string", "Subject of the task"),
            _f("Description", "textarea", "Description of the task"),
        ],
    ),
    ObjectDef(
        "Event",
        "00U",
        "Event",
        "A meeting on an opportunity",
        [
            _id("event"),
            _ref("WhatId", "Opportunity", "Record the event is about", rel="What", child="Events"),
            _ref("OwnerId", "User", "Agent who owns the event", child="Events"),
            _f("StartDateTime", "datetime", "Start of the event"),
            _f("Subject", "string", "Subject of the event"),
            _f("Description", "textarea", "Description of the event"),
            _f("DurationInMinutes", "int", "Length of the event in minutes"),
            _f("Location", "string", "Where the event takes place"),
            _f("IsAllDayEvent", "boolean", "Whether the event lasts all day"),
        ],
    ),
    ObjectDef(
        "VoiceCallTranscript__c",
        "a0V",
        "Voice Call Transcript",
        "A transcript of a sales call",
        [
            _id("call transcript"),
            _ref(
                "OpportunityId__c",
                "Opportunity",
                "Opportunity discussed",
                rel="OpportunityId__r",
                child="VoiceCallTranscripts__r",
            ),
            _ref(
                "LeadId__c",
                "Lead",
                "Lead on the call",
                rel="LeadId__r",
                child="VoiceCallTranscripts__r",
            ),
            _f("Body__c", "textarea", "Transcript of the call"),
            _f("CreatedDate", "datetime", "Date and time the call started"),
            _f("EndTime__c", "datetime", "Date and time the call ended"),
        ],
    ),
    ObjectDef(
        "Territory2",
        "0MI",
        "Territory",
        "A sales territory",
        [
            _id("territory"),
            _f("Name", "string", "Name of the territory"),
            _f("Description", "textarea", "Comma-separated states or regions the territory covers"),
        ],
    ),
    ObjectDef(
        "UserTerritory2Association",
        "0R0",
        "User Territory",
        "An agent assigned to a territory",
        [
            _id("assignment"),
            _ref("UserId", "User", "Agent", child="UserTerritory2Associations"),
            _ref("Territory2Id", "Territory2", "Territory", child="UserTerritory2Associations"),
        ],
    ),
]


def reference_schema() -> Schema:
    return Schema(
        {
            o.name: ObjectDef(o.name, o.key_prefix, o.label, o.description, list(o.fields))
            for o in OBJECTS
        }
    )
