"""The hand-written OpenAPI document and the served API stay in step.

The document validates, keeps the facts upstream's tests assert (status-api.md 4.7, 12), names
every served /api/v1 route, and schemathesis finds no server error and no response that
contradicts it when it drives the real app on a seeded SQLite database."""

from __future__ import annotations

import json
import re
from datetime import date, timedelta
from importlib import resources

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from openapi_spec_validator import validate
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    allow_header_conformance,
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)
from starlette.testclient import TestClient

from sathub import db
from sathub.app import create_app
from sathub.config import Settings
from sathub.status.api import legacy_arrays, v1
from sathub.status.routes import routes
from sathub.status.store import catalog as catalog_store
from sathub.status.store import writes as report_writes

DOCUMENT_TEXT = (resources.files("sathub.status.api") / "openapi.json").read_text(encoding="utf-8")
DOCUMENT = json.loads(DOCUMENT_TEXT)

# Served under /api/v1 but deliberately not in the document: the plain-text listing (4.8),
# which answers every method and is not JSON.
# Upstream's document names seven paths; the listing and the document itself are not among them.
UNDOCUMENTED = {"/api/v1/", "/api/v1/index.php", "/api/v1/openapi.php", "/api/v1/openapi.json"}

# status-api.md 11: the operations upstream's document names, which clients may rely on.
UPSTREAM_OPERATIONS = {
    ("/catalog.php", "get"): ("getCatalog", "Catalog"),
    ("/reports.php", "get"): ("getReports", "Reports"),
    ("/reports.php", "post"): ("createReport", "Reports"),
    ("/summary.php", "get"): ("getSummary", "Reports"),
    ("/statuses.php", "get"): ("getStatuses", "Metadata"),
    ("/health.php", "get"): ("getHealth", "Metadata"),
    ("/satellites.php", "get"): ("getLegacySatellites", "Legacy"),
    ("/sat_info.php", "get"): ("getLegacySatInfo", "Legacy"),
}


def test_document_is_valid_openapi_3_0_3():
    validate(DOCUMENT)
    assert DOCUMENT["openapi"] == "3.0.3"


def test_document_keeps_upstream_facts():
    assert DOCUMENT["info"]["title"] == "AMSAT Satellite Status API"
    assert DOCUMENT["info"]["version"] == "1.0.0"
    assert DOCUMENT["servers"] == [{"url": "/api/v1", "description": "Current host"}]
    assert [tag["name"] for tag in DOCUMENT["tags"]] == ["Catalog", "Reports", "Metadata", "Legacy"]
    for (path, method), (operation_id, tag) in UPSTREAM_OPERATIONS.items():
        operation = DOCUMENT["paths"][path][method]
        assert operation["operationId"] == operation_id
        assert operation["tags"] == [tag]
    assert DOCUMENT["paths"]["/reports.php"]["get"]["summary"].startswith("Search")
    assert DOCUMENT["paths"]["/reports.php"]["post"]["summary"].startswith("Submit")
    assert {"Report", "ReportCreate", "ErrorResponse"} <= DOCUMENT["components"]["schemas"].keys()


def test_operation_ids_are_unique():
    ids = [op["operationId"] for item in DOCUMENT["paths"].values() for op in item.values()]
    assert len(ids) == len(set(ids))


def test_prefix_rewrite_finds_the_servers_url_exactly_once():
    # api.v1.openapi rewrites this exact text to carry the deployment prefix.
    assert DOCUMENT_TEXT.count('"url": "/api/v1"') == 1
    assert DOCUMENT_TEXT.startswith('{\n    "openapi": "3.0.3",')


def test_every_served_route_is_documented_and_every_documented_path_is_served():
    served = {route.path for route in routes() if route.endpoint.__module__ in (v1.__name__, legacy_arrays.__name__)}
    documented = {f"/api/v1{path}" for path in DOCUMENT["paths"]}
    assert documented == served - UNDOCUMENTED


def test_served_document_carries_the_prefix(engine, database_url):
    settings = Settings(database_url=database_url, base_url="http://sathub.test/status")
    with TestClient(create_app(settings, engine=engine), base_url="http://sathub.test") as client:
        for path in ("/status/api/v1/openapi.php", "/status/api/v1/openapi.json"):
            response = client.get(path)
            assert response.status_code == 200
            assert response.headers["content-type"] == "application/json; charset=utf-8"
            assert response.headers["cache-control"] == "no-store"
            served = response.json()
            assert served["servers"] == [{"url": "/status/api/v1", "description": "Current host"}]
            assert served["paths"] == DOCUMENT["paths"]


