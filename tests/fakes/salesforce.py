"""A stateful fake of the Salesforce endpoints `SalesforceOrg` uses, on top of `responses`.

    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        fake = FakeSalesforce(mock)
        fake.add_query("SELECT Id FROM Case", [record("Case", "500...")])
        SalesforceOrg("b2b", env=fake.env()).query("SELECT Id FROM Case")

It answers the SOAP login (issuing a fresh session id each time), SOQL with pagination through
`nextRecordsUrl`, SOSL, composite-batch describes, sObject GETs, and Salesforce's error bodies.
Requests carrying a session id it did not issue, or one it has expired, get 401 INVALID_SESSION_ID.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlparse

import requests
import responses

from crmarena_tui.orgs.base import API_VERSION
from crmarena_tui.orgs.schema import Schema

VERSION = API_VERSION.lstrip("v")
INSTANCE = "fake-org.my.salesforce.com"
DATA_PATH = f"/services/data/{API_VERSION}"
BASE = f"https://{INSTANCE}{DATA_PATH}"

# Fake secrets: tests check that none of them leaks anywhere.
USERNAME = "agent.smith@example-fake.org"
PASSWORD = "pw-Zq81-fake-secret"
TOKEN = "tok9XbYfakeToken77"


def login_url(domain: str = "login") -> str:
    return f"https://{domain}.salesforce.com/services/Soap/u/{VERSION}"


def record(sobject: str, record_id: str, **fields: Any) -> dict[str, Any]:
    """A record as Salesforce's REST API returns it."""
    return {
        "attributes": {"type": sobject, "url": f"{DATA_PATH}/sobjects/{sobject}/{record_id}"},
        "Id": record_id,
        **fields,
    }


def aggregate(**fields: Any) -> dict[str, Any]:
    return {"attributes": {"type": "AggregateResult"}, **fields}


def error_body(code: str, message: str) -> list[dict[str, Any]]:
    return [{"message": message, "errorCode": code}]


def _login_ok(session_id: str) -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"
 xmlns="urn:partner.soap.sforce.com"><soapenv:Body><loginResponse><result>
<metadataServerUrl>https://{INSTANCE}/services/Soap/m/{VERSION}/00D000000000001</metadataServerUrl>
<passwordExpired>false</passwordExpired><sandbox>false</sandbox>
<serverUrl>https://{INSTANCE}/services/Soap/u/{VERSION}/00D000000000001</serverUrl>
<sessionId>{session_id}</sessionId><userId>005000000000001AAA</userId>
</result></loginResponse></soapenv:Body></soapenv:Envelope>"""


LOGIN_FAULT = """<?xml version="1.0" encoding="UTF-8"?>
<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"
 xmlns:sf="urn:fault.partner.soap.sforce.com"><soapenv:Body><soapenv:Fault>
