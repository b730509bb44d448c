"""One query per rule the strict org enforces: Salesforce's error in strict mode, today's answer
(as hand-written SQL over the fixture org, where one is given) with `--lenient`.

`doc` names the page of Salesforce's SOQL and SOSL Reference (or Object Reference) the rule was
checked against. Rows marked `issue` are the queries issue #19 lists.
"""

from __future__ import annotations

from dataclasses import dataclass

MQ, MS, IF = "MALFORMED_QUERY", "MALFORMED_SEARCH", "INVALID_FIELD"

FIELD_EXPR = "fieldExpression Syntax (WHERE: any field except a long text area)"
ORDER_BY = "ORDER BY (only sortable fields) / describe's sortable"
GROUP_BY = "Considerations for GROUP BY (describe's groupable)"
AGG_TYPES = "Support for Field Types in Aggregate Functions (describe's aggregatable)"
COUNT = "COUNT() and COUNT(fieldName)"
HAVING = "Considerations When Using HAVING"
SEMI = "Comparison Operators: semi-joins with IN and anti-joins with NOT IN"
DATES = "Date Formats and Date Literals (a date field takes a date, a dateTime field a dateTime)"
OFFSET = "OFFSET (a subquery's OFFSET needs LIMIT 1 on the outer query)"
SOSL_FIND = "SOSL Syntax: FIND {SearchQuery} (enclose the search query in curly braces)"
SOSL_WHERE = "SOSL WHERE / ORDER BY (the same field rules as SOQL)"
POLY = "Understanding Relationship Fields and Polymorphic Fields; Object Reference: Name"
# An alias only names a result column ("Use Aliases with GROUP BY": "Use a field alias to identify
# the field when you're processing the query results in your code"; HAVING: "conditional
# expressions using aggregate functions"; ORDER BY takes a fieldOrderByList). Salesforce reads
# `ORDER BY n` as a field n: "No such column 'n' on entity ..." (INVALID_FIELD), as reported from
# live orgs; so ORDER BY and HAVING repeat the aggregate: `ORDER BY COUNT(Id) DESC`.
# https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/sforce_api_calls_soql_select_groupby_alias.htm
ALIAS = "Use Aliases with GROUP BY (an alias names a result column, not an ORDER BY/HAVING term)"


@dataclass(frozen=True)
class Rule:
    query: str
    code: str
    message: str  # a fragment of the strict error message
    doc: str
    sql: str | None = None  # the lenient answer, or None: the lenient org just answers
    issue: bool = False


