"""HTTP tests of the /api/v1 JSON endpoints (catalog, report search, summary, statuses, health,
index) through the real app, on SQLite and PostgreSQL (status-api.md 2, 4, 12)."""

import json
from datetime import UTC, datetime, timedelta

import pytest
from starlette.testclient import TestClient

from sathub.app import create_app
from sathub.config import Settings
from tests.status.api.envelope import error_code
from tests.status.seed import hours_ago, seed_catalog, store_report

BASE = "http://sathub.test/api/v1"
JSON_TYPE = "application/json; charset=utf-8"


def test_catalog_with_stats(client, seeded):
    store_report(seeded, "AO-91", hours_ago(2))
    response = client.get("/api/v1/catalog.php?include_stats=true")
    assert response.status_code == 200
    assert response.headers["content-type"] == JSON_TYPE
    body = response.json()
    assert [item["name"] for item in body["data"]] == ["AO-91", "FO-29", "ISS-FM"]
    assert body["meta"] == {"count": 3}
    first = body["data"][0]
    assert list(first) == ["id", "name", "display_name", "website", "links", "report_count", "latest_reported_time"]
    assert first["links"] == {"self": f"{BASE}/catalog.php?name=AO-91", "reports": f"{BASE}/reports.php?name=AO-91"}
    assert first["report_count"] == 1
    assert first["latest_reported_time"] == hours_ago(2).strftime("%Y-%m-%dT%H:30:00Z")
    assert body["data"][1]["report_count"] == 0 and body["data"][1]["latest_reported_time"] is None


def test_catalog_without_stats_and_by_display_name(client, seeded):
    body = client.get("/api/v1/catalog.php", params={"name": " iss voice repeater "}).json()
    assert [item["name"] for item in body["data"]] == ["ISS-FM"]
    assert list(body["data"][0]) == ["id", "name", "display_name", "website", "links"]
    assert client.get("/api/v1/catalog.php?include_stats=false").json()["data"][0].get("report_count") is None


def test_catalog_unknown_name_is_404(client, seeded):
    response = client.get("/api/v1/catalog.php?name=NO-SUCH-SAT")
    assert response.status_code == 404 and error_code(response) == "satellite_not_found"


def test_catalog_link_encoding(client, engine):
    seed_catalog(engine, [{"name": "AO-7_[U/v] x", "display_name": "AO-7 [U/v]", "website": ""}])
    links = client.get("/api/v1/catalog.php").json()["data"][0]["links"]
    assert links["reports"] == f"{BASE}/reports.php?name=AO-7_%5BU%2Fv%5D%20x"


# --- reports search ---


def test_reports_search(client, seeded):
    store_report(seeded, "AO-91", hours_ago(3), callsign="W1AW")
    store_report(seeded, "AO-91", hours_ago(1), callsign="K1ABC", report="Not Heard", grid="")
    store_report(seeded, "FO-29", hours_ago(1), callsign="K1ABC")
    response = client.get("/api/v1/reports.php?name=AO-91&hours=72")
    assert response.status_code == 200 and response.headers["content-type"] == JSON_TYPE
    body = response.json()
    assert list(body) == ["data", "meta"]
    assert list(body["meta"]) == ["count", "limit", "since", "hours"]
    assert body["meta"]["count"] == 2 and body["meta"]["limit"] == 100 and body["meta"]["hours"] == 72
    first = body["data"][0]
    assert list(first) == [
        "id",
        "name",
        "satellite_display_name",
        "reported_time",
        "callsign",
        "report",
        "grid_square",
        "period",
    ]
    assert first["callsign"] == "K1ABC" and first["grid_square"] == "" and first["period"] == 1
    assert first["satellite_display_name"] == "AO-91 Mode U/v FM"
    assert first["reported_time"].endswith(":30:00Z") and len(first["reported_time"]) == 20


def test_reports_filters(client, seeded):
    store_report(seeded, "AO-91", hours_ago(3), callsign="W1AW", grid="FN31pr")
    store_report(seeded, "AO-91", hours_ago(2), callsign="K1ABC", report="Telemetry Only", grid="FN42")
    data = lambda query: client.get("/api/v1/reports.php?" + query).json()["data"]  # noqa: E731
    assert [r["callsign"] for r in data("callsign=w1aw")] == ["W1AW"]
    assert [r["callsign"] for r in data("grid_square=fn31PR")] == ["W1AW"]
    assert data("grid_square=FN31") == []  # 4 characters do not match stored 6
    assert [r["callsign"] for r in data("status=telemetry")] == ["K1ABC"]
    # A display name finds the satellite's reports (upstream answered [] here: we differ).
    assert len(data("name=AO-91%20Mode%20U/v%20FM")) == 2
    assert len(data("limit=1")) == 1
    assert len(data("hours=1")) == 0


