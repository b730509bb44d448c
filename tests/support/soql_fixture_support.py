"""A small hand-made org for the SOQL/SOSL engine tests: a few dozen rows with nulls, parents,
children, multi-value picks and dates on both sides of day/week/month/quarter/year boundaries.

"Today" is Wednesday 2024-05-15: this week runs Sunday 05-12 .. Saturday 05-18.
"""

from __future__ import annotations

import sqlite3
from datetime import date
from pathlib import Path

from crmarena_tui.orgs.reference_schema import reference_schema
from crmarena_tui.orgs.schema import write_meta, write_schema

TODAY = date(2024, 5, 15)


def sfid(prefix: str, n: int) -> str:
    """An 18-character Salesforce-style Id: key prefix, zero-padded number, suffix."""
    return f"{prefix}{n:012d}AAA"


def U(n: int) -> str:
    return sfid("005", n)


def A(n: int) -> str:
    return sfid("001", n)


def C(n: int) -> str:
    return sfid("003", n)


def K(n: int) -> str:
    return sfid("500", n)


def OI(n: int) -> str:
    return sfid("802", n)


def I(n: int) -> str:  # noqa: E743 - issue ids
    return sfid("a03", n)


def dt(text: str) -> str:
    """'2024-05-15 09:00' -> the stored datetime form."""
    day, _, clock = text.partition(" ")
    clock = clock or "00:00:00"
    if clock.count(":") == 1:
        clock += ":00"
    return f"{day}T{clock}.000+0000"


USERS = [
    dict(
        Id=U(1),
        FirstName="Alice",
        LastName="Smith",
        Name="Alice Smith",
        Email="alice@example.com",
        Phone="(415) 555-0101",
        Username="alice@org",
        Alias="asmith",
        LanguageLocaleKey="en_US;fr",
        TimeZoneSidKey="America/Los_Angeles",
        IsActive=1,
    ),
    dict(
        Id=U(2),
        FirstName="Bob",
        LastName="Jones",
        Name="Bob Jones",
        Email="bob@example.com",
        Phone="(212) 555-0102",
        Username="bob@org",
        Alias="bjones",
        LanguageLocaleKey="en_US",
        TimeZoneSidKey="America/New_York",
        IsActive=1,
    ),
    dict(
        Id=U(3),
        FirstName="Carol",
        LastName="White",
        Name="Carol White",
        Email="carol@example.com",
        Phone="(312) 555-0103",
        Username="carol@org",
        Alias="cwhite",
        LanguageLocaleKey="de;en_US;fr",
        TimeZoneSidKey="America/Chicago",
        IsActive=0,
    ),
    dict(
        Id=U(4),
        FirstName="Dan",
        LastName="Brown",
        Name="Dan Brown",
        Email="dan@example.com",
        Phone=None,
        Username="dan@org",
        Alias="dbrown",
        LanguageLocaleKey=None,
        TimeZoneSidKey="America/Denver",
        IsActive=1,
    ),
    dict(
        Id=U(5),
        FirstName="Eve",
        LastName="Black",
        Name="Eve Black",
        Email="eve@sample.org",
        Phone="(617) 555-0105",
        Username="eve@org",
        Alias="eblack",
        LanguageLocaleKey="es",
        TimeZoneSidKey="America/New_York",
        IsActive=1,
    ),
]