<faultcode>sf:INVALID_LOGIN</faultcode>
<faultstring>INVALID_LOGIN: Invalid username, password, security token; or user locked out.</faultstring>
<detail><sf:LoginFault><sf:exceptionCode>INVALID_LOGIN</sf:exceptionCode>
<sf:exceptionMessage>Invalid username, password, security token; or user locked out.</sf:exceptionMessage>
</sf:LoginFault></detail></soapenv:Fault></soapenv:Body></soapenv:Envelope>"""


@dataclass
class _Answer:
    pages: list[dict[str, Any]] = field(default_factory=list)
    status: int = 200
    error: list[dict[str, Any]] | None = None
    raw: str | None = None  # a body that is not JSON (a proxy's or maintenance page)


class FakeSalesforce:
    def __init__(self, mock: responses.RequestsMock, *, domain: str = "login") -> None:
        self.mock = mock
        self.queries: dict[str, _Answer] = {}
        self.searches: dict[str, _Answer] = {}
        self.sobjects: dict[tuple[str, str], dict[str, Any]] = {}
        self.describes: dict[str, dict[str, Any]] = {}
        self.locators: dict[str, dict[str, Any]] = {}
        self.query_handlers: list[Callable[[str], list[dict[str, Any]] | None]] = []
        self.backend: Callable[[str], tuple[int, Any]] | None = None
        self.queries_seen: list[str] = []
        self.issued: list[str] = []  # every session id handed out, in order
        self.valid: set[str] = set()
        self.reject_every_session = False  # 401 even right after a login
        self.login_fails = False
        self.network_down = False
        self.fail_with: Exception | None = None  # raised for every request while set
        self.hold_401: threading.Barrier | None = None  # 401s wait here for each other
        self.log: list[str] = []  # "METHOD path" of every request seen
        mock.add_callback("POST", login_url(domain), callback=self._login)
        mock.add_callback(
            "GET", re.compile(re.escape(BASE) + r"/query/?(\?.*)?$"), callback=self._query
        )
        mock.add_callback(
            "GET", re.compile(re.escape(BASE) + r"/query/(01g[\w-]+)$"), callback=self._query_more
        )
        mock.add_callback(
            "GET", re.compile(re.escape(BASE) + r"/search/?(\?.*)?$"), callback=self._search
        )
        mock.add_callback("POST", f"{BASE}/composite/batch", callback=self._batch)
        mock.add_callback(
            "GET", re.compile(re.escape(BASE) + r"/sobjects/(\w+)/(\w+)$"), callback=self._sobject
        )

    # --- set-up ----------------------------------------------------------------------------

    @staticmethod
    def env(prefix: str = "SALESFORCE_B2B_", **extra: str) -> dict[str, str]:
        return {
            f"{prefix}USERNAME": USERNAME,
            f"{prefix}PASSWORD": PASSWORD,
            f"{prefix}SECURITY_TOKEN": TOKEN,
            **extra,
        }

    def add_query(
        self,
        soql: str,
        records: list[dict[str, Any]],
        *,
        page_size: int = 2000,
        total_size: int | None = None,
    ) -> None:
        """Answer `soql` with `records`, split into pages of `page_size` linked by nextRecordsUrl."""
        total = len(records) if total_size is None else total_size
        chunks = [records[i : i + page_size] for i in range(0, len(records), page_size)] or [[]]
        pages = []
        for n, chunk in enumerate(chunks):
            page: dict[str, Any] = {
                "totalSize": total,
                "done": n == len(chunks) - 1,
                "records": chunk,
            }
            if n < len(chunks) - 1:
                locator = f"01gFAKE{len(self.locators):04d}-{(n + 1) * page_size}"
                page["nextRecordsUrl"] = f"{DATA_PATH}/query/{locator}"
            pages.append(page)
        for n, page in enumerate(pages[:-1]):
            self.locators[page["nextRecordsUrl"].rsplit("/", 1)[1]] = pages[n + 1]
        self.queries[soql] = _Answer(pages=pages)

    def add_query_handler(self, handler: Callable[[str], list[dict[str, Any]] | None]) -> None:
        """`handler(soql)` answers with records (one page), or None to pass."""
        self.query_handlers.append(handler)

    def answer_from(self, backend: Callable[[str], tuple[int, Any]]) -> None:
        """Answer every query and search not otherwise known with `backend(text) -> (status, body)`:
        a whole REST body, so a real org's data (e.g. a LocalOrg's `to_response()`) can stand behind
        the fake."""
        self.backend = backend

    def add_query_error(self, soql: str, code: str, message: str, status: int = 400) -> None:
        self.queries[soql] = _Answer(status=status, error=error_body(code, message))

    def add_query_raw(self, soql: str, body: str, status: int = 200) -> None:
        self.queries[soql] = _Answer(status=status, raw=body)

    def add_search(self, sosl: str, records: list[dict[str, Any]]) -> None:
        self.searches[sosl] = _Answer(pages=[{"searchRecords": records}])

    def add_search_error(self, sosl: str, code: str, message: str, status: int = 400) -> None:
        self.searches[sosl] = _Answer(status=status, error=error_body(code, message))

    def add_sobject(self, rec: dict[str, Any]) -> None:
        self.sobjects[(rec["attributes"]["type"], rec["Id"])] = rec

    def add_describes(self, schema: Schema, *, skip: tuple[str, ...] = ()) -> None:
        """Describe bodies for every object of `schema` (as the real API shapes them)."""
        for name in schema.objects:
            if name not in skip:
                self.describes[name] = describe_body(schema, name)

    def expire_sessions(self) -> None:
        """Every session issued so far stops working (as after a server-side timeout)."""
        self.valid.clear()

    @property
    def logins(self) -> int:
        return len(self.issued)

    # --- callbacks -------------------------------------------------------------------------

    def _seen(self, request: Any) -> None:
        self.log.append(f"{request.method} {urlparse(request.url).path}")

    def _broken(self) -> Exception | None:
        if self.fail_with is not None:
            return self.fail_with
        if self.network_down:
            return requests.ConnectionError("Failed to establish a new connection")
        return None

    def _login(self, request: Any) -> Any:
        self._seen(request)
        if (broken := self._broken()) is not None:
            return broken
        body = request.body.decode() if isinstance(request.body, bytes) else request.body
        if self.login_fails or f"<n1:password>{PASSWORD}{TOKEN}</n1:password>" not in body:
            return 500, {"Content-Type": "text/xml"}, LOGIN_FAULT
        sid = f"00DFAKE!session{len(self.issued) + 1:03d}.AQcAQH0dMHZfake"
        self.issued.append(sid)
        self.valid.add(sid)
        return 200, {"Content-Type": "text/xml"}, _login_ok(sid)

    def _authorised(self, request: Any) -> tuple[int, dict[str, str], str] | None:
        """None when the request may proceed, else the 401 (or network error) to answer with."""
        self._seen(request)
        if (broken := self._broken()) is not None:
            return broken  # type: ignore[return-value]
        token = request.headers.get("Authorization", "").removeprefix("Bearer ")
        if self.reject_every_session or token not in self.valid:
            if self.hold_401 is not None:
                self.hold_401.wait(timeout=5)
            return self._json(401, error_body("INVALID_SESSION_ID", "Session expired or invalid"))
        return None

    @staticmethod
    def _json(status: int, body: Any) -> tuple[int, dict[str, str], str]:
        return status, {"Content-Type": "application/json"}, json.dumps(body)

    def _answer(self, answer: _Answer | None, unknown: str) -> Any:
        if answer is None:
            return self._json(
                400, error_body("MALFORMED_QUERY", f"fake has no answer for: {unknown}")
            )
        if answer.error is not None:
            return self._json(answer.status, answer.error)
        if answer.raw is not None:
            return answer.status, {"Content-Type": "text/html"}, answer.raw
        return self._json(200, answer.pages[0])

    def _query(self, request: Any) -> Any:
        denied = self._authorised(request)
        if denied is not None:
            return denied
        soql = parse_qs(urlparse(request.url).query)["q"][0]
        self.queries_seen.append(soql)
        for handler in self.query_handlers:
            records = handler(soql)
            if records is not None:
                return self._json(
                    200, {"totalSize": len(records), "done": True, "records": records}
                )
        if soql not in self.queries and self.backend is not None:
            return self._json(*self.backend(soql))
        return self._answer(self.queries.get(soql), soql)

    def _query_more(self, request: Any) -> Any:
        denied = self._authorised(request)
        if denied is not None:
            return denied
        locator = urlparse(request.url).path.rsplit("/", 1)[1]
        page = self.locators.get(locator)
        if page is None:
            return self._json(400, error_body("INVALID_QUERY_LOCATOR", "invalid query locator"))
        return self._json(200, page)

    def _search(self, request: Any) -> Any:
        denied = self._authorised(request)
        if denied is not None:
            return denied
        sosl = parse_qs(urlparse(request.url).query)["q"][0]
        if sosl not in self.searches and self.backend is not None:
            return self._json(*self.backend(sosl))
        return self._answer(self.searches.get(sosl), sosl)

    def _batch(self, request: Any) -> Any:
        denied = self._authorised(request)
        if denied is not None:
            return denied
        results = []
        for sub in json.loads(request.body)["batchRequests"]:
            name = sub["url"].split("/")[-2]
            if name in self.describes:
                results.append({"statusCode": 200, "result": self.describes[name]})
            else:
                results.append(
                    {
                        "statusCode": 404,
                        "result": error_body("NOT_FOUND", "The requested resource does not exist"),
                    }
                )
        has_errors = any(r["statusCode"] != 200 for r in results)
        return self._json(200, {"hasErrors": has_errors, "results": results})

    def _sobject(self, request: Any) -> Any:
        denied = self._authorised(request)
        if denied is not None:
            return denied
        _, _, sobject, record_id = urlparse(request.url).path.rsplit("/", 3)
        rec = self.sobjects.get((sobject, record_id))
        if rec is None:
            return self._json(404, error_body("NOT_FOUND", "The requested resource does not exist"))
        return self._json(200, rec)


_SYSTEM_FIELDS = [
    ("IsDeleted", "boolean"),
    ("SystemModstamp", "datetime"),
    ("LastModifiedDate", "datetime"),
]


def describe_body(schema: Schema, name: str) -> dict[str, Any]:
    """An sObject describe as the API returns it: system fields included, labels not descriptions,
    owner references polymorphic (Group or User), child relationships on the parent."""
    obj = schema.objects[name]
    fields = []
    for f in obj.fields:
        targets = [f.reference_to] if f.reference_to else []
        if f.name == "OwnerId":
            targets = ["Group", "User"]
        fields.append(
            {
                "name": f.name,
                "type": f.type,
                "label": f.name + " label",
                "referenceTo": targets,
                "relationshipName": f.relationship_name,
                "nillable": True,
                "length": f.length,
                "filterable": f.filterable,
                "sortable": f.sortable,
                "groupable": f.groupable,
                "aggregatable": f.aggregatable,
                "polymorphicForeignKey": f.polymorphic,
            }
        )
    fields += [
        {"name": n, "type": t, "label": n, "referenceTo": [], "relationshipName": None}
        for n, t in _SYSTEM_FIELDS
    ]
    children = [
        {
            "childSObject": r.child_object,
            "field": r.field,
            "relationshipName": r.name,
            "cascadeDelete": False,
        }
        for r in schema.child_relationships(name)
    ]
    children.append({"childSObject": "FeedItem", "field": "ParentId", "relationshipName": "Feeds"})
    return {
        "name": name,
        "label": obj.label,
        "keyPrefix": obj.key_prefix,
        "queryable": True,
        "fields": fields,
        "childRelationships": children,
    }