RULES: list[Rule] = [
    # ---- long text areas: not filterable, sortable, groupable or aggregatable
    Rule(
        "SELECT Id FROM Case WHERE Description = 'x'",
        IF,
        "field 'Description' can not be filtered in a query call",
        FIELD_EXPR,
        "SELECT Id FROM \"Case\" WHERE Description = 'x' COLLATE NOCASE",
        issue=True,
    ),
    Rule(
        "SELECT Subject FROM Case WHERE Description LIKE '%battery%'",
        IF,
        "field 'Description' can not be filtered",
        FIELD_EXPR,
        "SELECT Subject FROM \"Case\" WHERE Description LIKE '%battery%'",
    ),
    Rule(
        "SELECT Subject, Description FROM Case ORDER BY Description, Subject",
        IF,
        "field 'Description' can not be sorted in a query call",
        ORDER_BY,
        'SELECT Subject, Description FROM "Case" '
        "ORDER BY Description COLLATE NOCASE NULLS FIRST, Subject COLLATE NOCASE NULLS FIRST",
        issue=True,
    ),
    Rule(
        "SELECT Description, COUNT(Id) FROM Case GROUP BY Description",
        IF,
        "field 'Description' can not be grouped in a query call",
        GROUP_BY,
        'SELECT Description, COUNT(*) FROM "Case" GROUP BY Description',
    ),
    Rule(
        "SELECT COUNT(Description) FROM Case",
        IF,
        "field Description does not support aggregate operator COUNT",
        AGG_TYPES,
        'SELECT COUNT(Description) FROM "Case"',
    ),
    Rule(
        "SELECT Id, (SELECT Subject FROM Cases WHERE Description LIKE '%battery%') FROM Account",
        IF,
        "field 'Description' can not be filtered",
        FIELD_EXPR,
    ),
    # ---- other field properties: datetimes and money do not group, booleans do not aggregate
    Rule(
        "SELECT CreatedDate, COUNT(Id) FROM Case GROUP BY CreatedDate",
        IF,
        "field 'CreatedDate' can not be grouped",
        GROUP_BY,
        'SELECT CreatedDate, COUNT(*) FROM "Case" GROUP BY CreatedDate',
    ),
    Rule(
        "SELECT Amount, COUNT(Id) FROM Opportunity GROUP BY Amount",
        IF,
        "field 'Amount' can not be grouped",
        GROUP_BY,
        "SELECT Amount, COUNT(*) FROM Opportunity GROUP BY Amount",
    ),
    Rule(
        "SELECT COUNT(IsConverted) FROM Lead",
        IF,
        "field IsConverted does not support aggregate operator COUNT",
        AGG_TYPES,
        "SELECT COUNT(IsConverted) FROM Lead",
    ),
    # ---- COUNT()
    Rule(
        "SELECT COUNT() FROM Case GROUP BY Status",
        MQ,
        "COUNT() can not be used with GROUP BY",
        COUNT,
        'SELECT COUNT(*) FROM (SELECT 1 FROM "Case" GROUP BY Status)',
        issue=True,
    ),
    Rule(
        "SELECT COUNT() FROM Case ORDER BY Status",
        MQ,
        "COUNT() can not be used with ORDER BY",
        COUNT,
        'SELECT COUNT(*) FROM "Case"',
    ),
    # ---- aggregate queries: HAVING, ORDER BY and LIMIT
    Rule(
        "SELECT Status, COUNT(Id) FROM Case GROUP BY Status HAVING Priority = 'High'",
        MQ,
        "Field must be grouped or aggregated: Priority",
        HAVING,
        issue=True,
    ),
    Rule(
        "SELECT AccountId, COUNT(Id) FROM Case GROUP BY AccountId "
        "HAVING AccountId IN (SELECT AccountId FROM Contact)",
        MQ,
        "not allowed in a HAVING clause",
        HAVING,
        'SELECT AccountId, COUNT(*) FROM "Case" GROUP BY AccountId '
        "HAVING AccountId IN (SELECT AccountId FROM Contact WHERE AccountId IS NOT NULL)",
    ),
    Rule(
        "SELECT Status, COUNT(Id) FROM Case GROUP BY Status ORDER BY Priority",
        MQ,
        "Ordered field must be grouped or aggregated: Priority",
        GROUP_BY,
    ),
    Rule(
        "SELECT OwnerId, COUNT(Id) n FROM Case GROUP BY OwnerId ORDER BY COUNT(Id) DESC, n",
        IF,
        "No such column 'n' on entity 'Case'",
        ALIAS,
        issue=True,
    ),
    Rule(
        "SELECT Status, COUNT(Id) c FROM Case GROUP BY Status HAVING c > 1",
        IF,
        "No such column 'c' on entity 'Case'",
        ALIAS,
        'SELECT Status, COUNT(*) FROM "Case" GROUP BY Status HAVING COUNT(*) > 1',
        issue=True,
    ),
    Rule(
        "SELECT MAX(CreatedDate) FROM Case LIMIT 1",
        MQ,
        "LIMIT needs a GROUP BY clause",
        GROUP_BY,
        'SELECT MAX(CreatedDate) FROM "Case" LIMIT 1',
    ),
    # ---- semi- and anti-joins
    Rule(
        "SELECT Id FROM Case WHERE Id IN (SELECT Id FROM Case WHERE Status = 'Closed')",
        MQ,
        "The inner and outer selects should not be on the same object type",
        SEMI,
        "SELECT Id FROM \"Case\" WHERE Status = 'Closed'",
        issue=True,
    ),
    Rule(
        "SELECT Id FROM Case WHERE AccountId IN (SELECT AccountId FROM Contact) "
        "AND ContactId IN (SELECT Id FROM Contact) AND OwnerId IN (SELECT Id FROM User)",
        MQ,
        "at most 2 semi join or anti join sub-selects",
        SEMI,
        'SELECT Id FROM "Case" WHERE AccountId IN (SELECT AccountId FROM Contact) '
        "AND ContactId IN (SELECT Id FROM Contact) AND OwnerId IN (SELECT Id FROM User)",
        issue=True,
    ),
    Rule(
        "SELECT Id FROM Case WHERE ContactId IN "
        "(SELECT Id FROM Contact WHERE AccountId IN (SELECT Id FROM Account))",
        MQ,
        "Nesting of semi join sub-selects is not supported",
        SEMI,
        'SELECT Id FROM "Case" WHERE ContactId IN '
        "(SELECT Id FROM Contact WHERE AccountId IN (SELECT Id FROM Account))",
        issue=True,
    ),
    Rule(
        "SELECT Id FROM Account WHERE Id IN (SELECT Name FROM Contact)",
        MQ,
        "semi join sub selects can only query id fields, cannot use: 'Name'",
        SEMI,
        "SELECT Id FROM Account WHERE Id IN (SELECT Name FROM Contact)",
        issue=True,
    ),
    Rule(
        "SELECT Id FROM Case WHERE Status = 'New' "
        "AND (Priority = 'High' OR AccountId IN (SELECT AccountId FROM Contact))",
        MQ,
        "only allowed at the top level WHERE expressions",
        SEMI,
        "SELECT Id FROM \"Case\" WHERE Status = 'New' "
        "AND (Priority = 'High' OR AccountId IN (SELECT AccountId FROM Contact))",
    ),
    Rule(
        "SELECT Name FROM Account WHERE Industry = 'Technology' "
        "OR Id IN (SELECT AccountId FROM Contact)",
        MQ,
        "Semi join sub-selects are not allowed with the 'OR' operator",
        SEMI,
        "SELECT Name FROM Account WHERE Industry = 'Technology' "
        "OR Id IN (SELECT AccountId FROM Contact)",
    ),
    Rule(
        "SELECT Id FROM Case WHERE NOT (AccountId IN (SELECT AccountId FROM Contact))",
        MQ,
        "only allowed at the top level WHERE expressions",
        SEMI,
        'SELECT Id FROM "Case" WHERE AccountId IS NULL OR AccountId NOT IN '
        "(SELECT AccountId FROM Contact WHERE AccountId IS NOT NULL)",
    ),
    Rule(
        "SELECT Id FROM Case WHERE Subject IN (SELECT Name FROM Account)",
        MQ,
        "can only be compared with an Id or reference field of Case, not with 'Subject'",
        SEMI,
        'SELECT Id FROM "Case" WHERE Subject IN (SELECT Name FROM Account)',
    ),
    Rule(
        "SELECT Id FROM Contact WHERE Account.Id IN (SELECT AccountId FROM Opportunity)",
        MQ,
        "not with 'Account.Id'",
        SEMI,
        "SELECT Id FROM Contact WHERE AccountId IN (SELECT AccountId FROM Opportunity)",
    ),
    Rule(
        "SELECT Id FROM Case WHERE AccountId IN (SELECT ContactId FROM Opportunity)",
        MQ,
        "'ContactId' refers to Contact, but 'AccountId' refers to Account",
        SEMI,
        'SELECT Id FROM "Case" WHERE AccountId IN (SELECT ContactId FROM Opportunity)',
    ),
    Rule(
        "SELECT Id FROM Account WHERE Id IN (SELECT AccountId FROM Opportunity ORDER BY Name)",
        MQ,
        "semi join sub-selects can not use ORDER BY",
        SEMI,
        "SELECT Id FROM Account WHERE Id IN (SELECT AccountId FROM Opportunity)",
    ),
    Rule(
        "SELECT Id FROM Account WHERE Id IN (SELECT AccountId FROM Opportunity LIMIT 2)",
        MQ,
        "semi join sub-selects can not use LIMIT",
        SEMI,
    ),
    Rule(
        "SELECT Id FROM Opportunity WHERE Id IN (SELECT WhatId FROM Task)",
        MQ,
        "Entity 'Task' is not supported for semi join inner selects",
        SEMI,
        "SELECT Id FROM Opportunity WHERE Id IN (SELECT WhatId FROM Task)",
    ),
    # ---- dates and datetimes
    Rule(
        "SELECT Id FROM Case WHERE CreatedDate = 2024-05-12",
        IF,
        "value of filter criterion for field 'CreatedDate' must be of type dateTime",
        DATES,
        "SELECT Id FROM \"Case\" WHERE CreatedDate >= '2024-05-12' AND CreatedDate < '2024-05-13'",
        issue=True,
    ),
    Rule(
        "SELECT Id FROM Order WHERE EffectiveDate = 2024-01-10T00:00:00Z",
        IF,
        "value of filter criterion for field 'EffectiveDate' must be of type date",
        DATES,
        "SELECT Id FROM \"Order\" WHERE EffectiveDate = '2024-01-10'",
    ),
    # ---- polymorphic references read the Name object's fields only
    Rule(
        "SELECT Id, What.StageName FROM Task ORDER BY Id",
        IF,
        "No such column 'StageName' on entity 'Name'",
        POLY,
        "SELECT t.Id, o.StageName FROM Task t LEFT JOIN Opportunity o ON o.Id = t.WhatId "
        "ORDER BY t.Id",
    ),
    Rule(
        "SELECT Id, Owner.TimeZoneSidKey FROM Case",
        IF,
        "No such column 'TimeZoneSidKey' on entity 'Name'",
        POLY,
        'SELECT c.Id, u.TimeZoneSidKey FROM "Case" c LEFT JOIN User u ON u.Id = c.OwnerId',
    ),
    Rule(
        "SELECT Id, What.Account.Name FROM Task",
        IF,
        "Didn't understand relationship 'Account'",
        POLY,
    ),
    # ---- OFFSET in a child subquery
    Rule(
        "SELECT Id, (SELECT Id FROM Cases OFFSET 1) FROM Account",
        MQ,
        "a subquery can use OFFSET only when the outer query has LIMIT 1",
        OFFSET,
    ),
    # ---- SOSL
    Rule(
        "FIND 'battery' RETURNING Case",
        MS,
        "unexpected token",
        SOSL_FIND,
    ),
    Rule(
        "FIND {battery} RETURNING Case(Id WHERE Description LIKE '%swell%')",
        IF,
        "field 'Description' can not be filtered",
        SOSL_WHERE,
    ),
    Rule(
        "FIND {battery} RETURNING Case(Id, Subject ORDER BY Description)",
        IF,
        "field 'Description' can not be sorted",
        SOSL_WHERE,
    ),
    # ---- LIKE escapes, OR, dates and a polymorphic filter the SOQL-vs-SQL tests answered before
    Rule(
        "SELECT Subject, What.Name FROM Task WHERE What.StageName = 'Negotiation'",
        "INVALID_FIELD",
        "No such column 'StageName' on entity 'Name'",
        POLY,
        "SELECT t.Subject, o.Name FROM Task t JOIN Opportunity o ON o.Id = t.WhatId WHERE o.StageName = 'Negotiation'",
    ),
    Rule(
        "SELECT Id, Name FROM Account WHERE Description LIKE '%customer%'",
        "INVALID_FIELD",
        "field 'Description' can not be filtered",
        FIELD_EXPR,
        "SELECT Id, Name FROM Account WHERE instr(lower(Description), 'customer') > 0",
    ),
    Rule(
        "SELECT Name FROM Account WHERE Id IN (SELECT AccountId FROM Opportunity WHERE StageName = 'Closed') OR Id IN (SELECT AccountId FROM Order WHERE Status = 'Draft')",
        "MALFORMED_QUERY",
        "not allowed with the 'OR' operator",
        SEMI,
        "SELECT Name FROM Account WHERE Name IN ('Acme Corp', 'Initech', 'Umbrella')",
    ),
    Rule(
        "SELECT Subject FROM Case WHERE Description LIKE '%O\\'Brien%'",
        "INVALID_FIELD",
        "field 'Description' can not be filtered",
        FIELD_EXPR,
        "SELECT Subject FROM \"Case\" WHERE instr(Description, 'O''Brien') > 0",
    ),
    Rule(
        "SELECT Subject FROM Case WHERE Description LIKE '%50\\% off%'",
        "INVALID_FIELD",
        "field 'Description' can not be filtered",
        FIELD_EXPR,
        "SELECT Subject FROM \"Case\" WHERE instr(Description, '50% off') > 0",
    ),
    Rule(
        "SELECT Subject FROM Case WHERE Description LIKE '%off\\_bat%'",
        "INVALID_FIELD",
        "field 'Description' can not be filtered",
        FIELD_EXPR,
        "SELECT Subject FROM \"Case\" WHERE instr(Description, 'off_bat') > 0",
    ),
    Rule(
        "SELECT Subject FROM Case WHERE Description LIKE '%\\\\ back%'",
        "INVALID_FIELD",
        "field 'Description' can not be filtered",
        FIELD_EXPR,
        "SELECT Subject FROM \"Case\" WHERE instr(Description, '\\ back') > 0",
    ),
    Rule(
        "SELECT Subject FROM Case WHERE Subject LIKE 'Battery%' AND (NOT Description LIKE '%swell%')",
        "INVALID_FIELD",
        "field 'Description' can not be filtered",
        FIELD_EXPR,
        "SELECT Subject FROM \"Case\" WHERE Subject LIKE 'Battery%' AND Description NOT LIKE '%swell%'",
    ),
    Rule(
        "SELECT Id FROM Order WHERE EffectiveDate = 2024-01-10T00:00:00Z",
        "INVALID_FIELD",
        "must be of type date and",
        DATES,
        "SELECT Id FROM \"Order\" WHERE EffectiveDate = '2024-01-10'",
    ),
    Rule(
        "SELECT Id FROM Order WHERE EffectiveDate < 2024-03-05T10:00:00Z",
        "INVALID_FIELD",
        "must be of type date and",
        DATES,
        "SELECT Id FROM \"Order\" WHERE EffectiveDate <= '2024-03-05'",
    ),
    Rule(
        "SELECT Subject FROM Case WHERE CreatedDate = 2024-05-12",
        "INVALID_FIELD",
        "must be of type dateTime",
        DATES,
        "SELECT Subject FROM \"Case\" WHERE CreatedDate >= '2024-05-12T00:00:00.000+0000' AND CreatedDate < '2024-05-13T00:00:00.000+0000'",
    ),
    Rule(
        "SELECT Subject FROM Case WHERE CreatedDate > 2024-05-12",
        "INVALID_FIELD",
        "must be of type dateTime",
        DATES,
        "SELECT Subject FROM \"Case\" WHERE CreatedDate >= '2024-05-13'",
    ),
    Rule(
        "SELECT Subject FROM Case WHERE CreatedDate <= 2024-05-11",
        "INVALID_FIELD",
        "must be of type dateTime",
        DATES,
        "SELECT Subject FROM \"Case\" WHERE CreatedDate < '2024-05-12'",
    ),
]