ACCOUNTS = [
    dict(
        Id=A(1),
        Name="Acme Corp",
        Phone="(415) 555-0100",
        Industry="Technology",
        Description="Enterprise customer since 2019",
        NumberOfEmployees=500,
        ShippingState="CA",
    ),
    dict(
        Id=A(2),
        Name="Globex",
        Phone="(212) 555-0200",
        Industry="Finance",
        Description="Global bank",
        NumberOfEmployees=1200,
        ShippingState="NY",
    ),
    dict(
        Id=A(3),
        Name="Initech",
        Phone=None,
        Industry="Technology",
        Description="Software shop",
        NumberOfEmployees=50,
        ShippingState="CA",
    ),
    dict(
        Id=A(4),
        Name="Umbrella",
        Phone="(512) 555-0400",
        Industry="Healthcare",
        Description="Pharma",
        NumberOfEmployees=None,
        ShippingState="TX",
    ),
    dict(
        Id=A(5),
        Name="Hooli",
        Phone="(650) 555-0500",
        Industry=None,
        Description="Search and more",
        NumberOfEmployees=3000,
        ShippingState=None,
    ),
    dict(
        Id=A(6),
        Name="Stark Industries",
        Phone="(212) 555-0600",
        Industry="Manufacturing",
        Description=None,
        NumberOfEmployees=10000,
        ShippingState="NY",
    ),
]

CONTACTS = [
    dict(
        Id=C(1),
        FirstName="John",
        LastName="Doe",
        Name="John Doe",
        Email="john.doe@acme.com",
        AccountId=A(1),
    ),
    dict(
        Id=C(2),
        FirstName="Jane",
        LastName="Roe",
        Name="Jane Roe",
        Email="jane.roe@acme.com",
        AccountId=A(1),
    ),
    dict(
        Id=C(3),
        FirstName="Jim",
        LastName="Beam",
        Name="Jim Beam",
        Email="jim@globex.com",
        AccountId=A(2),
    ),
    dict(
        Id=C(4),
        FirstName="Sara",
        LastName="Lee",
        Name="Sara Lee",
        Email="sara@initech.com",
        AccountId=A(3),
    ),
    dict(
        Id=C(5),
        FirstName="Tom",
        LastName="Hanks",
        Name="Tom Hanks",
        Email="tom@nowhere.net",
        AccountId=None,
    ),
    dict(
        Id=C(6),
        FirstName="Anna",
        LastName="Bell",
        Name="Anna Bell",
        Email="anna@umbrella.com",
        AccountId=A(4),
    ),
    dict(Id=C(7), FirstName="Mike", LastName="Ross", Name="Mike Ross", Email=None, AccountId=A(2)),
    dict(
        Id=C(8),
        FirstName="Zoe",
        LastName="Quinn",
        Name="Zoe Quinn",
        Email="zoe@stark.com",
        AccountId=A(6),
    ),
]

ISSUES = [
    dict(Id=I(1), Name="Battery drain", Description__c="Battery empties quickly"),
    dict(Id=I(2), Name="Screen flicker", Description__c="Display flickers or goes dark"),
    dict(Id=I(3), Name="Login failure", Description__c="Cannot sign in"),
]

PRODUCTS = [
    dict(
        Id=sfid("01t", 1),
        Name="Router X",
        Description="Fast wifi router",
        IsActive=1,
        External_ID__c="SKU-1",
    ),
    dict(
        Id=sfid("01t", 2),
        Name="Switch Pro",
        Description="Managed switch",
        IsActive=1,
        External_ID__c="SKU-2",
    ),
    dict(
        Id=sfid("01t", 3),
        Name="Modem Lite",
        Description="Cheap modem",
        IsActive=0,
        External_ID__c=None,
    ),
    dict(Id=sfid("01t", 4), Name="Cable Kit", Description=None, IsActive=1, External_ID__c="SKU-4"),
]


def P(n: int) -> str:
    return sfid("01t", n)


def O(n: int) -> str:  # noqa: E743 - order ids
    return sfid("801", n)


ORDERS = [
    dict(Id=O(1), AccountId=A(1), Status="Activated", EffectiveDate="2024-01-10", OwnerId=U(1)),
    dict(Id=O(2), AccountId=A(2), Status="Activated", EffectiveDate="2024-03-05", OwnerId=U(2)),
    dict(Id=O(3), AccountId=A(3), Status="Draft", EffectiveDate="2024-04-20", OwnerId=U(1)),
    dict(Id=O(4), AccountId=A(1), Status="Activated", EffectiveDate="2023-12-31", OwnerId=U(3)),
    dict(Id=O(5), AccountId=A(4), Status="Draft", EffectiveDate=None, OwnerId=None),
]

