"""SalesforceOrg.describe/get/related against a fake HTTP layer, and the on-disk schema cache."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import responses

from crmarena_tui.orgs.reference_schema import reference_schema
from crmarena_tui.orgs.salesforce import SalesforceApiError, SalesforceOrg
from crmarena_tui.settings import locations
from tests.fakes.salesforce import PASSWORD, TOKEN, USERNAME, FakeSalesforce, record

ACCOUNT_ID = "001Ak00000AcmeXAAA"


@pytest.fixture
def fake() -> Iterator[FakeSalesforce]:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        fake = FakeSalesforce(mock)
        fake.add_describes(reference_schema())
        yield fake


def _batches(fake: FakeSalesforce) -> int:
    return sum(line.endswith("/composite/batch") for line in fake.log)


def test_describe_matches_the_benchmark_schema(fake: FakeSalesforce) -> None:
    schema = SalesforceOrg("b2b", env=fake.env()).describe()
    ref = reference_schema()
    assert list(schema.objects) == list(ref.objects)
    assert _batches(fake) == 2  # 27 objects, 25 per composite batch
    for name, ref_obj in ref.objects.items():
        obj = schema.objects[name]
        assert obj.key_prefix == ref_obj.key_prefix
        # system fields (IsDeleted, SystemModstamp, ...) stay out; order follows the benchmark
        assert obj.field_names == ref_obj.field_names
        for got, want in zip(obj.fields, ref_obj.fields, strict=True):
            assert (got.type, got.reference_to, got.relationship_name, got.child_relationship) == (
                want.type,
                want.reference_to,
                want.relationship_name,
                want.child_relationship,
            )
            assert got.description == want.description  # not the describe's label
            # what a query may do with the field comes from the describe
            props = ("length", "filterable", "sortable", "groupable", "aggregatable", "polymorphic")
            assert [getattr(got, p) for p in props] == [getattr(want, p) for p in props]
    case = schema.object("case")
    assert case is not None and case.field("OwnerId").reference_to == "User"  # Group|User -> User
    assert [r.name for r in schema.child_relationships("Account")] == [
        r.name for r in ref.child_relationships("Account")
    ]


def test_objects_the_org_lacks_are_left_out(fake: FakeSalesforce) -> None:
    del fake.describes["VoiceCallTranscript__c"]
    schema = SalesforceOrg("b2b", env=fake.env()).describe()
    assert "VoiceCallTranscript__c" not in schema.objects and len(schema.objects) == 26
    assert "VoiceCallTranscripts__r" not in [r.name for r in schema.child_relationships("Lead")]


def test_describe_is_cached_on_disk_per_org(fake: FakeSalesforce) -> None:
    first = SalesforceOrg("b2b", env=fake.env()).describe()
    assert _batches(fake) == 2
    files = list((locations.cache_dir() / "salesforce").glob("b2b-*-describe.json"))
    assert len(files) == 1
    content = files[0].name + files[0].read_text()
    assert USERNAME not in content and PASSWORD not in content and TOKEN not in content
    fresh = SalesforceOrg("b2b", env=fake.env())
    assert fresh.describe().to_prompt() == first.to_prompt()
    assert _batches(fake) == 2 and fake.logins == 1  # no network for the cached schema
    fresh.describe(refresh=True)
    assert _batches(fake) == 4
    other_user = SalesforceOrg("b2b", env={**fake.env(), "SALESFORCE_B2B_USERNAME": "x@y.org"})
    other_user.describe()  # another user may reach another org: its own cache entry
    assert _batches(fake) == 6
    assert len(list((locations.cache_dir() / "salesforce").glob("b2b-*-describe.json"))) == 2


def test_hub_schema_rows_choose_objects_fields_and_descriptions(fake: FakeSalesforce) -> None:
    rows = [
        {
            "object": "Case",
            "fields": {
                "Subject": "What the customer wrote",
                "OwnerId": "Agent",
                "Name": None,
                "NotInOrg__c": "gone",
            },
        },
        {"object": "User", "fields": {"Id": "User id", "Name": "Full name", "Email": None}},
    ]
    schema = SalesforceOrg("b2b", env=fake.env(), schema_rows=rows).describe()
    assert list(schema.objects) == ["Case", "User"]
    case = schema.objects["Case"]
    assert [(f.name, f.description) for f in case.fields] == [
        ("Subject", "What the customer wrote"),
        ("OwnerId", "Agent"),
    ]
    assert case.field("OwnerId").reference_to == "User"
    assert schema.to_prompt().startswith("Objects: Case, User\n\nCase:\n  - Subject: What the")
    assert sum(line.endswith("/composite/batch") for line in fake.log) == 1


def test_describe_failure_raises_code_colon_message(fake: FakeSalesforce) -> None:
    fake.network_down = True
    with pytest.raises(SalesforceApiError) as caught:
        SalesforceOrg("b2b", env=fake.env()).describe()
    assert str(caught.value) == "NETWORK_ERROR: cannot reach login.salesforce.com (ConnectionError)"
    with pytest.raises(SalesforceApiError, match="^MISSING_CREDENTIALS: .*SALESFORCE_B2B_USERNAME"):
        SalesforceOrg("b2b", env={}).describe()


def test_get_returns_the_whole_record_or_none(fake: FakeSalesforce) -> None:
    acme = record(
        "Account",
        ACCOUNT_ID,
        Name="Acme",
        Industry="Retail",
        IsDeleted=False,
        SystemModstamp="2024-01-01T00:00:00.000+0000",
    )
    fake.add_sobject(acme)
    org = SalesforceOrg("b2b", env=fake.env())
    assert org.get("Account", ACCOUNT_ID) == acme
    assert org.get("Account", "001Ak00000MissingA") is None  # the server's 404
    assert fake.log[-1].endswith("/sobjects/Account/001Ak00000MissingA")
    seen = len(fake.log)
    assert org.get("Account", "001'; DROP") is None and org.get("../x", ACCOUNT_ID) is None
    assert len(fake.log) == seen  # rejected before any request
    fake.network_down = True
    with pytest.raises(SalesforceApiError, match="^NETWORK_ERROR"):
        org.get("Account", ACCOUNT_ID)


def test_related_queries_child_relationships_with_a_cap(fake: FakeSalesforce) -> None:
    contact = record("Contact", "003Ak0000000001", FirstName="Ada", AccountId=ACCOUNT_ID)
    case = record("Case", "500Ak0000000001", Subject="Hinge", AccountId=ACCOUNT_ID)

    def answer(soql: str) -> list[dict] | None:
        if not soql.endswith(f"FROM Account WHERE Id = '{ACCOUNT_ID}'"):
            return None
        row = record("Account", ACCOUNT_ID)
        for rel in re.findall(r"FROM (\w+) LIMIT 200\)", soql):
            children = {"Contacts": [contact], "Cases": [case]}.get(rel)
            row[rel] = (
                {"totalSize": len(children), "done": True, "records": children}
                if children
                else None
            )
        return [row]

    fake.add_query_handler(answer)
    org = SalesforceOrg("b2b", env=fake.env())
    org.SUBQUERIES_PER_CALL = 4
    related = org.related("Account", ACCOUNT_ID)
    wanted = [r.name for r in reference_schema().child_relationships("Account")]
    assert sorted(related) == sorted(set(wanted))
    assert related["Contacts"] == [contact] and related["Cases"] == [case]
    assert all(related[name] == [] for name in related if name not in ("Contacts", "Cases"))
    sent = [q for q in fake.queries_seen if q.endswith(f"WHERE Id = '{ACCOUNT_ID}'")]
    assert len(sent) == 2  # 6 relationships, 4 per statement
    assert (
        "(SELECT Id, FirstName, LastName, Name, Email, AccountId FROM Contacts LIMIT 200)"
        in sent[0]
    )
    assert org.related("Account", "not an id") == {}
    assert org.related("NoSuchObject", ACCOUNT_ID) == {}


def test_describe_properties_override_the_field_types(fake: FakeSalesforce) -> None:
    """A live org's own describe decides (here: an org where Case.Subject is a long text area
    and Account.Description a short, filterable one)."""
    for f in fake.describes["Case"]["fields"]:
        if f["name"] == "Subject":
            f.update(length=32000, filterable=False, sortable=False, groupable=False)
    for f in fake.describes["Account"]["fields"]:
        if f["name"] == "Description":
            f.update(length=255, filterable=True, sortable=True, groupable=True)
    schema = SalesforceOrg("b2b", env=fake.env()).describe()
    subject = schema.object("Case").field("Subject")
    assert (subject.length, subject.filterable, subject.sortable, subject.groupable) == (
        32000,
        False,
        False,
        False,
    )
    desc = schema.object("Account").field("Description")
    assert desc.type == "textarea" and desc.filterable and desc.groupable and desc.length == 255