# Queries on the edge of a rule that Salesforce allows: the strict org answers them.
ALLOWED: list[str] = [
    "SELECT Name FROM Product2 WHERE Description LIKE '%router%' ORDER BY Description",
    "SELECT Id FROM Territory2 WHERE Description LIKE '%CA%'",
    "SELECT Id FROM Account WHERE Id IN (SELECT AccountId FROM Contact) "
    "AND Id IN (SELECT AccountId FROM Opportunity)",
    "SELECT Id FROM Account WHERE Id NOT IN (SELECT AccountId FROM Opportunity)",
    "SELECT Id FROM Case WHERE CreatedDate = 2024-05-12T00:00:00Z",
    "SELECT Id FROM Case WHERE CreatedDate = LAST_N_DAYS:3",
    "SELECT Id FROM Order WHERE EffectiveDate = 2024-01-10",
    "SELECT CALENDAR_MONTH(CreatedDate), COUNT(Id) FROM Case GROUP BY CALENDAR_MONTH(CreatedDate) "
    "ORDER BY CALENDAR_MONTH(CreatedDate)",
    "SELECT DAY_ONLY(CreatedDate), COUNT(Id) FROM Case GROUP BY DAY_ONLY(CreatedDate)",
    "SELECT IsActive, COUNT(Id) FROM User GROUP BY IsActive",
    "SELECT OwnerId, COUNT(Id) n FROM Case GROUP BY OwnerId ORDER BY COUNT(Id) DESC, OwnerId",
    "SELECT Status, COUNT(Id) c FROM Case GROUP BY Status HAVING COUNT(Id) > 1",
    "SELECT Status, COUNT(Id) FROM Case GROUP BY Status HAVING Status != 'Closed' LIMIT 2",
    "SELECT COUNT() FROM Case LIMIT 3",
    "SELECT Id, Description FROM Case",
    "SELECT Id, Owner.Name, Owner.Email FROM Case",
    "SELECT Subject, What.Name, What.Id FROM Task",
    "SELECT Id, Owner.TimeZoneSidKey FROM Opportunity",
    "SELECT Id, (SELECT Id FROM Cases OFFSET 1) FROM Account LIMIT 1",
    "SELECT CaseId__c FROM CaseHistory__c WHERE CaseId__c IN (SELECT Id FROM Case)",
    "FIND {battery} RETURNING Case(Id, Description WHERE Status != 'Closed' ORDER BY Subject)",
]