ORDER_ITEMS = [
    dict(Id=OI(1), OrderId=O(1), Product2Id=P(1), Quantity=2.0, UnitPrice=100.0),
    dict(Id=OI(2), OrderId=O(1), Product2Id=P(2), Quantity=1.0, UnitPrice=250.5),
    dict(Id=OI(3), OrderId=O(2), Product2Id=P(1), Quantity=5.0, UnitPrice=90.0),
    dict(Id=OI(4), OrderId=O(3), Product2Id=P(3), Quantity=3.0, UnitPrice=40.0),
    dict(Id=OI(5), OrderId=O(4), Product2Id=P(4), Quantity=10.0, UnitPrice=5.0),
    dict(Id=OI(6), OrderId=O(2), Product2Id=P(2), Quantity=1.0, UnitPrice=260.0),
    dict(Id=OI(7), OrderId=O(5), Product2Id=P(1), Quantity=1.0, UnitPrice=None),
    dict(Id=OI(8), OrderId=O(3), Product2Id=P(4), Quantity=None, UnitPrice=6.0),
]


def _case(
    n: int,
    subject: str,
    desc: str | None,
    status: str,
    prio: str | None,
    contact: int | None,
    created: str,
    closed: str | None,
    oi: int | None,
    issue: int | None,
    acct: int | None,
    owner: int | None,
) -> dict:
    return dict(
        Id=K(n),
        Subject=subject,
        Description=desc,
        Status=status,
        Priority=prio,
        ContactId=C(contact) if contact else None,
        CreatedDate=dt(created),
        ClosedDate=dt(closed) if closed else None,
        OrderItemId__c=OI(oi) if oi else None,
        IssueId__c=I(issue) if issue else None,
        AccountId=A(acct) if acct else None,
        OwnerId=U(owner) if owner else None,
    )


CASES = [
    _case(
        1,
        "Battery drains fast",
        "Customer says the battery drains within hours",
        "Closed",
        "High",
        1,
        "2024-05-15 09:00",
        "2024-05-15 17:30",
        1,
        1,
        1,
        1,
    ),
    _case(
        2,
        "Screen flickers",
        "Screen flicker on boot",
        "Closed",
        "Medium",
        3,
        "2024-05-14 22:15",
        "2024-05-16 08:00",
        3,
        2,
        2,
        2,
    ),
    _case(
        3,
        "Cannot log in",
        "Login failure after the update",
        "New",
        "Low",
        4,
        "2024-05-12 00:00",
        None,
        4,
        3,
        3,
        1,
    ),
    _case(
        4,
        "Battery swelling",
        "Battery swelled; replacement requested",
        "Escalated",
        "High",
        2,
        "2024-05-11 23:59:59",
        None,
        2,
        1,
        1,
        3,
    ),
    _case(
        5, "Router drops wifi", None, "Working", None, 5, "2024-05-05 10:00", None, 1, None, None, 2
    ),
    _case(
        6,
        "Screen dead",
        "The screen went black",
        "Closed",
        "High",
        6,
        "2024-04-30 23:59:59",
        "2024-05-02 12:00",
        7,
        2,
        4,
        4,
    ),
    _case(
        7,
        "Login loop",
        "Login keeps looping",
        "Closed",
        "Medium",
        7,
        "2024-05-01 00:00",
        "2024-05-01 06:00",
        None,
        3,
        2,
        1,
    ),
    _case(
        8,
        "Battery not charging",
        "The battery will not charge",
        "Closed",
        "Low",
        1,
        "2024-03-31 23:00",
        "2024-04-02 10:00",
        5,
        1,
        1,
        2,
    ),
    _case(
        9,
        "Flicker again",
        "Screen flicker returns",
        "New",
        "High",
        3,
        "2024-04-01 00:00",
        None,
        3,
        2,
        2,
        None,
    ),
    _case(
        10,
        "Year end issue",
        "Issue at year end",
        "Closed",
        "Medium",
        8,
        "2023-12-31 23:59:59",
        "2024-01-03 09:00",
        5,
        1,
        6,
        3,
    ),
    _case(
        11,
        "New year issue",
        "Issue on new year",
        "Closed",
        "Low",
        8,
        "2024-01-01 00:00",
        "2024-01-01 12:00",
        None,
        None,
        6,
        4,
    ),
    _case(
        12,
        "Old case",
        "Legacy ticket",
        "Closed",
        None,
        None,
        "2022-06-15 08:00",
        "2022-06-20 08:00",
        None,
        3,
        5,
        1,
    ),
    _case(
        13,
        "Future case",
        "Scheduled follow up",
        "New",
        "Low",
        2,
        "2024-05-20 10:00",
        None,
        6,
        2,
        1,
        2,
    ),
    _case(
        14,
        "Battery recall",
        "Promo: 50% off_batteries \\ backslash",
        "Working",
        "High",
        4,
        "2024-02-14 12:00",
        None,
        4,
        1,
        3,
        4,
    ),
    _case(
        15,
        "Tomorrow case",
        "Created tomorrow",
        "New",
        "Medium",
        6,
        "2024-05-16 00:00",
        None,
        8,
        3,
        4,
        1,
    ),
    _case(
        16,
        "O'Brien complaint",
        "Customer O'Brien is unhappy",
        "Escalated",
        "High",
        7,
        "2024-02-29 15:00",
        None,
        6,
        None,
        2,
        3,
    ),
]

