"""SOQL against hand-written SQL on the same fixture org: filters, null semantics, booleans, parent
paths, ordering, semi-joins, INCLUDES/EXCLUDES and literal escapes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from crmarena_tui.orgs.local import LocalOrg
from tests.support.soql_fixture_support import OI, A, K, P, U, build_fixture_org, check_against_sql
from tests.support.soql_rules_support import RULES, Rule

ACC = "SELECT Id, Name FROM Account"

CASES: list[tuple[str, str]] = [
    # ---- text fields, = is case-insensitive, != and NOT IN keep nulls
    ("SELECT Id, Name FROM Account", "SELECT Id, Name FROM Account"),
    (f"{ACC} WHERE Industry = 'Technology'", f"{ACC} WHERE Industry = 'Technology'"),
    (f"{ACC} WHERE Industry = 'technology'", f"{ACC} WHERE lower(Industry) = 'technology'"),
    (
        f"{ACC} WHERE Industry != 'Technology'",
        f"{ACC} WHERE Industry IS NULL OR Industry <> 'Technology'",
    ),
    (
        f"{ACC} WHERE Industry <> 'Finance'",
        f"{ACC} WHERE Industry IS NULL OR Industry <> 'Finance'",
    ),
    (f"{ACC} WHERE Industry = null", f"{ACC} WHERE Industry IS NULL"),
    (f"{ACC} WHERE Industry != null", f"{ACC} WHERE Industry IS NOT NULL"),
    (
        f"{ACC} WHERE Industry IN ('Finance', 'Healthcare')",
        f"{ACC} WHERE Industry IN ('Finance', 'Healthcare')",
    ),
    (
        f"{ACC} WHERE Industry IN ('FINANCE', 'healthcare')",
        f"{ACC} WHERE Industry IN ('Finance', 'Healthcare')",
    ),
    (
        f"{ACC} WHERE Industry NOT IN ('Finance', 'Healthcare')",
        f"{ACC} WHERE Industry IS NULL OR Industry NOT IN ('Finance', 'Healthcare')",
    ),
    (
        f"{ACC} WHERE Industry IN ('Finance', null)",
        f"{ACC} WHERE Industry = 'Finance' OR Industry IS NULL",
    ),
    (
        f"{ACC} WHERE Industry NOT IN ('Finance', null)",
        f"{ACC} WHERE Industry IS NOT NULL AND Industry <> 'Finance'",
    ),
    (f"{ACC} WHERE Name LIKE 'Acme%'", f"{ACC} WHERE substr(Name, 1, 4) = 'Acme'"),
    (f"{ACC} WHERE Name LIKE '%co%'", f"{ACC} WHERE instr(lower(Name), 'co') > 0"),
    (f"{ACC} WHERE Name LIKE '_nitech'", f"{ACC} WHERE Name = 'Initech'"),
    (f"{ACC} WHERE NOT Name LIKE 'A%'", f"{ACC} WHERE substr(Name, 1, 1) <> 'A'"),
    (
        f"{ACC} WHERE Industry = 'Technology' AND (NOT Name LIKE '%o%')",
        f"{ACC} WHERE Industry = 'Technology' AND instr(lower(Name), 'o') = 0",
    ),
    (
        f"{ACC} WHERE (Industry = 'Finance' AND ShippingState = 'NY') OR NumberOfEmployees < 100",
        f"{ACC} WHERE Name IN ('Globex', 'Initech')",
    ),
    (
        f"{ACC} WHERE Industry = 'Technology' AND (ShippingState = 'NY' OR NumberOfEmployees < 100)",
        f"{ACC} WHERE Name = 'Initech'",
    ),
    (
        f"{ACC} WHERE ShippingState = 'CA' AND NumberOfEmployees > 100",
        f"{ACC} WHERE ShippingState = 'CA' AND NumberOfEmployees > 100",
    ),
    (
        f"{ACC} WHERE ShippingState = 'CA' OR ShippingState = 'TX'",
        f"{ACC} WHERE ShippingState IN ('CA', 'TX')",
    ),
    (
        f"{ACC} WHERE (ShippingState = 'NY' OR Industry = 'Technology') AND NumberOfEmployees < 2000",
        f"{ACC} WHERE (ShippingState = 'NY' OR Industry = 'Technology') AND NumberOfEmployees < 2000",
    ),
    (
        f"{ACC} WHERE NOT (ShippingState = 'CA')",
        f"{ACC} WHERE ShippingState IS NULL OR ShippingState <> 'CA'",
    ),
    (
        f"{ACC} WHERE NOT (ShippingState = 'CA' OR Industry = 'Finance')",
        f"{ACC} WHERE (ShippingState IS NULL OR ShippingState <> 'CA') "
        "AND (Industry IS NULL OR Industry <> 'Finance')",
    ),
    (
        f"{ACC} WHERE NOT (ShippingState = 'NY' AND Industry = 'Finance')",
        f"{ACC} WHERE Name <> 'Globex'",
    ),
    (f"{ACC} WHERE NOT (NOT (Industry = 'Finance'))", f"{ACC} WHERE Industry = 'Finance'"),
    (
        f"{ACC} WHERE NOT (Industry IN ('Finance') OR NumberOfEmployees = null)",
        f"{ACC} WHERE (Industry IS NULL OR Industry <> 'Finance') AND NumberOfEmployees IS NOT NULL",
    ),
    (f"{ACC} WHERE NumberOfEmployees >= 500", f"{ACC} WHERE NumberOfEmployees >= 500"),
    (f"{ACC} WHERE NumberOfEmployees <= 500", f"{ACC} WHERE NumberOfEmployees <= 500"),
    (
        f"{ACC} WHERE NumberOfEmployees != 50",
        f"{ACC} WHERE NumberOfEmployees IS NULL OR NumberOfEmployees <> 50",
    ),
    (f"{ACC} WHERE NumberOfEmployees = null", f"{ACC} WHERE NumberOfEmployees IS NULL"),
    (
        f"{ACC} WHERE NumberOfEmployees IN (50, 500, 3000)",
        f"{ACC} WHERE NumberOfEmployees IN (50, 500, 3000)",
    ),
    (
        f"{ACC} WHERE NumberOfEmployees NOT IN (50, 500)",
        f"{ACC} WHERE NumberOfEmployees IS NULL OR NumberOfEmployees NOT IN (50, 500)",
    ),
    (f"{ACC} WHERE NumberOfEmployees > 100.5", f"{ACC} WHERE NumberOfEmployees > 100.5"),
    (f"{ACC} WHERE NumberOfEmployees < 1e3", f"{ACC} WHERE NumberOfEmployees < 1000"),
    (f"{ACC} WHERE Phone LIKE '(212)%'", f"{ACC} WHERE substr(Phone, 1, 5) = '(212)'"),
    (f"{ACC} WHERE Name < 'h'", f"{ACC} WHERE upper(substr(Name, 1, 1)) < 'H'"),
    (
        f"{ACC} WHERE Name >= 'Initech' AND Name <= 'STARK INDUSTRIES'",
        f"{ACC} WHERE Name IN ('Initech', 'Stark Industries')",
    ),
    # ---- ordering, limits, offsets
    (f"{ACC} ORDER BY Name", f"{ACC} ORDER BY Name"),
    (
        "SELECT Name, NumberOfEmployees FROM Account ORDER BY NumberOfEmployees DESC",
        "SELECT Name, NumberOfEmployees FROM Account ORDER BY NumberOfEmployees IS NULL, NumberOfEmployees DESC",
    ),
    (
        "SELECT Name, NumberOfEmployees FROM Account ORDER BY NumberOfEmployees ASC",
        "SELECT Name, NumberOfEmployees FROM Account ORDER BY NumberOfEmployees IS NOT NULL, NumberOfEmployees",
    ),
    (
        "SELECT Name FROM Account ORDER BY NumberOfEmployees ASC NULLS LAST",
        "SELECT Name FROM Account ORDER BY NumberOfEmployees IS NULL, NumberOfEmployees",
    ),
    (
        "SELECT Name FROM Account ORDER BY NumberOfEmployees DESC NULLS FIRST",
        "SELECT Name FROM Account ORDER BY NumberOfEmployees IS NOT NULL, NumberOfEmployees DESC",
    ),
    (
        "SELECT Name, Industry FROM Account ORDER BY Industry, Name",
        "SELECT Name, Industry FROM Account ORDER BY Industry IS NOT NULL, Industry, Name",
    ),
    (f"{ACC} ORDER BY Name LIMIT 2", "SELECT Id, Name FROM Account ORDER BY Name LIMIT 2"),
    (f"{ACC} ORDER BY Name LIMIT 2 OFFSET 2", f"{ACC} ORDER BY Name LIMIT 2 OFFSET 2"),
    (f"{ACC} ORDER BY Name OFFSET 4", f"{ACC} ORDER BY Name LIMIT -1 OFFSET 4"),
    (
        "SELECT Name, ShippingState FROM Account ORDER BY ShippingState DESC, Name ASC",
        "SELECT Name, ShippingState FROM Account ORDER BY ShippingState IS NULL, ShippingState DESC, Name",
    ),
    (
        "SELECT Name FROM Account WHERE Industry = 'Technology' ORDER BY Name DESC LIMIT 1",
        "SELECT Name FROM Account WHERE Industry = 'Technology' ORDER BY Name DESC LIMIT 1",
    ),
    # ---- booleans
    (
        "SELECT Id, Name FROM User WHERE IsActive = true",
        "SELECT Id, Name FROM User WHERE IsActive = 1",
    ),
    (
        "SELECT Id, Name FROM User WHERE IsActive = FALSE",
        "SELECT Id, Name FROM User WHERE IsActive = 0",
    ),
    (
        "SELECT Id, Name FROM User WHERE IsActive != true",
        "SELECT Id, Name FROM User WHERE IsActive = 0",
    ),
    (
        "SELECT Name, IsActive FROM Product2 WHERE IsActive = TRUE AND Name LIKE '%o%'",
        "SELECT Name, IsActive FROM Product2 WHERE IsActive = 1 AND instr(lower(Name), 'o') > 0",
    ),
    (
        "SELECT Name, IsActive FROM Product2 ORDER BY Name",
        "SELECT Name, IsActive FROM Product2 ORDER BY Name",
    ),
    (
        "SELECT Name FROM Lead WHERE IsConverted = true AND Status = 'Closed - Converted'",
        "SELECT Name FROM Lead WHERE IsConverted = 1",
    ),
    # ---- parent paths (LEFT JOIN; a missing parent is null)
    (
        "SELECT Id, Account.Name FROM Contact",
        "SELECT c.Id, a.Name FROM Contact c LEFT JOIN Account a ON a.Id = c.AccountId",
    ),
    (
        "SELECT Id, Account.Name, Account.Industry FROM Contact WHERE Account.Industry = 'Technology'",
        "SELECT c.Id, a.Name, a.Industry FROM Contact c JOIN Account a ON a.Id = c.AccountId "
        "WHERE a.Industry = 'Technology'",
    ),
    (
        "SELECT Id, Name FROM Contact WHERE Account.Name = null",
        "SELECT Id, Name FROM Contact WHERE AccountId IS NULL",
    ),
    (
        "SELECT Name FROM Contact WHERE Account.ShippingState != 'CA'",
        "SELECT c.Name FROM Contact c LEFT JOIN Account a ON a.Id = c.AccountId "
        "WHERE a.ShippingState IS NULL OR a.ShippingState <> 'CA'",
    ),
    (
        "SELECT Subject, Owner.Name FROM Case WHERE Owner.Name = 'alice smith'",
        "SELECT c.Subject, u.Name FROM \"Case\" c JOIN User u ON u.Id = c.OwnerId WHERE u.Name = 'Alice Smith'",
    ),
    (
        "SELECT Subject, Account.Name, Owner.Name FROM Case ORDER BY Subject",
        'SELECT c.Subject, a.Name, u.Name FROM "Case" c LEFT JOIN Account a ON a.Id = c.AccountId '
        "LEFT JOIN User u ON u.Id = c.OwnerId ORDER BY c.Subject",
    ),
    (
        "SELECT Id, OrderItemId__r.Order.Account.ShippingState FROM Case",
        'SELECT c.Id, a.ShippingState FROM "Case" c LEFT JOIN OrderItem oi ON oi.Id = c.OrderItemId__c '
        'LEFT JOIN "Order" o ON o.Id = oi.OrderId LEFT JOIN Account a ON a.Id = o.AccountId',
    ),
    (
        "SELECT Id, OrderItemId__r.Order.Account.Name FROM Case WHERE OrderItemId__r.Order.Account.ShippingState = 'CA'",
        'SELECT c.Id, a.Name FROM "Case" c JOIN OrderItem oi ON oi.Id = c.OrderItemId__c '
        "JOIN \"Order\" o ON o.Id = oi.OrderId JOIN Account a ON a.Id = o.AccountId WHERE a.ShippingState = 'CA'",
    ),
    (
        "SELECT Id, Product2.Name, Order.Account.Name, Order.Status FROM OrderItem",
        "SELECT oi.Id, p.Name, a.Name, o.Status FROM OrderItem oi LEFT JOIN Product2 p ON p.Id = oi.Product2Id "
        'LEFT JOIN "Order" o ON o.Id = oi.OrderId LEFT JOIN Account a ON a.Id = o.AccountId',
    ),
    (
        "SELECT Subject, IssueId__r.Name FROM Case WHERE IssueId__r.Name = 'Battery drain'",
        "SELECT c.Subject, i.Name FROM \"Case\" c JOIN Issue__c i ON i.Id = c.IssueId__c WHERE i.Name = 'Battery drain'",
    ),
    (
        "SELECT Id FROM Case WHERE OrderItemId__r.Product2.Name = 'Router X'",
        'SELECT c.Id FROM "Case" c JOIN OrderItem oi ON oi.Id = c.OrderItemId__c '
        "JOIN Product2 p ON p.Id = oi.Product2Id WHERE p.Name = 'Router X'",
    ),
    (
        "SELECT Name, ContractID__r.CompanySignedDate FROM Opportunity WHERE ContractID__r.CompanySignedDate != null",
        "SELECT o.Name, ct.CompanySignedDate FROM Opportunity o JOIN Contract ct ON ct.Id = o.ContractID__c "
        "WHERE ct.CompanySignedDate IS NOT NULL",
    ),
    (
        "SELECT Subject, What.Name FROM Task WHERE What.Name LIKE '%Renewal%'",
        "SELECT t.Subject, o.Name FROM Task t JOIN Opportunity o ON o.Id = t.WhatId WHERE o.Name LIKE '%Renewal%'",
    ),
    (
        "SELECT Id, Owner.Name, Account.Name FROM Order ORDER BY Id",
        'SELECT o.Id, u.Name, a.Name FROM "Order" o LEFT JOIN User u ON u.Id = o.OwnerId '
        "LEFT JOIN Account a ON a.Id = o.AccountId ORDER BY o.Id",
    ),
    (
        "SELECT Subject FROM Case ORDER BY Account.Name NULLS LAST, Subject",
        'SELECT c.Subject FROM "Case" c LEFT JOIN Account a ON a.Id = c.AccountId '
        "ORDER BY a.Name IS NULL, a.Name, c.Subject",
    ),
    (
        "SELECT Id, Parent.Subject FROM EmailMessage",
        'SELECT e.Id, c.Subject FROM EmailMessage e LEFT JOIN "Case" c ON c.Id = e.ParentId',
    ),
    (
        "SELECT Id, CaseId__r.Subject, CaseId__r.Owner.Name FROM CaseHistory__c WHERE Field__c = 'Owner Assignment'",
        'SELECT h.Id, c.Subject, u.Name FROM CaseHistory__c h LEFT JOIN "Case" c ON c.Id = h.CaseId__c '
        "LEFT JOIN User u ON u.Id = c.OwnerId WHERE h.Field__c = 'Owner Assignment'",
    ),
    (
        "SELECT Name, Account.Name FROM Contact WHERE Account.NumberOfEmployees > 1000",
        "SELECT c.Name, a.Name FROM Contact c JOIN Account a ON a.Id = c.AccountId WHERE a.NumberOfEmployees > 1000",
    ),
    (
        "SELECT Name FROM Contact WHERE NOT (Account.NumberOfEmployees > 1000)",
        "SELECT c.Name FROM Contact c LEFT JOIN Account a ON a.Id = c.AccountId "
        "WHERE a.NumberOfEmployees IS NULL OR a.NumberOfEmployees <= 1000",
    ),
    ("SELECT Id, Opportunity.Owner.Name FROM Quote", "SELECT Id, NULL FROM Quote WHERE 0"),
    (
        "SELECT Id, User.Name, Territory2.Name FROM UserTerritory2Association",
        "SELECT x.Id, u.Name, t.Name FROM UserTerritory2Association x JOIN User u ON u.Id = x.UserId "
        "JOIN Territory2 t ON t.Id = x.Territory2Id",
    ),
    # ---- Ids
    (
        f"SELECT Subject FROM Case WHERE Id = '{K(3)}'",
        f"SELECT Subject FROM \"Case\" WHERE Id = '{K(3)}'",
    ),
    (
        f"SELECT Subject FROM Case WHERE Id IN ('{K(3)}', '{K(4)}')",
        f"SELECT Subject FROM \"Case\" WHERE Id IN ('{K(3)}', '{K(4)}')",
    ),
    (
        f"SELECT Subject FROM Case WHERE AccountId = '{A(1)}' AND OwnerId != '{U(1)}'",
        f"SELECT Subject FROM \"Case\" WHERE AccountId = '{A(1)}' AND (OwnerId IS NULL OR OwnerId <> '{U(1)}')",
    ),
    (
        "SELECT Subject FROM Case WHERE OwnerId = null",
        'SELECT Subject FROM "Case" WHERE OwnerId IS NULL',
    ),
    (
        f"SELECT Subject FROM Case WHERE Id = '{K(3)[:15]}' OR OwnerId IN ('{U(2)[:15]}')",
        f"SELECT Subject FROM \"Case\" WHERE Id = '{K(3)}' OR OwnerId = '{U(2)}'",
    ),
    (
        f"SELECT Id FROM OrderItem WHERE Product2Id = '{P(1)}'",
        f"SELECT Id FROM OrderItem WHERE Product2Id = '{P(1)}'",
    ),
    # ---- semi-joins and anti-joins (nulls in the subquery do not empty NOT IN)
    (
        "SELECT Id, Name FROM Account WHERE Id IN (SELECT AccountId FROM Contact)",
        "SELECT Id, Name FROM Account WHERE Id IN (SELECT AccountId FROM Contact WHERE AccountId IS NOT NULL)",
    ),
    (
        "SELECT Id, Name FROM Account WHERE Id NOT IN (SELECT AccountId FROM Contact)",
        "SELECT Id, Name FROM Account WHERE Name = 'Hooli'",
    ),
    (
        "SELECT Id FROM Account WHERE Id IN (SELECT AccountId FROM Case WHERE Status = 'Escalated')",
        "SELECT DISTINCT a.Id FROM Account a JOIN \"Case\" c ON c.AccountId = a.Id WHERE c.Status = 'Escalated'",
    ),
    (
        "SELECT Name FROM User WHERE Id IN (SELECT OwnerId FROM Case WHERE Priority = 'High')",
        "SELECT Name FROM User WHERE Id IN (SELECT OwnerId FROM \"Case\" WHERE Priority = 'High' AND OwnerId IS NOT NULL)",
    ),
    (
        "SELECT Name FROM User WHERE Id NOT IN (SELECT OwnerId FROM Opportunity)",
        "SELECT Name FROM User WHERE Name IN ('Dan Brown', 'Eve Black')",
    ),
    (
        "SELECT Subject FROM Case WHERE AccountId IN (SELECT Id FROM Account WHERE ShippingState = 'NY')",
        "SELECT c.Subject FROM \"Case\" c JOIN Account a ON a.Id = c.AccountId WHERE a.ShippingState = 'NY'",
    ),
    (
        "SELECT Subject FROM Case WHERE AccountId NOT IN (SELECT Id FROM Account WHERE ShippingState = 'NY')",
        'SELECT c.Subject FROM "Case" c LEFT JOIN Account a ON a.Id = c.AccountId '
        "WHERE a.ShippingState IS NULL OR a.ShippingState <> 'NY'",
    ),
    (
        "SELECT Id FROM Case WHERE OrderItemId__c IN (SELECT Id FROM OrderItem WHERE Product2.Name = 'Router X')",
        f"SELECT Id FROM \"Case\" WHERE OrderItemId__c IN ('{OI(1)}', '{OI(3)}', '{OI(7)}')",
    ),
    (
        "SELECT Name FROM Account WHERE Id IN (SELECT AccountId FROM Contact) AND Industry = 'Technology'",
        "SELECT Name FROM Account WHERE Name IN ('Acme Corp', 'Initech')",
    ),
    (
        "SELECT Name FROM Product2 WHERE Id NOT IN (SELECT Product2Id FROM OrderItem WHERE Order.Status = 'Draft')",
        "SELECT Name FROM Product2 WHERE Name = 'Switch Pro'",
    ),
    # ---- INCLUDES / EXCLUDES over ';'-separated values
    (
        "SELECT Name FROM User WHERE LanguageLocaleKey INCLUDES ('fr')",
        "SELECT Name FROM User WHERE Name IN ('Alice Smith', 'Carol White')",
    ),
    (
        "SELECT Name FROM User WHERE LanguageLocaleKey INCLUDES ('fr', 'es')",
        "SELECT Name FROM User WHERE Name IN ('Alice Smith', 'Carol White', 'Eve Black')",
    ),
    (
        "SELECT Name FROM User WHERE LanguageLocaleKey INCLUDES ('fr;de')",
        "SELECT Name FROM User WHERE Name = 'Carol White'",
    ),
    (
        "SELECT Name FROM User WHERE LanguageLocaleKey EXCLUDES ('fr')",
        "SELECT Name FROM User WHERE Name IN ('Bob Jones', 'Dan Brown', 'Eve Black')",
    ),
    (
        "SELECT Name FROM User WHERE LanguageLocaleKey INCLUDES ('en_US') AND LanguageLocaleKey EXCLUDES ('de')",
        "SELECT Name FROM User WHERE Name IN ('Alice Smith', 'Bob Jones')",
    ),
    # ---- literal escapes
    (
        "SELECT Subject FROM Case WHERE Subject = 'O\\'Brien complaint'",
        "SELECT Subject FROM \"Case\" WHERE Subject = 'O''Brien complaint'",
    ),
]

EMPTY_OK = {"SELECT Id, Opportunity.Owner.Name FROM Quote"}


@pytest.fixture(scope="module")
def org_and_raw(tmp_path_factory: pytest.TempPathFactory):
    path = build_fixture_org(tmp_path_factory.mktemp("soql") / "org.db")
    org = LocalOrg(path)
    raw = sqlite3.connect(Path(path))
    yield org, raw
    org.close()
    raw.close()


@pytest.mark.parametrize(("soql", "sql"), CASES, ids=[c[0][:80] for c in CASES])
def test_soql_matches_sql(org_and_raw, soql: str, sql: str) -> None:
    org, raw = org_and_raw
    check_against_sql(org, raw, soql, sql, allow_empty=soql in EMPTY_OK)


@pytest.mark.parametrize("rule", RULES, ids=[r.query[:70] for r in RULES])
def test_lenient_org_answers_what_strict_refuses(org_and_raw, rule: Rule) -> None:
    """`--lenient` keeps the forgiving answers: the SQL of each rule's query, where it has one."""
    org, raw = org_and_raw
    with LocalOrg(org.path, lenient=True) as lenient:
        if rule.query.startswith("FIND"):
            res = lenient.search(rule.query)
            assert res.ok and res.records, res.error
        elif rule.sql is None:
            res = lenient.query(rule.query)
            assert res.ok and res.total_size > 0, res.error
        else:
            check_against_sql(lenient, raw, rule.query, rule.sql, allow_empty=True)