@pytest.mark.parametrize("lookalike", ["\u0131A12", "EM12\u212a\u212a"])
def test_grid_filter_refuses_non_ascii_lookalikes(client, lookalike):
    # Dotless i upper-cases to "I" and the Kelvin sign lower-cases to "k": still not locators (5.3),
    # as the document's pattern says.
    pattern = DOCUMENT["components"]["parameters"]["GridSquareFilter"]["schema"]["pattern"]
    assert re.search(pattern, lookalike) is None
    response = client.get("/api/v1/reports.php", params={"grid_square": lookalike})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_grid_square"


# --- schemathesis against the real app ---

SEED_CATALOG = [
    {"name": "AO-91", "display_name": "AO-91 Mode U/v FM", "website": "https://www.amsat.org/"},
    {"name": "FO-29", "display_name": "FO-29", "website": ""},
    {"name": "ISS_[FM]", "display_name": "ISS Voice Repeater", "website": "https://www.ariss.org/"},
]


def seed(engine) -> None:
    """A catalog plus reports of every kind reads must serialize: a non-catalog name, a NULL grid."""
    today = date.today()
    with db.connect(engine, write=True) as conn:
        catalog_store.load_catalog(conn, SEED_CATALOG)
        for offset, (name, callsign, report, grid) in enumerate(
            [
                ("AO-91", "W5API", "Heard", "EM25"),
                ("AO-91", "DL1ABC/P", "Not Heard", ""),
                ("ISS_[FM]", "K1ABC", "Crew Active", "FN42ab"),
                ("RETIRED-1", "HB9ABC", "Telemetry Only", None),
            ]
        ):
            report_writes.store_submitted(
                conn,
                [
                    dict(
                        name=name,
                        day=today - timedelta(days=offset),
                        hour=offset,
                        period=offset % 4,
                        callsign=callsign,
                        report=report,
                        grid_square=grid,
                    )
                ],
            )[0]


@pytest.fixture(scope="module")
def seeded_app(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('schemathesis') / 'sathub.db'}"
    engine = db.create_engine(url)
    db.upgrade(engine)
    seed(engine)
    yield create_app(Settings(database_url=url, base_url="http://sathub.test"), engine=engine)
    engine.dispose()


schema = schemathesis.openapi.from_dict(DOCUMENT)

RESPONSE_CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    unsupported_method,  # 405 with Allow for every method the document does not list
    allow_header_conformance,  # OPTIONS advertises exactly the documented methods
]
# Query parameters are documented as exactly what the server accepts (patterns for the lenient
# integers and locators), so a value the document calls invalid must be refused. The POST body
# is documented as what clients should send: the server also takes PHP-style casts of it
# ("2026.5" as year 2026, parts ignored beside reported_at), which no JSON Schema states honestly.
QUERY_CHECKS = [*RESPONSE_CHECKS, negative_data_rejection]


@schema.parametrize()
@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_the_document(case, seeded_app):
    checks = RESPONSE_CHECKS if case.method == "POST" else QUERY_CHECKS
    case.call_and_validate(app=seeded_app, checks=checks)


# --- where schemathesis once found document and behaviour apart (issue 14, item 6) ---


def schema_valid(schema: dict, value) -> bool:
    from jsonschema import FormatChecker
    from openapi_schema_validator import OAS30Validator

    return OAS30Validator(schema, format_checker=FormatChecker()).is_valid(value)


REPORT_CREATE = DOCUMENT["components"]["schemas"]["ReportCreate"]
SINCE = DOCUMENT["components"]["parameters"]["Since"]["schema"]


@pytest.mark.parametrize(
    "change, valid, status",
    [
        ({}, True, 201),
        ({"minute": 60}, True, 201),  # beside reported_at the parts are not read: the document says so too
        ({"reported_at": None, "year": 2025, "month": 1, "day": 1, "hour": 2, "minute": 60}, False, 422),
        ({"report": ""}, False, 422),
        ({"report": " telemetry "}, True, 201),
        ({"report": "Loud"}, False, 422),
    ],
)
def test_the_report_body_schema_and_the_server_agree(client, change, valid, status):
    with db.connect(client.app.state.engine, write=True) as conn:
        catalog_store.load_catalog(conn, SEED_CATALOG)
    body = {"name": "AO-91", "report": "Heard", "callsign": "W1AW", "reported_at": "2026-01-01T10:00:00Z", **change}
    body = {key: value for key, value in body.items() if value is not None}
    assert schema_valid(REPORT_CREATE, body) is valid
    assert client.post("/api/v1/reports.php", json=body).status_code == status


@pytest.mark.parametrize(
    "since, valid, status",
    [
        ("2026-05-23T08:30:00Z", True, 200),
        ("", True, 200),
        ("yesterday-ish", False, 400),
        ("2026-02-30T00:00:00Z", False, 400),
    ],
)
def test_the_since_schema_and_the_server_agree(client, since, valid, status):
    assert schema_valid(SINCE, since) is valid
    assert client.get("/api/v1/reports.php", params={"since": since}).status_code == status