LEADS = [
    dict(
        Id=sfid("00Q", 1),
        FirstName="Ann",
        LastName="Lee",
        Name="Ann Lee",
        Email="ann@acme.com",
        Phone="555-1001",
        Company="Acme Corp",
        Status="Closed - Converted",
        Title="CTO",
        CreatedDate=dt("2024-04-01 10:00"),
        ConvertedDate="2024-04-10",
        IsConverted=1,
        OwnerId=U(1),
        ConvertedAccountId=A(1),
        ConvertedContactId=C(1),
    ),
    dict(
        Id=sfid("00Q", 2),
        FirstName="Ben",
        LastName="Cho",
        Name="Ben Cho",
        Email="ben@globex.com",
        Phone=None,
        Company="Globex",
        Status="Open",
        Title="Analyst",
        CreatedDate=dt("2024-05-14 10:00"),
        ConvertedDate=None,
        IsConverted=0,
        OwnerId=U(1),
    ),
    dict(
        Id=sfid("00Q", 3),
        FirstName="Cal",
        LastName="Poe",
        Name="Cal Poe",
        Email=None,
        Phone="555-1003",
        Company="Initech",
        Status="Working",
        Title=None,
        CreatedDate=dt("2024-03-10 09:30"),
        ConvertedDate=None,
        IsConverted=0,
        OwnerId=U(2),
    ),
    dict(
        Id=sfid("00Q", 4),
        FirstName="Dee",
        LastName="Ray",
        Name="Dee Ray",
        Email="dee@hooli.com",
        Phone="555-1004",
        Company="Hooli",
        Status="Closed - Not Converted",
        Title="Buyer",
        CreatedDate=dt("2023-11-11 11:11"),
        ConvertedDate=None,
        IsConverted=0,
        OwnerId=U(2),
    ),
    dict(
        Id=sfid("00Q", 5),
        FirstName="Eli",
        LastName="Fox",
        Name="Eli Fox",
        Email="eli@stark.com",
        Phone="555-1005",
        Company="Stark Industries",
        Status="Closed - Converted",
        Title="CEO",
        CreatedDate=dt("2024-02-02 08:00"),
        ConvertedDate="2024-05-01",
        IsConverted=1,
        OwnerId=U(3),
    ),
    dict(
        Id=sfid("00Q", 6),
        FirstName="Fay",
        LastName="Gun",
        Name="Fay Gun",
        Email="fay@mail.com",
        Phone=None,
        Company=None,
        Status="Open",
        Title=None,
        CreatedDate=dt("2024-05-15 00:00"),
        ConvertedDate=None,
        IsConverted=0,
        OwnerId=None,
    ),
    dict(
        Id=sfid("00Q", 7),
        FirstName="Gus",
        LastName="Hay",
        Name="Gus Hay",
        Email="gus@umbrella.com",
        Phone="555-1007",
        Company="Umbrella",
        Status="Closed - Converted",
        Title="Director",
        CreatedDate=dt("2023-12-01 12:00"),
        ConvertedDate="2023-12-31",
        IsConverted=1,
        OwnerId=U(1),
    ),
    dict(
        Id=sfid("00Q", 8),
        FirstName="Hal",
        LastName="Ivy",
        Name="Hal Ivy",
        Email="hal@acme.com",
        Phone="555-1008",
        Company="Acme Corp",
        Status="Working",
        Title="VP Sales",
        CreatedDate=dt("2024-01-15 15:45"),
        ConvertedDate=None,
        IsConverted=0,
        OwnerId=U(4),
    ),
]


