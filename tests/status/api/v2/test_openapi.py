"""The hand-written OpenAPI 3.1 document of /api/v2 and the served API stay in step: the document
validates, names every served /api/v2 path (and serves nothing it does not name), carries the
prefix when served, and schemathesis finds no server error and no answer that contradicts it
when it drives the real app on a seeded SQLite database."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from importlib import resources

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from openapi_spec_validator import OpenAPIV31SpecValidator
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from starlette.testclient import TestClient

from sathub import db
from sathub.app import create_app
from sathub.config import Settings
from sathub.status.routes import routes
from sathub.status.store import catalog as catalog_store
from sathub.status.store import writes as report_writes

DOCUMENT = json.loads((resources.files("sathub.status.api.v2") / "openapi.json").read_text(encoding="utf-8"))
# The stream never ends: schemathesis cannot read a whole answer of it (tests/status/stream/ test it).
ENDLESS = {"/stream"}


def test_document_is_valid_openapi_3_1():
    OpenAPIV31SpecValidator(DOCUMENT).validate()
    assert DOCUMENT["openapi"].startswith("3.1.")
    assert DOCUMENT["info"]["version"] == "2.0.0"
    assert DOCUMENT["servers"] == [{"url": "/api/v2", "description": "Current host"}]


def test_operation_ids_are_unique_and_every_operation_tagged():
    operations = [op for item in DOCUMENT["paths"].values() for op in item.values()]
    ids = [op["operationId"] for op in operations]
    assert len(ids) == len(set(ids))
    tags = {tag["name"] for tag in DOCUMENT["tags"]}
    assert all(op["tags"][0] in tags for op in operations)


# Served under /api/v2 but not part of the API: the Swagger UI page that shows the document.
UNDOCUMENTED = {"/api/v2/docs"}


def test_every_served_v2_path_is_documented_and_every_documented_path_is_served():
    # a route's parameter with its convertor (`{name:path}`: a name may hold a slash) is OpenAPI's `{name}`
    paths = {re.sub(r"\{(\w+):\w+\}", r"{\1}", route.path) for route in routes()}
    served = {path for path in paths if path.startswith("/api/v2/")} - UNDOCUMENTED
    assert {f"/api/v2{path}" for path in DOCUMENT["paths"]} == served


def test_served_document_carries_the_prefix(engine, database_url):
    settings = Settings(database_url=database_url, base_url="http://sathub.test/status")
    with TestClient(create_app(settings, engine=engine), base_url="http://sathub.test") as client:
        response = client.get("/status/api/v2/openapi.json")
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/json; charset=utf-8"
        served = response.json()
        assert served["servers"] == [{"url": "/status/api/v2", "description": "Current host"}]
        assert served["paths"] == DOCUMENT["paths"]


# --- schemathesis against the real app ---


def seed(engine) -> None:
    """A catalog with a retired name, and reports of every kind the answers must serialize: a
    name no longer in the catalog, a NULL and an empty grid, a subsquare, an old value."""
    now = datetime.now(UTC)
    with db.connect(engine, write=True) as conn:
        catalog_store.load_catalog(
            conn,
            [
                {"name": "AO-91", "display_name": "AO-91 Mode U/v FM", "website": "https://www.amsat.org/"},
                {"name": "FO-29", "display_name": "FO-29", "website": ""},
                {"name": "ISS_[FM]", "display_name": "ISS Voice Repeater", "website": "https://www.ariss.org/"},
            ],
        )
        catalog_store.add_alias(conn, "[B]_AO-7", "FO-29")
        for offset, (name, callsign, report, grid) in enumerate(
            [
                ("AO-91", "W5API", "Heard", "EM25"),
                ("AO-91", "DL1ABC/P", "Not Heard", ""),
                ("ISS_[FM]", "K1ABC", "Crew Active", "FN42ab"),
                ("RETIRED-1", "HB9ABC", "Telemetry Only", None),
                ("FO-29", "JA1ABC", "Beacon?", "PM95"),
            ]
        ):
            when = now - timedelta(hours=5 * offset)
            row = dict(name=name, day=when.date(), hour=when.hour, period=offset % 4, callsign=callsign)
            report_writes.store_submitted(conn, [{**row, "report": report, "grid_square": grid}])


@pytest.fixture(scope="module")
def seeded_app(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('schemathesis_v2') / 'sathub.db'}"
    engine = db.create_engine(url)
    db.upgrade(engine)
    seed(engine)
    yield create_app(Settings(database_url=url, base_url="http://sathub.test"), engine=engine)
    engine.dispose()


schema = schemathesis.openapi.from_dict(DOCUMENT).exclude(path=sorted(ENDLESS))

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
]


@schema.parametrize()
@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_the_document(case, seeded_app):
    case.call_and_validate(app=seeded_app, checks=CHECKS)
