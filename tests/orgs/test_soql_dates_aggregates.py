"""SOQL against hand-written SQL: date and datetime literals, relative date literals around day,
week, month, quarter and year boundaries (today = Wed 2024-05-15), date functions, aggregates,
GROUP BY / HAVING and COUNT()."""

from __future__ import annotations

import sqlite3

import pytest

from crmarena_tui.orgs.local import LocalOrg
from tests.support.soql_fixture_support import P, build_fixture_org, check_against_sql

OPP = "SELECT Name FROM Opportunity"
CASE = "SELECT Subject FROM Case"
CASE_SQL = 'SELECT Subject FROM "Case"'


def between(col: str, lo: str, hi: str) -> str:
    """Datetime column in [lo, hi) days, written out the way the file stores datetimes."""
    return f"{col} >= '{lo}T00:00:00.000+0000' AND {col} < '{hi}T00:00:00.000+0000'"


CASES: list[tuple[str, str]] = [
    # ---- date fields against date values
    (
        "SELECT Id FROM Order WHERE EffectiveDate = 2024-01-10",
        "SELECT Id FROM \"Order\" WHERE EffectiveDate = '2024-01-10'",
    ),
    (
        "SELECT Id FROM Order WHERE EffectiveDate > 2024-01-10",
        "SELECT Id FROM \"Order\" WHERE EffectiveDate > '2024-01-10'",
    ),
    (
        "SELECT Id FROM Order WHERE EffectiveDate >= 2024-01-10",
        "SELECT Id FROM \"Order\" WHERE EffectiveDate >= '2024-01-10'",
    ),
    (
        "SELECT Id FROM Order WHERE EffectiveDate < 2024-03-05",
        "SELECT Id FROM \"Order\" WHERE EffectiveDate < '2024-03-05'",
    ),
    (
        "SELECT Id FROM Order WHERE EffectiveDate != 2024-01-10",
        "SELECT Id FROM \"Order\" WHERE EffectiveDate IS NULL OR EffectiveDate <> '2024-01-10'",
    ),
    (
        "SELECT Id FROM Order WHERE EffectiveDate = THIS_YEAR",
        "SELECT Id FROM \"Order\" WHERE EffectiveDate BETWEEN '2024-01-01' AND '2024-12-31'",
    ),
    (
        "SELECT Id FROM Order WHERE EffectiveDate = LAST_YEAR",
        "SELECT Id FROM \"Order\" WHERE substr(EffectiveDate, 1, 4) = '2023'",
    ),
    (
        "SELECT Id FROM Order WHERE EffectiveDate < THIS_YEAR",
        "SELECT Id FROM \"Order\" WHERE EffectiveDate < '2024-01-01'",
    ),
    (f"{OPP} WHERE CloseDate = TODAY", f"{OPP} WHERE CloseDate = '2024-05-15'"),
    (
        f"{OPP} WHERE CloseDate = THIS_MONTH",
        f"{OPP} WHERE CloseDate BETWEEN '2024-05-01' AND '2024-05-31'",
    ),
    (
        f"{OPP} WHERE CloseDate = LAST_MONTH",
        f"{OPP} WHERE CloseDate BETWEEN '2024-04-01' AND '2024-04-30'",
    ),
    (
        f"{OPP} WHERE CloseDate = NEXT_MONTH",
        f"{OPP} WHERE CloseDate BETWEEN '2024-06-01' AND '2024-06-30'",
    ),
    (
        f"{OPP} WHERE CloseDate = THIS_QUARTER",
        f"{OPP} WHERE CloseDate BETWEEN '2024-04-01' AND '2024-06-30'",
    ),
    (
        f"{OPP} WHERE CloseDate = NEXT_QUARTER",
        f"{OPP} WHERE CloseDate BETWEEN '2024-07-01' AND '2024-09-30'",
    ),
    (f"{OPP} WHERE CloseDate > THIS_MONTH", f"{OPP} WHERE CloseDate >= '2024-06-01'"),
    (f"{OPP} WHERE CloseDate < THIS_MONTH", f"{OPP} WHERE CloseDate < '2024-05-01'"),
    (f"{OPP} WHERE CloseDate <= THIS_MONTH", f"{OPP} WHERE CloseDate <= '2024-05-31'"),
    (f"{OPP} WHERE CloseDate >= THIS_MONTH", f"{OPP} WHERE CloseDate >= '2024-05-01'"),
    (
        f"{OPP} WHERE CloseDate = NEXT_N_DAYS:20",
        f"{OPP} WHERE CloseDate BETWEEN '2024-05-16' AND '2024-06-04'",
    ),
    (
        f"{OPP} WHERE CloseDate = LAST_N_DAYS:30",
        f"{OPP} WHERE CloseDate BETWEEN '2024-04-15' AND '2024-05-15'",
    ),
    (
        f"{OPP} WHERE CloseDate = NEXT_90_DAYS",
        f"{OPP} WHERE CloseDate BETWEEN '2024-05-16' AND '2024-08-13'",
    ),
    (
        f"{OPP} WHERE CloseDate = LAST_N_MONTHS:6",
        f"{OPP} WHERE CloseDate BETWEEN '2023-11-01' AND '2024-04-30'",
    ),
    (
        f"{OPP} WHERE CloseDate = NEXT_N_MONTHS:2",
        f"{OPP} WHERE CloseDate BETWEEN '2024-06-01' AND '2024-07-31'",
    ),
    (
        f"{OPP} WHERE CloseDate = THIS_WEEK",
        f"{OPP} WHERE CloseDate BETWEEN '2024-05-12' AND '2024-05-18'",
    ),
    (
        f"{OPP} WHERE CloseDate != THIS_MONTH",
        f"{OPP} WHERE CloseDate NOT BETWEEN '2024-05-01' AND '2024-05-31'",
    ),
    (
        f"{OPP} WHERE CloseDate IN (2024-04-30, 2024-05-31)",
        f"{OPP} WHERE CloseDate IN ('2024-04-30', '2024-05-31')",
    ),
    (
        f"{OPP} WHERE CloseDate = LAST_N_QUARTERS:2",
        f"{OPP} WHERE CloseDate BETWEEN '2023-10-01' AND '2024-03-31'",
    ),
    (f"{OPP} WHERE CloseDate = THIS_FISCAL_YEAR", f"{OPP} WHERE substr(CloseDate, 1, 4) = '2024'"),
    (
        f"{OPP} WHERE CloseDate = NEXT_FISCAL_QUARTER",
        f"{OPP} WHERE CloseDate BETWEEN '2024-07-01' AND '2024-09-30'",
    ),
    (
        "SELECT Id FROM Contract WHERE StartDate = null",
        "SELECT Id FROM Contract WHERE StartDate IS NULL",
    ),
    (
        "SELECT Id FROM Contract WHERE CompanySignedDate = LAST_N_DAYS:30",
        "SELECT Id FROM Contract WHERE CompanySignedDate BETWEEN '2024-04-15' AND '2024-05-15'",
    ),
    (
        "SELECT Id FROM Contract WHERE CompanySignedDate = NEXT_N_DAYS:7",
        "SELECT Id FROM Contract WHERE CompanySignedDate BETWEEN '2024-05-16' AND '2024-05-22'",
    ),
    (
        "SELECT Id FROM Contract WHERE StartDate = N_QUARTERS_AGO:5",
        "SELECT Id FROM Contract WHERE StartDate BETWEEN '2023-01-01' AND '2023-03-31'",
    ),
    (
        "SELECT Name FROM Lead WHERE ConvertedDate = THIS_YEAR",
        "SELECT Name FROM Lead WHERE ConvertedDate LIKE '2024-%'",
    ),
    (
        "SELECT Name FROM Lead WHERE ConvertedDate = N_DAYS_AGO:14",
        "SELECT Name FROM Lead WHERE ConvertedDate = '2024-05-01'",
    ),
    (
        "SELECT Name FROM Lead WHERE ConvertedDate = N_MONTHS_AGO:1",
        "SELECT Name FROM Lead WHERE ConvertedDate LIKE '2024-04-%'",
    ),
    (
        "SELECT Name FROM Lead WHERE ConvertedDate = LAST_N_YEARS:1",
        "SELECT Name FROM Lead WHERE ConvertedDate LIKE '2023-%'",
    ),
    (
        "SELECT Subject FROM Task WHERE ActivityDate = NEXT_WEEK",
        "SELECT Subject FROM Task WHERE ActivityDate BETWEEN '2024-05-19' AND '2024-05-25'",
    ),
    (
        "SELECT Subject FROM Task WHERE ActivityDate = LAST_WEEK",
        "SELECT Subject FROM Task WHERE ActivityDate BETWEEN '2024-05-05' AND '2024-05-11'",
    ),
    (
        "SELECT Subject FROM Task WHERE ActivityDate = TODAY",
        "SELECT Subject FROM Task WHERE ActivityDate = '2024-05-15'",
    ),
    (
        "SELECT Subject FROM Task WHERE ActivityDate != TODAY",
        "SELECT Subject FROM Task WHERE ActivityDate IS NULL OR ActivityDate <> '2024-05-15'",
    ),
    # ---- datetime fields: UTC day boundaries
    (
        f"{CASE} WHERE CreatedDate = TODAY",
        f"{CASE_SQL} WHERE {between('CreatedDate', '2024-05-15', '2024-05-16')}",
    ),
    (
        f"{CASE} WHERE CreatedDate = YESTERDAY",
        f"{CASE_SQL} WHERE {between('CreatedDate', '2024-05-14', '2024-05-15')}",
    ),
    (
        f"{CASE} WHERE CreatedDate = TOMORROW",
        f"{CASE_SQL} WHERE {between('CreatedDate', '2024-05-16', '2024-05-17')}",
    ),
    (
        f"{CASE} WHERE CreatedDate = THIS_WEEK",
        f"{CASE_SQL} WHERE {between('CreatedDate', '2024-05-12', '2024-05-19')}",
    ),
    (
        f"{CASE} WHERE CreatedDate = LAST_WEEK",
        f"{CASE_SQL} WHERE {between('CreatedDate', '2024-05-05', '2024-05-12')}",
    ),
    (
        f"{CASE} WHERE CreatedDate = NEXT_WEEK",
        f"{CASE_SQL} WHERE {between('CreatedDate', '2024-05-19', '2024-05-26')}",
    ),
    (
        f"{CASE} WHERE CreatedDate = THIS_MONTH",
        f"{CASE_SQL} WHERE substr(CreatedDate, 1, 7) = '2024-05'",
    ),
    (
        f"{CASE} WHERE CreatedDate = LAST_MONTH",
        f"{CASE_SQL} WHERE substr(CreatedDate, 1, 7) = '2024-04'",
    ),
    (
        f"{CASE} WHERE CreatedDate = THIS_QUARTER",
        f"{CASE_SQL} WHERE substr(CreatedDate, 1, 7) BETWEEN '2024-04' AND '2024-06'",
    ),
    (
        f"{CASE} WHERE CreatedDate = LAST_QUARTER",
        f"{CASE_SQL} WHERE substr(CreatedDate, 1, 7) BETWEEN '2024-01' AND '2024-03'",
    ),
    (
        f"{CASE} WHERE CreatedDate = THIS_YEAR",
        f"{CASE_SQL} WHERE substr(CreatedDate, 1, 4) = '2024'",
    ),
    (
        f"{CASE} WHERE CreatedDate = LAST_YEAR",
        f"{CASE_SQL} WHERE substr(CreatedDate, 1, 4) = '2023'",
    ),
    (f"{CASE} WHERE CreatedDate < THIS_YEAR", f"{CASE_SQL} WHERE CreatedDate < '2024'"),
    (f"{CASE} WHERE CreatedDate > LAST_YEAR", f"{CASE_SQL} WHERE CreatedDate >= '2024'"),
    (
        f"{CASE} WHERE CreatedDate >= 2024-05-01T00:00:00Z",
        f"{CASE_SQL} WHERE CreatedDate >= '2024-05-01T00:00:00.000+0000'",
    ),
    (
        f"{CASE} WHERE CreatedDate > 2024-05-01T00:00:00Z",
        f"{CASE_SQL} WHERE CreatedDate > '2024-05-01T00:00:00.000+0000'",
    ),
    (
        f"{CASE} WHERE CreatedDate = 2024-05-01T00:00:00Z",
        f"{CASE_SQL} WHERE CreatedDate = '2024-05-01T00:00:00.000+0000'",
    ),
    (
        f"{CASE} WHERE CreatedDate = 2024-05-01T00:00:00.000+0000",
        f"{CASE_SQL} WHERE CreatedDate = '2024-05-01T00:00:00.000+0000'",
    ),
    (
        f"{CASE} WHERE CreatedDate < 2024-05-01T02:00:00+02:00",
        f"{CASE_SQL} WHERE CreatedDate < '2024-05-01T00:00:00.000+0000'",
    ),
    (
        f"{CASE} WHERE CreatedDate >= 2024-04-30T19:59:59-04:00",
        f"{CASE_SQL} WHERE CreatedDate >= '2024-04-30T23:59:59.000+0000'",
    ),
    (
        f"{CASE} WHERE CreatedDate = LAST_N_DAYS:3",
        f"{CASE_SQL} WHERE {between('CreatedDate', '2024-05-12', '2024-05-16')}",
    ),
    (
        f"{CASE} WHERE CreatedDate = LAST_90_DAYS",
        f"{CASE_SQL} WHERE {between('CreatedDate', '2024-02-15', '2024-05-16')}",
    ),
    (
        f"{CASE} WHERE CreatedDate = N_DAYS_AGO:1",
        f"{CASE_SQL} WHERE substr(CreatedDate, 1, 10) = '2024-05-14'",
    ),
    (
        f"{CASE} WHERE CreatedDate = LAST_N_WEEKS:2",
        f"{CASE_SQL} WHERE {between('CreatedDate', '2024-04-28', '2024-05-12')}",
    ),
    (
        f"{CASE} WHERE CreatedDate = N_WEEKS_AGO:1",
        f"{CASE_SQL} WHERE {between('CreatedDate', '2024-05-05', '2024-05-12')}",
    ),
    (f"{CASE} WHERE ClosedDate = null", f"{CASE_SQL} WHERE ClosedDate IS NULL"),
    (
        f"{CASE} WHERE ClosedDate != null AND ClosedDate = THIS_MONTH",
        f"{CASE_SQL} WHERE ClosedDate LIKE '2024-05-%'",
    ),
    (
        f"{CASE} WHERE ClosedDate != THIS_MONTH",
        f"{CASE_SQL} WHERE ClosedDate IS NULL OR ClosedDate NOT LIKE '2024-05-%'",
    ),
    (f"{CASE} WHERE NOT (CreatedDate = THIS_YEAR)", f"{CASE_SQL} WHERE CreatedDate < '2024'"),
    (
        "SELECT Name FROM Lead WHERE CreatedDate = LAST_N_MONTHS:3",
        f"SELECT Name FROM Lead WHERE {between('CreatedDate', '2024-02-01', '2024-05-01')}",
    ),
    (
        "SELECT Name FROM Lead WHERE CreatedDate = TODAY",
        "SELECT Name FROM Lead WHERE CreatedDate LIKE '2024-05-15%'",
    ),
    # ---- date functions in WHERE
    (
        f"{CASE} WHERE DAY_ONLY(CreatedDate) = 2024-05-12",
        f"{CASE_SQL} WHERE substr(CreatedDate, 1, 10) = '2024-05-12'",
    ),
    (
        f"{CASE} WHERE CALENDAR_YEAR(CreatedDate) = 2023",
        f"{CASE_SQL} WHERE CreatedDate LIKE '2023%'",
    ),
    (
        f"{CASE} WHERE CALENDAR_MONTH(CreatedDate) = 5 AND CALENDAR_YEAR(CreatedDate) = 2024",
        f"{CASE_SQL} WHERE CreatedDate LIKE '2024-05%'",
    ),
    (
        f"{CASE} WHERE HOUR_IN_DAY(CreatedDate) >= 22",
        f"{CASE_SQL} WHERE substr(CreatedDate, 12, 2) >= '22'",
    ),
    (
        f"{OPP} WHERE CALENDAR_QUARTER(CloseDate) = 2",
        f"{OPP} WHERE substr(CloseDate, 6, 2) IN ('04', '05', '06')",
    ),
    (f"{OPP} WHERE DAY_IN_WEEK(CloseDate) = 4", f"{OPP} WHERE strftime('%w', CloseDate) = '3'"),
    (f"{OPP} WHERE DAY_IN_MONTH(CloseDate) > 28", f"{OPP} WHERE substr(CloseDate, 9, 2) > '28'"),
    # ---- COUNT()
    ("SELECT COUNT() FROM Case", 'SELECT COUNT(*) FROM "Case"'),
    (
        "SELECT COUNT() FROM Case WHERE Status = 'Closed'",
        "SELECT COUNT(*) FROM \"Case\" WHERE Status = 'Closed'",
    ),
    (
        "SELECT COUNT() FROM Case WHERE Owner.Name = 'Alice Smith'",
        f"SELECT COUNT(*) FROM \"Case\" WHERE OwnerId = '{'005000000000001AAA'}'",
    ),
    ("SELECT COUNT() FROM Case LIMIT 5", "SELECT 5"),
    (
        "SELECT COUNT() FROM Lead WHERE IsConverted = true AND CreatedDate = LAST_N_MONTHS:6",
        f"SELECT COUNT(*) FROM Lead WHERE IsConverted = 1 AND {between('CreatedDate', '2023-11-01', '2024-05-01')}",
    ),
    (
        "SELECT COUNT() FROM Case WHERE Status != 'Closed' AND Priority != 'High'",
        "SELECT COUNT(*) FROM \"Case\" WHERE Status <> 'Closed' AND (Priority IS NULL OR Priority <> 'High')",
    ),
    # ---- aggregates without GROUP BY
    ("SELECT COUNT(Id) FROM Case", 'SELECT COUNT(*) FROM "Case"'),
    ("SELECT COUNT(ClosedDate) FROM Case", 'SELECT COUNT(ClosedDate) FROM "Case"'),
    ("SELECT COUNT_DISTINCT(OwnerId) FROM Case", 'SELECT COUNT(DISTINCT OwnerId) FROM "Case"'),
    (
        "SELECT SUM(Amount), AVG(Amount), MIN(Amount), MAX(Amount) FROM Opportunity",
        "SELECT SUM(Amount), AVG(Amount), MIN(Amount), MAX(Amount) FROM Opportunity",
    ),
    ("SELECT MIN(CloseDate), MAX(CloseDate) FROM Opportunity", "SELECT '2023-12-31', '2024-07-01'"),
    ("SELECT MIN(CreatedDate) earliest FROM Case", "SELECT '2022-06-15T08:00:00.000+0000'"),
    ("SELECT AVG(NumberOfEmployees) FROM Account", "SELECT AVG(NumberOfEmployees) FROM Account"),
    ("SELECT SUM(NumberOfEmployees) total FROM Account", "SELECT 14750"),
    ("SELECT COUNT(Id) FROM Case WHERE Status = 'Nope'", "SELECT 0"),
    ("SELECT SUM(Amount) FROM Opportunity WHERE Amount = null", "SELECT NULL"),
    # ---- GROUP BY, HAVING, aliases, exprN
    (
        "SELECT Status, COUNT(Id) FROM Case GROUP BY Status ORDER BY Status",
        'SELECT Status, COUNT(*) FROM "Case" GROUP BY Status ORDER BY Status',
    ),
    (
        "SELECT OwnerId, COUNT(Id) c FROM Case GROUP BY OwnerId ORDER BY OwnerId",
        'SELECT OwnerId, COUNT(*) FROM "Case" GROUP BY OwnerId ORDER BY OwnerId',
    ),
    (
        "SELECT Owner.Name, COUNT(Id) FROM Case GROUP BY Owner.Name ORDER BY Owner.Name",
        'SELECT u.Name, COUNT(*) FROM "Case" c LEFT JOIN User u ON u.Id = c.OwnerId GROUP BY u.Name ORDER BY u.Name',
    ),
    (
        "SELECT Account.ShippingState, COUNT(Id) FROM Case WHERE Status = 'Closed' GROUP BY Account.ShippingState "
        "ORDER BY Account.ShippingState",
        'SELECT a.ShippingState, COUNT(*) FROM "Case" c LEFT JOIN Account a ON a.Id = c.AccountId '
        "WHERE c.Status = 'Closed' GROUP BY a.ShippingState ORDER BY a.ShippingState",
    ),
    (
        "SELECT StageName, SUM(Amount) total FROM Opportunity GROUP BY StageName ORDER BY StageName",
        "SELECT StageName, SUM(Amount) FROM Opportunity GROUP BY StageName ORDER BY StageName",
    ),
    (
        "SELECT OwnerId, COUNT(Id) FROM Case GROUP BY OwnerId HAVING COUNT(Id) > 3 ORDER BY OwnerId",
        'SELECT OwnerId, COUNT(*) FROM "Case" GROUP BY OwnerId HAVING COUNT(*) > 3 ORDER BY OwnerId',
    ),
    (
        "SELECT OwnerId, COUNT(Id), MAX(Amount) FROM Opportunity GROUP BY OwnerId "
        "HAVING COUNT(Id) >= 2 AND MAX(Amount) > 60000 ORDER BY OwnerId",
        "SELECT OwnerId, COUNT(*), MAX(Amount) FROM Opportunity GROUP BY OwnerId "
        "HAVING COUNT(*) >= 2 AND MAX(Amount) > 60000 ORDER BY OwnerId",
    ),
    (
        "SELECT OwnerId, COUNT(Id) n FROM Case GROUP BY OwnerId HAVING NOT (COUNT(Id) > 3) ORDER BY OwnerId",
        'SELECT OwnerId, COUNT(*) FROM "Case" GROUP BY OwnerId HAVING COUNT(*) <= 3 ORDER BY OwnerId',
    ),
    (
        "SELECT CALENDAR_MONTH(CreatedDate), COUNT(Id) FROM Case WHERE CreatedDate = THIS_YEAR "
        "GROUP BY CALENDAR_MONTH(CreatedDate) ORDER BY CALENDAR_MONTH(CreatedDate)",
        "SELECT CAST(substr(CreatedDate, 6, 2) AS INT) m, COUNT(*) FROM \"Case\" WHERE CreatedDate LIKE '2024%' "
        "GROUP BY m ORDER BY m",
    ),
    (
        "SELECT CALENDAR_YEAR(CreatedDate) y, COUNT(Id) n FROM Case GROUP BY CALENDAR_YEAR(CreatedDate) "
        "ORDER BY CALENDAR_YEAR(CreatedDate) DESC",
        'SELECT CAST(substr(CreatedDate, 1, 4) AS INT) y, COUNT(*) FROM "Case" GROUP BY y ORDER BY y DESC',
    ),
    (
        "SELECT CALENDAR_QUARTER(CreatedDate), CALENDAR_YEAR(CreatedDate), COUNT(Id) FROM Case "
        "GROUP BY CALENDAR_QUARTER(CreatedDate), CALENDAR_YEAR(CreatedDate) "
        "ORDER BY CALENDAR_YEAR(CreatedDate), CALENDAR_QUARTER(CreatedDate)",
        "SELECT (CAST(substr(CreatedDate, 6, 2) AS INT) + 2) / 3 q, CAST(substr(CreatedDate, 1, 4) AS INT) y, "
        'COUNT(*) FROM "Case" GROUP BY q, y ORDER BY y, q',
    ),
    (
        "SELECT DAY_ONLY(CreatedDate), COUNT(Id) FROM Case WHERE CreatedDate = THIS_WEEK "
        "GROUP BY DAY_ONLY(CreatedDate) ORDER BY DAY_ONLY(CreatedDate)",
        f'SELECT substr(CreatedDate, 1, 10) d, COUNT(*) FROM "Case" WHERE {between("CreatedDate", "2024-05-12", "2024-05-19")} '
        "GROUP BY d ORDER BY d",
    ),
    (
        "SELECT WEEK_IN_YEAR(CreatedDate) w, COUNT(Id) FROM Case WHERE CreatedDate = THIS_MONTH "
        "GROUP BY WEEK_IN_YEAR(CreatedDate) ORDER BY WEEK_IN_YEAR(CreatedDate)",
        "SELECT (CAST(strftime('%j', substr(CreatedDate, 1, 10)) AS INT) - 1) / 7 + 1 w, COUNT(*) FROM \"Case\" "
        "WHERE CreatedDate LIKE '2024-05%' GROUP BY w ORDER BY w",
    ),
    (
        "SELECT Product2Id, SUM(Quantity) FROM OrderItem GROUP BY Product2Id ORDER BY Product2Id",
        "SELECT Product2Id, SUM(Quantity) FROM OrderItem GROUP BY Product2Id ORDER BY Product2Id",
    ),
    (
        "SELECT Order.OwnerId, SUM(UnitPrice) FROM OrderItem GROUP BY Order.OwnerId ORDER BY Order.OwnerId",
        'SELECT o.OwnerId, SUM(oi.UnitPrice) FROM OrderItem oi LEFT JOIN "Order" o ON o.Id = oi.OrderId '
        "GROUP BY o.OwnerId ORDER BY o.OwnerId",
    ),
    (
        f"SELECT IssueId__c, COUNT(Id) FROM Case WHERE OrderItemId__r.Product2Id = '{P(1)}' "
        "GROUP BY IssueId__c ORDER BY COUNT(Id) DESC, IssueId__c",
        'SELECT c.IssueId__c, COUNT(*) n FROM "Case" c JOIN OrderItem oi ON oi.Id = c.OrderItemId__c '
        f"WHERE oi.Product2Id = '{P(1)}' GROUP BY c.IssueId__c ORDER BY n DESC, c.IssueId__c",
    ),
    (
        "SELECT OwnerId, COUNT(Id) FROM Lead WHERE IsConverted = true GROUP BY OwnerId ORDER BY OwnerId",
        "SELECT OwnerId, COUNT(*) FROM Lead WHERE IsConverted = 1 GROUP BY OwnerId ORDER BY OwnerId",
    ),
    (
        "SELECT Industry, MAX(NumberOfEmployees) FROM Account GROUP BY Industry ORDER BY Industry",
        "SELECT Industry, MAX(NumberOfEmployees) FROM Account GROUP BY Industry ORDER BY Industry",
    ),
    (
        "SELECT Status FROM Case GROUP BY Status ORDER BY Status",
        'SELECT DISTINCT Status FROM "Case" ORDER BY Status',
    ),
    (
        "SELECT Status, COUNT(Id) FROM Case GROUP BY Status ORDER BY COUNT(Id) DESC, Status",
        'SELECT Status, COUNT(*) n FROM "Case" GROUP BY Status ORDER BY n DESC, Status',
    ),
    (
        "SELECT Priority, COUNT(Id) FROM Case WHERE Status != 'Closed' GROUP BY Priority ORDER BY Priority LIMIT 2",
        "SELECT Priority, COUNT(*) FROM \"Case\" WHERE Status <> 'Closed' GROUP BY Priority ORDER BY Priority LIMIT 2",
    ),
    (
        "SELECT Owner.Name, AVG(Amount) avgAmount FROM Opportunity WHERE Amount != null GROUP BY Owner.Name "
        "ORDER BY Owner.Name",
        "SELECT u.Name, AVG(o.Amount) FROM Opportunity o LEFT JOIN User u ON u.Id = o.OwnerId "
        "WHERE o.Amount IS NOT NULL GROUP BY u.Name ORDER BY u.Name",
    ),
    (
        "SELECT Owner.Name, COUNT(Id) FROM Opportunity WHERE ContractID__r.CompanySignedDate = LAST_N_MONTHS:6 "
        "GROUP BY Owner.Name ORDER BY Owner.Name",
        "SELECT u.Name, COUNT(*) FROM Opportunity o JOIN Contract ct ON ct.Id = o.ContractID__c "
        "LEFT JOIN User u ON u.Id = o.OwnerId WHERE ct.CompanySignedDate BETWEEN '2023-11-01' AND '2024-04-30' "
        "GROUP BY u.Name ORDER BY u.Name",
    ),
    (
        "SELECT CaseId__c, COUNT(Id) FROM CaseHistory__c WHERE Field__c = 'Owner Assignment' GROUP BY CaseId__c "
        "HAVING COUNT(Id) > 1 ORDER BY CaseId__c",
        "SELECT CaseId__c, COUNT(*) FROM CaseHistory__c WHERE Field__c = 'Owner Assignment' GROUP BY CaseId__c "
        "HAVING COUNT(*) > 1 ORDER BY CaseId__c",
    ),
    (
        "SELECT COUNT(Id) n, COUNT_DISTINCT(AccountId) accounts FROM Case WHERE CreatedDate = THIS_QUARTER",
        "SELECT COUNT(*), COUNT(DISTINCT AccountId) FROM \"Case\" WHERE CreatedDate >= '2024-04-01' AND "
        "CreatedDate < '2024-07-01'",
    ),
]


@pytest.fixture(scope="module")
def org_and_raw(tmp_path_factory: pytest.TempPathFactory):
    path = build_fixture_org(tmp_path_factory.mktemp("soql") / "org.db")
    org = LocalOrg(path)
    raw = sqlite3.connect(path)
    yield org, raw
    org.close()
    raw.close()


@pytest.mark.parametrize(("soql", "sql"), CASES, ids=[c[0][:90] for c in CASES])
def test_soql_matches_sql(org_and_raw, soql: str, sql: str) -> None:
    org, raw = org_and_raw
    check_against_sql(org, raw, soql, sql, allow_empty=False)