def CT(n: int) -> str:
    return sfid("800", n)


def OP(n: int) -> str:
    return sfid("006", n)


CONTRACTS = [
    dict(
        Id=CT(1),
        AccountId=A(1),
        Status="Activated",
        StartDate="2024-05-01",
        CustomerSignedDate="2024-04-25",
        CompanySignedDate="2024-04-28",
        Description="Acme master agreement",
        ContractTerm=12,
    ),
    dict(
        Id=CT(2),
        AccountId=A(2),
        Status="Draft",
        StartDate=None,
        CustomerSignedDate=None,
        CompanySignedDate=None,
        Description="Globex draft",
        ContractTerm=None,
    ),
    dict(
        Id=CT(3),
        AccountId=A(6),
        Status="Activated",
        StartDate="2024-06-01",
        CustomerSignedDate="2024-05-18",
        CompanySignedDate="2024-05-20",
        Description="Stark deal",
        ContractTerm=24,
    ),
    dict(
        Id=CT(4),
        AccountId=A(3),
        Status="Activated",
        StartDate="2023-01-01",
        CustomerSignedDate="2022-12-10",
        CompanySignedDate="2022-12-15",
        Description="Initech legacy",
        ContractTerm=6,
    ),
]

OPPORTUNITIES = [
    dict(
        Id=OP(1),
        Name="Acme expansion",
        AccountId=A(1),
        OwnerId=U(1),
        StageName="Closed",
        Probability=100.0,
        Amount=50000.0,
        CloseDate="2024-04-30",
        CreatedDate=dt("2024-01-05 09:00"),
        ContractID__c=CT(1),
        ContactId=C(1),
        Description="Expand seats",
    ),
    dict(
        Id=OP(2),
        Name="Globex renewal",
        AccountId=A(2),
        OwnerId=U(2),
        StageName="Negotiation",
        Probability=70.0,
        Amount=120000.5,
        CloseDate="2024-06-15",
        CreatedDate=dt("2024-02-10 10:00"),
        ContractID__c=CT(2),
        ContactId=C(3),
        Description="Renewal",
    ),
    dict(
        Id=OP(3),
        Name="Initech pilot",
        AccountId=A(3),
        OwnerId=U(1),
        StageName="Qualification",
        Probability=10.0,
        Amount=None,
        CloseDate="2024-05-15",
        CreatedDate=dt("2024-05-01 08:00"),
        ContractID__c=None,
        ContactId=None,
        Description=None,
    ),
    dict(
        Id=OP(4),
        Name="Hooli deal",
        AccountId=A(5),
        OwnerId=U(3),
        StageName="Discovery",
        Probability=20.0,
        Amount=15000.0,
        CloseDate="2024-07-01",
        CreatedDate=dt("2024-03-01 14:00"),
        ContractID__c=None,
        ContactId=None,
        Description="Search appliance",
    ),
    dict(
        Id=OP(5),
        Name="Stark mega",
        AccountId=A(6),
        OwnerId=U(2),
        StageName="Quote",
        Probability=50.0,
        Amount=990000.0,
        CloseDate="2024-05-31",
        CreatedDate=dt("2024-04-15 16:00"),
        ContractID__c=CT(3),
        ContactId=C(8),
        Description="Arc reactor parts",
    ),
    dict(
        Id=OP(6),
        Name="Orphan opp",
        AccountId=None,
        OwnerId=None,
        StageName="Closed",
        Probability=100.0,
        Amount=2500.0,
        CloseDate="2023-12-31",
        CreatedDate=dt("2023-10-10 10:10"),
        ContractID__c=None,
        ContactId=None,
        Description="No account",
    ),
]