def test_reports_window_and_since(client, seeded):
    store_report(seeded, "AO-91", hours_ago(100))
    assert client.get("/api/v1/reports.php").json()["meta"]["count"] == 0
    since = (datetime.now(UTC) - timedelta(hours=200)).strftime("%Y-%m-%dT%H:%M:%SZ")
    body = client.get("/api/v1/reports.php", params={"since": since, "hours": "5"}).json()
    assert body["meta"]["count"] == 1 and body["meta"]["since"] == since and body["meta"]["hours"] == 5


@pytest.mark.parametrize("since", ["9999-12-31T23:59:59Z", "9999-12-31T23:31:00Z", "@253402300799"])
def test_reports_since_the_end_of_time_are_none(client, seeded, since):
    store_report(seeded, "AO-91", hours_ago(1))
    response = client.get("/api/v1/reports.php", params={"since": since})
    assert response.status_code == 200 and response.json()["data"] == []


@pytest.mark.parametrize(
    "query, status, code",
    [
        ("hours=not-a-number", 400, "invalid_parameter"),
        ("limit=12abc", 400, "invalid_parameter"),
        ("grid_square=BADGRID", 400, "invalid_grid_square"),
        ("name=NO-SUCH-SAT", 404, "satellite_not_found"),
        ("status=Loud", 400, "invalid_status"),
        ("since=yesterday-ish", 400, "invalid_since"),
        ("hours=x&name=NO-SUCH-SAT", 400, "invalid_parameter"),  # evaluation order: hours first
        ("name=NO-SUCH-SAT&since=bad", 404, "satellite_not_found"),
    ],
)
def test_reports_errors(client, seeded, query, status, code):
    response = client.get("/api/v1/reports.php?" + query)
    assert response.status_code == status and error_code(response) == code
    assert response.json()["error"]["status"] == status


def test_invalid_parameter_details(client, seeded):
    error = client.get("/api/v1/reports.php?hours=not-a-number").json()["error"]
    assert error["details"] == {"hours": "not-a-number"}


@pytest.mark.parametrize(
    "query, limit, hours",
    [
        ("limit=0", 1, 72),
        ("limit=9999", 500, 72),
        ("hours=0", 100, 1),
        ("hours=1e9", 100, 720),
        ("hours=5.9", 100, 5),
        ("limit=", 100, 72),
        ("hours=-3", 100, 1),
        ("hours=%205", 100, 5),
    ],
)
def test_reports_clamping(client, seeded, query, limit, hours):
    meta = client.get("/api/v1/reports.php?" + query).json()["meta"]
    assert (meta["limit"], meta["hours"]) == (limit, hours)


# --- summary, statuses, health ---


def test_summary(client, seeded):
    store_report(seeded, "AO-91", hours_ago(2), callsign="W1AW")
    store_report(seeded, "AO-91", hours_ago(3), callsign="K1ABC")
    store_report(seeded, "AO-91", hours_ago(4), callsign="K1ABC", report="Not Heard")
    store_report(seeded, "Retired-Sat", hours_ago(1))
    store_report(seeded, "FO-29", hours_ago(30))
    body = client.get("/api/v1/summary.php").json()
    assert body["meta"] == {"hours": 24, "count": 3}
    assert [(r["name"], r["report"], r["report_count"]) for r in body["data"]] == [
        ("AO-91", "Heard", 2),
        ("AO-91", "Not Heard", 1),
        ("Retired-Sat", "Heard", 1),
    ]
    assert list(body["data"][0]) == ["name", "satellite_display_name", "report", "report_count", "latest_reported_time"]
    assert body["data"][0]["latest_reported_time"] == hours_ago(2).strftime("%Y-%m-%dT%H:30:00Z")
    assert body["data"][2]["satellite_display_name"] is None
    assert client.get("/api/v1/summary.php?hours=48").json()["meta"]["count"] == 4
    assert error_code(client.get("/api/v1/summary.php?hours=abc")) == "invalid_parameter"


