"""SalesforceOrg against a fake HTTP layer: login, SOQL, pages, COUNT(), aggregates, SOSL, errors."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import responses

from crmarena_tui.orgs.base import Org, execute
from crmarena_tui.orgs.salesforce import SalesforceOrg
from tests.fakes.salesforce import (
    BASE,
    INSTANCE,
    PASSWORD,
    TOKEN,
    USERNAME,
    FakeSalesforce,
    aggregate,
    login_url,
    record,
)

CASES = [
    record("Case", f"500Ak00000{n:08d}", Subject=f"Case {n}", Status="Closed") for n in range(5)
]


@pytest.fixture
def fake() -> Iterator[FakeSalesforce]:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield FakeSalesforce(mock)


@pytest.fixture
def org(fake: FakeSalesforce) -> SalesforceOrg:
    return SalesforceOrg("b2b", env=fake.env())


def test_is_an_org_and_logs_in_lazily_once(fake: FakeSalesforce, org: SalesforceOrg) -> None:
    assert isinstance(org, Org)
    assert (org.kind, org.ref, org.org_type) == ("salesforce", "salesforce:b2b", "b2b")
    assert fake.log == []  # constructing the org touches nothing
    fake.add_query("SELECT Id, Subject FROM Case", CASES[:2])
    org.query("SELECT Id, Subject FROM Case")
    org.query("SELECT Id, Subject FROM Case")
    assert fake.logins == 1
    assert fake.log[0] == "POST " + login_url().split(".com", 1)[1]


def test_query_returns_salesforce_shaped_records(fake: FakeSalesforce, org: SalesforceOrg) -> None:
    rows = [
        record(
            "Case",
            "500Ak0000000001",
            Subject="Broken hinge",
            Account={"attributes": {"type": "Account", "url": "/x"}, "Name": "Acme"},
            ClosedDate=None,
        )
    ]
    fake.add_query("SELECT Id, Subject, Account.Name, ClosedDate FROM Case", rows)
    result = org.query("SELECT Id, Subject, Account.Name, ClosedDate FROM Case")
    assert result.ok and result.kind == "query" and not result.count_only
    assert result.records == rows and type(result.records[0]) is dict
    assert result.to_response() == {"totalSize": 1, "done": True, "records": rows}
    assert json.loads(result.observation()) == [
        {"Id": "500Ak0000000001", "Subject": "Broken hinge", "Account": {"Name": "Acme"}}
    ]


def test_pages_are_followed_through_next_records_url(
    fake: FakeSalesforce, org: SalesforceOrg
) -> None:
    fake.add_query("SELECT Id FROM Case", CASES, page_size=2)
    result = org.query("SELECT Id FROM Case")
    assert [r["Id"] for r in result.records] == [r["Id"] for r in CASES]
    assert (result.total_size, result.done) == (5, True)
    assert sum("/query/01gFAKE" in line for line in fake.log) == 2


def test_count_reads_the_servers_total_size(fake: FakeSalesforce, org: SalesforceOrg) -> None:
    fake.add_query("SELECT COUNT() FROM Case WHERE Status = 'Closed'", [], total_size=153)
    result = org.query("SELECT COUNT() FROM Case WHERE Status = 'Closed'")
    assert result.count_only and result.total_size == 153 and result.records == []
    assert json.loads(result.observation()) == [{"count": 153}]


def test_lower_case_count_is_count_only_too(fake: FakeSalesforce, org: SalesforceOrg) -> None:
    fake.add_query("select count() from Lead", [], total_size=1465)
    result = org.query("select count() from Lead")
    assert result.count_only and result.total_size == 1465


def test_aggregate_rows_come_back_as_given(fake: FakeSalesforce, org: SalesforceOrg) -> None:
    soql = "SELECT OwnerId, COUNT(Id), AVG(Amount) avgAmt FROM Opportunity GROUP BY OwnerId"
    rows = [
        aggregate(OwnerId="005Ak000000001", expr0=12, avgAmt=5400.5),
        aggregate(OwnerId="005Ak000000002", expr0=3, avgAmt=None),
    ]
    fake.add_query(soql, rows)
    result = org.query(soql)
    assert result.records == rows and result.total_size == 2
    assert json.loads(result.observation()) == [
        {"OwnerId": "005Ak000000001", "expr0": 12, "avgAmt": 5400.5},
        {"OwnerId": "005Ak000000002", "expr0": 3, "avgAmt": None},
    ]


def test_sosl_goes_to_the_search_endpoint(fake: FakeSalesforce, org: SalesforceOrg) -> None:
    sosl = "FIND {hinge} IN ALL FIELDS RETURNING Knowledge__kav(Id, Title)"
    hits = [record("Knowledge__kav", "ka0Ak0000000001", Title="Hinge warranty")]
    fake.add_search(sosl, hits)
    result = org.search(sosl)
    assert result.ok and result.kind == "search" and result.records == hits
    assert result.to_response() == {"searchRecords": hits}
    routed = execute(org, f"```sql\n{sosl}\n```")
    assert routed.kind == "search" and routed.records == hits
    assert any(line.startswith("GET /services/data/") and "/search" in line for line in fake.log)


def test_code_fence_is_unwrapped(fake: FakeSalesforce, org: SalesforceOrg) -> None:
    fake.add_query("SELECT Id FROM Case", CASES[:1])
    assert execute(org, "```sql\nSELECT Id FROM Case\n```").records == CASES[:1]


def test_api_errors_read_code_colon_message(fake: FakeSalesforce, org: SalesforceOrg) -> None:
    bad = "SELECT Id FROM Cas"
    fake.add_query_error(
        bad,
        "INVALID_TYPE",
        f"\n{bad}\n               ^\nERROR at Row:1:Column:16\n"
        "sObject type 'Cas' is not supported.",
    )
    fake.add_query_error(
        "SELECT Nope FROM Case", "INVALID_FIELD", "No such column 'Nope' on entity 'Case'."
    )
    fake.add_search_error("FIND {x", "MALFORMED_SEARCH", "No search term found.")
    wrong_type = org.query(bad)
    assert wrong_type.error is not None and wrong_type.error.startswith("INVALID_TYPE: ")
    assert wrong_type.error_code == "INVALID_TYPE"
    assert "sObject type 'Cas' is not supported." in wrong_type.error
    assert bad[wrong_type.error_offset :] == "Cas"  # Row 1, Column 16
    assert org.query("SELECT Nope FROM Case").error == (
        "INVALID_FIELD: No such column 'Nope' on entity 'Case'."
    )
    searched = org.search("FIND {x")
    assert searched.error == "MALFORMED_SEARCH: No search term found." and searched.kind == "search"
    assert searched.to_response() == {
        "errorCode": "MALFORMED_SEARCH",
        "message": "No search term found.",
    }


def test_network_failure_is_a_clear_message(fake: FakeSalesforce, org: SalesforceOrg) -> None:
    fake.network_down = True
    before_login = org.query("SELECT Id FROM Case")
    assert (
        before_login.error == "NETWORK_ERROR: cannot reach login.salesforce.com (ConnectionError)"
    )
    fake.network_down = False
    fake.add_query("SELECT Id FROM Case", CASES[:1])
    assert org.query("SELECT Id FROM Case").ok
    fake.network_down = True
    after_login = org.query("SELECT Id FROM Case")
    assert after_login.error == f"NETWORK_ERROR: cannot reach {INSTANCE} (ConnectionError)"
    assert org.search("FIND {x}").error_code == "NETWORK_ERROR"


def test_expired_session_logs_in_again_once_and_retries(
    fake: FakeSalesforce, org: SalesforceOrg
) -> None:
    fake.add_query("SELECT Id FROM Case", CASES[:2])
    assert org.query("SELECT Id FROM Case").ok
    fake.expire_sessions()
    again = org.query("SELECT Id FROM Case")
    assert again.ok and again.records == CASES[:2]
    assert fake.logins == 2
    assert fake.log.count(f"GET {BASE.split('.com', 1)[1]}/query/") == 3  # ok, 401, retry


def test_expiry_in_the_middle_of_paging_recovers(fake: FakeSalesforce, org: SalesforceOrg) -> None:
    fake.add_query("SELECT Id FROM Case", CASES, page_size=2)
    first = org.connection.call(lambda sf: sf.query("SELECT Id FROM Case"))
    assert first["done"] is False
    fake.expire_sessions()
    assert len(org.query("SELECT Id FROM Case").records) == 5
    assert fake.logins == 2


def test_a_second_rejection_after_relogin_is_an_error_not_a_loop(
    fake: FakeSalesforce, org: SalesforceOrg
) -> None:
    fake.add_query("SELECT Id FROM Case", CASES[:1])
    assert org.query("SELECT Id FROM Case").ok
    fake.reject_every_session = True
    result = org.query("SELECT Id FROM Case")
    assert result.error_code == "INVALID_SESSION_ID"
    assert "rejected the session again right after a fresh login" in (result.error or "")
    assert fake.logins == 2  # the first login and exactly one re-login
    assert fake.log.count(f"GET {BASE.split('.com', 1)[1]}/query/") == 3


def test_missing_credentials_name_the_variables(fake: FakeSalesforce) -> None:
    for org_type, prefix in (
        ("b2b", "SALESFORCE_B2B_"),
        ("b2c", "SALESFORCE_B2C_"),
        ("original", "SALESFORCE_"),
    ):
        result = SalesforceOrg(org_type, env={}).query("SELECT Id FROM Case")
        assert result.error_code == "MISSING_CREDENTIALS"
        for var in ("USERNAME", "PASSWORD", "SECURITY_TOKEN", "INSTANCE_URL", "SESSION_ID"):
            assert f"{prefix}{var}" in (result.error or "")
    assert fake.log == []


def test_credentials_are_read_from_the_environment(
    fake: FakeSalesforce, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in fake.env("SALESFORCE_B2C_").items():
        monkeypatch.setenv(key, value)
    fake.add_query("SELECT Id FROM Case", CASES[:1])
    assert SalesforceOrg("b2c").query("SELECT Id FROM Case").ok
    assert SalesforceOrg("b2b").query("SELECT Id FROM Case").error_code == "MISSING_CREDENTIALS"


def test_sandbox_domain_changes_the_login_host() -> None:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        fake = FakeSalesforce(mock, domain="test")
        fake.add_query("SELECT Id FROM Case", CASES[:1])
        org = SalesforceOrg("original", env=fake.env("SALESFORCE_", SALESFORCE_DOMAIN="test"))
        assert org.query("SELECT Id FROM Case").ok
        assert fake.logins == 1


def test_wrong_password_is_a_clear_login_error(fake: FakeSalesforce) -> None:
    env = fake.env()
    env["SALESFORCE_B2B_PASSWORD"] = "not-the-password"
    result = SalesforceOrg("b2b", env=env).query("SELECT Id FROM Case")
    assert result.error is not None and result.error.startswith(
        "INVALID_LOGIN: login to login.salesforce.com failed: Invalid username, password"
    )
    assert "SALESFORCE_B2B_SECURITY_TOKEN" in result.error
    assert "not-the-password" not in result.error


def test_session_id_credentials_skip_the_login(fake: FakeSalesforce) -> None:
    fake.valid.add("00DFAKE!given-session-xyz")
    env = {
        "SALESFORCE_B2B_INSTANCE_URL": f"https://{INSTANCE}",
        "SALESFORCE_B2B_SESSION_ID": "00DFAKE!given-session-xyz",
    }
    fake.add_query("SELECT Id FROM Case", CASES[:1])
    org = SalesforceOrg("b2b", env=env)
    assert org.query("SELECT Id FROM Case").ok and fake.logins == 0
    fake.expire_sessions()
    expired = org.query("SELECT Id FROM Case")
    assert expired.error_code == "INVALID_SESSION_ID"
    assert "SALESFORCE_B2B_SESSION_ID has expired" in (expired.error or "")
    assert "given-session" not in (expired.error or "") and fake.logins == 0
    # with a password as well, the expired session is replaced by one login
    with_password = SalesforceOrg("b2b", env={**env, **fake.env()})
    assert with_password.query("SELECT Id FROM Case").ok and fake.logins == 1


def test_no_secret_leaks_into_reprs_messages_or_logs(
    fake: FakeSalesforce, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("DEBUG")
    org = SalesforceOrg("b2b", env=fake.env())
    texts = [repr(org), str(org)]
    fake.add_query("SELECT Id FROM Case", CASES[:1])
    fake.add_query_error(
        "SELECT Bad FROM Case",
        "INVALID_FIELD",
        f"No such column; your session is {PASSWORD}{TOKEN}",
    )  # a server echo
    texts.append(org.query("SELECT Id FROM Case").observation())
    texts += [repr(org), str(org), repr(org.connection), repr(org.connection.credentials())]
    texts.append(org.query("SELECT Bad FROM Case").error or "")
    fake.expire_sessions()
    texts.append(repr(org.query("SELECT Id FROM Case")))
    fake.reject_every_session = True
    texts.append(org.query("SELECT Id FROM Case").error or "")
    fake.reject_every_session = False
    fake.network_down = True
    texts.append(org.query("SELECT Id FROM Case").error or "")
    texts.append(
        SalesforceOrg("b2b", env={**fake.env(), "SALESFORCE_B2B_PASSWORD": "wrong-pw-77"})
        .query("SELECT Id FROM Case")
        .error
        or ""
    )
    texts += [r.getMessage() for r in caplog.records]
    joined = "\n".join(texts)
    assert "INVALID_FIELD: No such column; your session is ***" in joined
    for secret in (USERNAME, PASSWORD, TOKEN, "wrong-pw-77", *fake.issued):
        assert secret not in joined


def test_org_flag_opens_a_lazy_salesforce_org(fake: FakeSalesforce) -> None:
    from crmarena_tui.session.org_resolve import open_org

    for which in ("b2b", "b2c", "original"):
        opened = open_org(f"salesforce:{which}")
        assert isinstance(opened, SalesforceOrg) and opened.ref == f"salesforce:{which}"
    assert fake.log == []


def test_importing_the_module_loads_no_http_library() -> None:
    import subprocess
    import sys

    probe = (
        "import sys, crmarena_tui.orgs.salesforce\n"
        "print([m for m in ('simple_salesforce', 'requests') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_threads_hitting_an_expired_session_share_one_relogin(
    fake: FakeSalesforce, org: SalesforceOrg
) -> None:
    import threading

    fake.add_query("SELECT Id FROM Case", CASES[:1])
    assert org.query("SELECT Id FROM Case").ok
    fake.expire_sessions()
    fake.hold_401 = threading.Barrier(2)  # both threads see the 401 before either logs in again
    results = []
    threads = [
        threading.Thread(target=lambda: results.append(org.query("SELECT Id FROM Case")))
        for _ in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert [r.ok for r in results] == [True, True]
    assert fake.logins == 2


def test_a_hung_server_times_out_with_a_clear_message(fake: FakeSalesforce) -> None:
    import requests

    org = SalesforceOrg("b2b", env=fake.env(), timeout=7.5)
    fake.add_query("SELECT Id FROM Case", CASES[:1])
    assert org.query("SELECT Id FROM Case").ok
    sent = [c.request for c in fake.mock.calls]
    assert {r.req_kwargs["timeout"] for r in sent} == {7.5}  # login and query alike
    fake.fail_with = requests.ReadTimeout("read timed out")
    assert org.query("SELECT Id FROM Case").error == (
        f"NETWORK_ERROR: {INSTANCE} did not answer within 7.5 s"
    )


def test_non_json_answers_are_clear_errors(fake: FakeSalesforce, org: SalesforceOrg) -> None:
    fake.add_query_raw("SELECT Id FROM Case", "<html><body>Down for maintenance</body></html>", 503)
    fake.add_query_raw("SELECT Id FROM Lead", "<html>proxy login</html>", 200)
    assert org.query("SELECT Id FROM Case").error == (
        f"HTTP_503: {INSTANCE} answered with a web page instead of an API response"
    )
    assert org.query("SELECT Id FROM Lead").error == (
        f"UNEXPECTED_RESPONSE: {INSTANCE} answered with something other than JSON"
    )


def test_paging_stops_at_the_record_cap(fake: FakeSalesforce, org: SalesforceOrg) -> None:
    fake.add_query("SELECT Id FROM Case", CASES, page_size=2)
    org.MAX_RECORDS = 3
    result = org.query("SELECT Id FROM Case")
    assert (len(result.records), result.total_size, result.done) == (4, 5, False)