TASKS = [
    dict(
        Id=sfid("00T", 1),
        WhatId=OP(1),
        OwnerId=U(1),
        Priority="High",
        Status="Completed",
        ActivityDate="2024-04-01",
        Subject="Send proposal",
        Description="Proposal sent",
    ),
    dict(
        Id=sfid("00T", 2),
        WhatId=OP(2),
        OwnerId=U(2),
        Priority="Normal",
        Status="Not Started",
        ActivityDate="2024-05-20",
        Subject="Negotiate terms",
        Description=None,
    ),
    dict(
        Id=sfid("00T", 3),
        WhatId=OP(2),
        OwnerId=U(2),
        Priority="Low",
        Status="Not Started",
        ActivityDate="2024-05-10",
        Subject="Research competitors",
        Description="Background research",
    ),
    dict(
        Id=sfid("00T", 4),
        WhatId=OP(3),
        OwnerId=U(1),
        Priority="High",
        Status="In Progress",
        ActivityDate=None,
        Subject="Discovery call",
        Description=None,
    ),
    dict(
        Id=sfid("00T", 5),
        WhatId=OP(5),
        OwnerId=U(2),
        Priority="Normal",
        Status="Not Started",
        ActivityDate="2024-05-15",
        Subject="Prepare quote",
        Description="Pricing",
    ),
    dict(
        Id=sfid("00T", 6),
        WhatId=None,
        OwnerId=U(4),
        Priority="Low",
        Status="Completed",
        ActivityDate="2023-12-29",
        Subject="Orphan task",
        Description=None,
    ),
]

CASE_HISTORY = [
    dict(
        Id=sfid("a0x", 1),
        CaseId__c=K(1),
        Field__c="Owner Assignment",
        OldValue__c=None,
        NewValue__c=U(1),
        CreatedDate=dt("2024-05-15 09:00"),
    ),
    dict(
        Id=sfid("a0x", 2),
        CaseId__c=K(2),
        Field__c="Owner Assignment",
        OldValue__c=None,
        NewValue__c=U(1),
        CreatedDate=dt("2024-05-14 22:15"),
    ),
    dict(
        Id=sfid("a0x", 3),
        CaseId__c=K(2),
        Field__c="Owner Assignment",
        OldValue__c=U(1),
        NewValue__c=U(2),
        CreatedDate=dt("2024-05-15 08:00"),
    ),
    dict(
        Id=sfid("a0x", 4),
        CaseId__c=K(6),
        Field__c="Owner Assignment",
        OldValue__c=None,
        NewValue__c=U(4),
        CreatedDate=dt("2024-04-30 23:59:59"),
    ),
    dict(
        Id=sfid("a0x", 5),
        CaseId__c=K(7),
        Field__c="Owner Assignment",
        OldValue__c=None,
        NewValue__c=U(3),
        CreatedDate=dt("2024-05-01 00:00"),
    ),
    dict(
        Id=sfid("a0x", 6),
        CaseId__c=K(7),
        Field__c="Owner Assignment",
        OldValue__c=U(3),
        NewValue__c=U(1),
        CreatedDate=dt("2024-05-01 02:00"),
    ),
    dict(
        Id=sfid("a0x", 7),
        CaseId__c=K(7),
        Field__c="Case Closed",
        OldValue__c=None,
        NewValue__c=None,
        CreatedDate=dt("2024-05-01 06:00"),
    ),
    dict(
        Id=sfid("a0x", 8),
        CaseId__c=K(8),
        Field__c="Owner Assignment",
        OldValue__c=None,
        NewValue__c=U(2),
        CreatedDate=dt("2024-03-31 23:00"),
    ),
]