def test_summary_follows_writes_of_another_process(client, seeded, engine, settings):
    """A process keeps its summary and updates it from the counts changed since (migration 0007):
    writes through another app on the same database (new reports, a replacement that empties a
    group, a new name) show in its next answer, which is the answer a fresh process gives."""
    other = TestClient(create_app(settings, engine=engine), base_url="http://sathub.test")
    store_report(seeded, "AO-91", hours_ago(2), callsign="W1AW")
    assert [(r["name"], r["report"], r["report_count"]) for r in client.get("/api/v1/summary.php").json()["data"]] == [
        ("AO-91", "Heard", 1)
    ]
    posts = [
        {"name": "AO-91", "report": "Heard", "callsign": "K1ABC", "reported_at": hours_ago(1).isoformat()},
        {"name": "AO-91", "report": "Not Heard", "callsign": "W1AW", "reported_at": hours_ago(2).isoformat()},
        {"name": "FO-29", "report": "Telemetry Only", "callsign": "K1ABC", "reported_at": hours_ago(1).isoformat()},
        {"name": "AO-91", "report": "Heard", "callsign": "W1AW", "reported_at": hours_ago(2).isoformat()},
    ]
    expected = [
        [("AO-91", "Heard", 2)],
        [("AO-91", "Heard", 1), ("AO-91", "Not Heard", 1)],
        [("AO-91", "Heard", 1), ("AO-91", "Not Heard", 1), ("FO-29", "Telemetry Only", 1)],
        [("AO-91", "Heard", 2), ("FO-29", "Telemetry Only", 1)],
    ]
    for post, rows in zip(posts, expected, strict=True):
        posted = other.post("/api/v1/reports.php", json=post)
        assert posted.status_code == 201, posted.text
        response = client.get("/api/v1/summary.php")
        assert [(r["name"], r["report"], r["report_count"]) for r in response.json()["data"]] == rows
        with TestClient(create_app(settings, engine=engine), base_url="http://sathub.test") as fresh:
            assert response.content == fresh.get("/api/v1/summary.php").content


def test_statuses(client):
    body = client.get("/api/v1/statuses.php").json()
    assert body == {
        "data": [
            {"value": "Heard", "label": "Satellite active"},
            {"value": "Telemetry Only", "label": "Telemetry or beacon only"},
            {"value": "Not Heard", "label": "No signal"},
            {"value": "Crew Active", "label": "ISS crew voice active"},
        ],
        "meta": {"count": 4},
    }


def test_health(client):
    body = client.get("/api/v1/health.php").json()
    assert list(body["data"]) == ["status", "version", "time"]
    assert body["data"]["status"] == "ok" and body["data"]["version"] == "1.0.0"


# --- methods, headers, formatting ---


def test_index_listing(client):
    response = client.get("/api/v1/")
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    assert "1.0.0" in response.text
    # Upstream aligns the OpenAPI line with "Documentation: " (seven spaces after the colon).
    assert (
        "\nDocumentation: http://sathub.test/api/\nOpenAPI:       http://sathub.test/api/v1/openapi.php\n"
        in response.text
    )
    assert f"{BASE}/sat_info.php?name=AO-91&hours=24" in response.text
    assert client.get("/api/v1/index.php").text == response.text


def test_unknown_paths_are_404(client):
    for path in (
        "/info.php",
        "/admin/passwordhash.php",
        "/composer.json",
        "/db/schema.sql",
        "/config.php",
        "/api/v1/lib/bootstrap.php",
        "/API/V1/CATALOG.PHP",
    ):
        assert client.get(path).status_code == 404


def test_path_prefix(engine, database_url):
    settings = Settings(database_url=database_url, base_url="https://www.amsat.org/status")
    seed_catalog(engine)
    with TestClient(create_app(settings, engine=engine)) as client:
        assert client.get("/api/v1/catalog.php").status_code == 404
        body = client.get("/status/api/v1/catalog.php").json()
        assert body["data"][0]["links"]["self"] == "https://www.amsat.org/status/api/v1/catalog.php?name=AO-91"
        document = json.loads(client.get("/status/api/v1/openapi.php").text)
        assert document["servers"][0]["url"] == "/status/api/v1"


def test_links_fall_back_to_request_host(engine, database_url):
    seed_catalog(engine)
    with TestClient(
        create_app(Settings(database_url=database_url), engine=engine), base_url="http://example.org:8123"
    ) as client:
        link = client.get("/api/v1/catalog.php").json()["data"][0]["links"]["self"]
        assert link == "http://example.org:8123/api/v1/catalog.php?name=AO-91"


def test_catalog_stats_for_non_ascii_names(client, engine):
    # The totals' key must be the database's own lower(), which the catalog join uses.
    seed_catalog(engine, [{"name": "İSS-Ω", "display_name": "İSS Ω", "website": ""}])
    store_report(engine, "İSS-Ω", hours_ago(1))
    assert client.get("/api/v1/catalog.php?include_stats=1").json()["data"][0]["report_count"] == 1


# --- parameters sent as arrays (PHP's $_GET: `x[]=…` is an array, which is no value) ---


@pytest.mark.parametrize(
    "query, status, code, details",
    [
        ("hours[]=5", 400, "invalid_parameter", {"hours": ["5"]}),
        ("limit[]=5&limit[]=6", 400, "invalid_parameter", {"limit": ["5", "6"]}),
        ("hours[a]=5", 400, "invalid_parameter", {"hours": {"a": "5"}}),
        ("hours=5&hours[]=6", 400, "invalid_parameter", {"hours": ["6"]}),  # the last occurrence wins
        ("name[]=AO-91", 404, "satellite_not_found", None),  # read as the text "Array"
        ("grid_square[]=FN31", 400, "invalid_grid_square", None),
        ("status[]=Heard", 400, "invalid_status", None),
        ("since[]=2026-01-01", 400, "invalid_since", None),
    ],
)
def test_array_parameters_of_reports_are_no_values(client, seeded, query, status, code, details):
    response = client.get(f"/api/v1/reports.php?{query}")
    assert response.status_code == status
    error = response.json()["error"]
    assert error["code"] == code and error.get("details") == details


def test_array_parameters_elsewhere(client, seeded):
    store_report(seeded, "AO-91", hours_ago(1))
    assert client.get("/api/v1/reports.php?hours[]=5&hours=24").json()["meta"]["hours"] == 24
    assert client.get("/api/v1/reports.php?callsign[]=W1AW").json()["data"] == []
    assert client.get("/api/v1/catalog.php?name[]=AO-91").status_code == 404
    assert "report_count" not in client.get("/api/v1/catalog.php?include_stats[]=1").json()["data"][0]
    summary = client.get("/api/v1/summary.php?hours[]=5")
    assert summary.status_code == 400 and summary.json()["error"]["details"] == {"hours": ["5"]}


def test_unknown_paths_answer_upstreams_html_page(client):
    for path in ("/api/v1/nope.php", "/api/v1/lib/bootstrap.php", "/nope"):
        response = client.get(path)
        # Typed as upstream's server types it, without a charset (app.not_found, tests/test_app.py).
        assert response.status_code == 404 and response.headers["content-type"] == "text/html"
        assert "<title>404 Not Found</title>" in response.text


def test_cached_reports_render_meta_since_per_second_and_see_every_write(client, seeded, monkeypatch, engine):
    """The body around the cached rows is kept per (revision, second of meta.since): a later second
    renders its own since, and a write by anyone (here a bare UPDATE of the revision) is seen at once."""
    from sathub.status import times

    store_report(seeded, "AO-91", hours_ago(2))
    now = datetime.now(UTC).replace(minute=30, second=0, microsecond=0)
    monkeypatch.setattr(times, "utc_now", lambda: now)
    first = client.get("/api/v1/reports.php", params={"hours": "24"})
    assert client.get("/api/v1/reports.php", params={"hours": "24"}).content == first.content
    assert first.json()["meta"]["since"] == f"{now - timedelta(hours=24):%Y-%m-%dT%H:%M:%SZ}"
    now += timedelta(seconds=1)
    later = client.get("/api/v1/reports.php", params={"hours": "24"}).json()
    assert later["meta"]["since"] == f"{now - timedelta(hours=24):%Y-%m-%dT%H:%M:%SZ}"
    assert later["data"] == first.json()["data"]
    count = later["meta"]["count"]
    with engine.begin() as conn:
        conn.exec_driver_sql("DELETE FROM reports")
    assert client.get("/api/v1/reports.php", params={"hours": "24"}).json()["meta"]["count"] == 0 < count