KNOWLEDGE = [
    dict(
        Id=sfid("ka0", 1),
        Title="Battery replacement policy",
        FAQ_Answer__c="Batteries are replaced free within 12 months of purchase.",
        Summary="Free battery replacement in the first year",
        UrlName="battery-policy",
    ),
    dict(
        Id=sfid("ka0", 2),
        Title="Discount approval rules",
        FAQ_Answer__c="Discounts above 20% need manager approval. Never exceed 35%.",
        Summary="Who approves discounts",
        UrlName="discount-rules",
    ),
    dict(
        Id=sfid("ka0", 3),
        Title="Screen flicker troubleshooting",
        FAQ_Answer__c="Update the display driver, then power-cycle the device.",
        Summary="Fix flickering screens",
        UrlName="screen-flicker",
    ),
]

EMAILS = [
    dict(
        Id=sfid("02s", 1),
        Subject="Re: battery",
        TextBody="Hello John, your battery is on its way.",
        ParentId=K(1),
        FromAddress="alice@example.com",
        ToIds=C(1),
        MessageDate=dt("2024-05-15 10:00"),
        RelatedToId=K(1),
    ),
    dict(
        Id=sfid("02s", 2),
        Subject="Screen issue",
        TextBody="Please restart the device and update drivers.",
        ParentId=K(2),
        FromAddress="bob@example.com",
        ToIds=C(3),
        MessageDate=dt("2024-05-15 09:00"),
        RelatedToId=K(2),
    ),
    dict(
        Id=sfid("02s", 3),
        Subject="Follow up",
        TextBody="Checking whether the battery arrived.",
        ParentId=K(1),
        FromAddress="alice@example.com",
        ToIds=C(1),
        MessageDate=dt("2024-05-16 10:00"),
        RelatedToId=K(1),
    ),
]

VOICE_CALLS = [
    dict(
        Id=sfid("a0V", 1),
        OpportunityId__c=OP(2),
        LeadId__c=None,
        Body__c="Customer worried about budget and timeline for the renewal.",
        CreatedDate=dt("2024-05-10 15:00"),
        EndTime__c=dt("2024-05-10 15:30"),
    ),
    dict(
        Id=sfid("a0V", 2),
        OpportunityId__c=None,
        LeadId__c=sfid("00Q", 2),
        Body__c="Lead confirmed the need and has authority to sign.",
        CreatedDate=dt("2024-05-14 11:00"),
        EndTime__c=dt("2024-05-14 11:20"),
    ),
]

TERRITORIES = [
    dict(Id=sfid("0MI", 1), Name="West", Description="CA, OR, WA"),
    dict(Id=sfid("0MI", 2), Name="East", Description="NY, NJ, MA"),
]

USER_TERRITORIES = [
    dict(Id=sfid("0R0", 1), UserId=U(1), Territory2Id=sfid("0MI", 1)),
    dict(Id=sfid("0R0", 2), UserId=U(2), Territory2Id=sfid("0MI", 2)),
    dict(Id=sfid("0R0", 3), UserId=U(4), Territory2Id=sfid("0MI", 1)),
]

TABLES: dict[str, list[dict]] = {
    "User": USERS,
    "Account": ACCOUNTS,
    "Contact": CONTACTS,
    "Issue__c": ISSUES,
    "Product2": PRODUCTS,
    "Order": ORDERS,
    "OrderItem": ORDER_ITEMS,
    "Case": CASES,
    "Lead": LEADS,
    "Contract": CONTRACTS,
    "Opportunity": OPPORTUNITIES,
    "Task": TASKS,
    "CaseHistory__c": CASE_HISTORY,
    "Knowledge__kav": KNOWLEDGE,
    "EmailMessage": EMAILS,
    "VoiceCallTranscript__c": VOICE_CALLS,
    "Territory2": TERRITORIES,
    "UserTerritory2Association": USER_TERRITORIES,
}


def build_fixture_org(path: Path, *, today: date | None = TODAY) -> Path:
    """Write the fixture org to `path` (a new SQLite file) and return the path."""
    conn = sqlite3.connect(path)
    try:
        write_schema(conn, reference_schema())
        meta = {"org_type": "b2b"}
        if today is not None:
            meta["today"] = today.isoformat()
        write_meta(conn, meta)
        for table, rows in TABLES.items():
            for row in rows:
                cols = ", ".join(f'"{c}"' for c in row)
                marks = ", ".join("?" for _ in row)
                conn.execute(f'INSERT INTO "{table}" ({cols}) VALUES ({marks})', list(row.values()))
        conn.commit()
    finally:
        conn.close()
    return path


# ---- comparing SOQL results with hand-written SQL -----------------------------------------------


def _select_items(soql: str) -> list[str]:
    """The top-level items between SELECT and FROM (the tests write keywords in upper case)."""
    start = soql.index("SELECT") + len("SELECT")
    depth = 0
    items: list[str] = []
    current = ""
    i = start
    while i < len(soql):
        ch = soql[i]
        if depth == 0 and soql.startswith(" FROM ", i):
            break
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            items.append(current.strip())
            current = ""
        else:
            current += ch
        i += 1
    items.append(current.strip())
    return [it for it in items if not it.startswith("(")]  # child subqueries are checked elsewhere


def record_values(records: list[dict], soql: str) -> list[tuple]:
    """Each record's selected values in SELECT order, following nested parents by path.

    Aggregate queries (GROUP BY or a function in the list) read flat keys: an alias, `exprN` for an
    unaliased function, else the field's last name (`Owner.Name` -> `Name`)."""
    items = _select_items(soql)
    aggregate = "GROUP BY" in soql or any("(" in it for it in items)
    getters = []
    expr_n = 0
    for item in items:
        words = item.split()
        if aggregate:
            if len(words) == 2:
                key = words[1]
            elif "(" in item:
                key = f"expr{expr_n}"
                expr_n += 1
            else:
                key = item.split(".")[-1]
            getters.append(lambda r, k=key: r[k])
        else:
            parts = words[0].split(".")

            def walk(r: dict, parts: list[str] = parts):
                value = r
                for p in parts:
                    if value is None:
                        return None
                    value = value[p]
                return value

            getters.append(walk)
    return [tuple(g(r) for g in getters) for r in records]


def _norm(row: tuple) -> tuple:
    return tuple(int(v) if isinstance(v, bool) else v for v in row)


def check_against_sql(
    org, raw: sqlite3.Connection, soql: str, sql: str, *, allow_empty: bool = False
) -> None:
    """Run `soql` on the org and `sql` on the raw file; the record values must agree."""
    res = org.query(soql)
    assert res.error is None, res.error
    expected = [_norm(tuple(r)) for r in raw.execute(sql)]
    if soql.startswith("SELECT COUNT() "):
        assert res.count_only and res.records == []
        assert res.total_size == expected[0][0]
        return
    assert allow_empty or expected, "a case should select something"
    got = [_norm(t) for t in record_values(res.records, soql)]
    assert res.total_size == len(res.records)
    if "ORDER BY" in soql:
        assert got == expected
    else:
        assert sorted(got, key=repr) == sorted(expected, key=repr)
