"""HTTP tests of /api/v1 through the real app, on SQLite and PostgreSQL (status-api.md 2, 4, 12)."""

import json
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient

from sathub.app import create_app
from sathub.config import Settings
from sathub.status.tables import reports
from tests.status.seed import hours_ago, seed_catalog, store_report

BASE = "http://sathub.test/api/v1"
JSON_TYPE = "application/json; charset=utf-8"


@pytest.fixture
def seeded(engine):
    seed_catalog(engine, aliases=[("[B]_AO-7", "FO-29")])
    return engine


def report_rows(engine):
    with engine.connect() as conn:
        return conn.execute(sa.select(reports).order_by(reports.c.id)).all()


def error_code(response):
    return response.json()["error"]["code"]


# --- catalog ---

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
    assert list(first) == ["id", "name", "satellite_display_name", "reported_time", "callsign", "report",
                           "grid_square", "period"]
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
    since = (datetime.now(timezone.utc) - timedelta(hours=200)).strftime("%Y-%m-%dT%H:%M:%SZ")
    body = client.get("/api/v1/reports.php", params={"since": since, "hours": "5"}).json()
    assert body["meta"]["count"] == 1 and body["meta"]["since"] == since and body["meta"]["hours"] == 5


@pytest.mark.parametrize("since", ["9999-12-31T23:59:59Z", "9999-12-31T23:31:00Z", "@253402300799"])
def test_reports_since_the_end_of_time_are_none(client, seeded, since):
    store_report(seeded, "AO-91", hours_ago(1))
    response = client.get("/api/v1/reports.php", params={"since": since})
    assert response.status_code == 200 and response.json()["data"] == []


@pytest.mark.parametrize("query, status, code", [
    ("hours=not-a-number", 400, "invalid_parameter"),
    ("limit=12abc", 400, "invalid_parameter"),
    ("grid_square=BADGRID", 400, "invalid_grid_square"),
    ("name=NO-SUCH-SAT", 404, "satellite_not_found"),
    ("status=Loud", 400, "invalid_status"),
    ("since=yesterday-ish", 400, "invalid_since"),
    ("hours=x&name=NO-SUCH-SAT", 400, "invalid_parameter"),  # evaluation order: hours first
    ("name=NO-SUCH-SAT&since=bad", 404, "satellite_not_found"),
])
def test_reports_errors(client, seeded, query, status, code):
    response = client.get("/api/v1/reports.php?" + query)
    assert response.status_code == status and error_code(response) == code
    assert response.json()["error"]["status"] == status


def test_invalid_parameter_details(client, seeded):
    error = client.get("/api/v1/reports.php?hours=not-a-number").json()["error"]
    assert error["details"] == {"hours": "not-a-number"}


@pytest.mark.parametrize("query, limit, hours", [
    ("limit=0", 1, 72), ("limit=9999", 500, 72), ("hours=0", 100, 1), ("hours=1e9", 100, 720),
    ("hours=5.9", 100, 5), ("limit=", 100, 72), ("hours=-3", 100, 1), ("hours=%205", 100, 5),
])
def test_reports_clamping(client, seeded, query, limit, hours):
    meta = client.get("/api/v1/reports.php?" + query).json()["meta"]
    assert (meta["limit"], meta["hours"]) == (limit, hours)


# --- report submission ---

def test_post_json_report(client, seeded):
    when = hours_ago(1, minute=17)
    response = client.post("/api/v1/reports.php", json={
        "name": "AO-91", "report": "Telemetry", "callsign": "W5API/EM25",
        "reported_at": when.strftime("%Y-%m-%dT%H:%M:42Z")})
    assert response.status_code == 201
    assert response.headers["location"] == f"{BASE}/reports.php?name=AO-91"
    body = response.json()
    assert list(body["data"]) == ["id", "name", "reported_time", "callsign", "report", "grid_square", "replaced_count"]
    assert body["data"]["reported_time"] == when.strftime("%Y-%m-%dT%H:%M:42Z")
    assert (body["data"]["report"], body["data"]["callsign"], body["data"]["grid_square"]) == ("Telemetry Only", "W5API", "EM25")
    assert body["links"] == {"satellite_reports": f"{BASE}/reports.php?name=AO-91"}
    rows = report_rows(seeded)
    assert len(rows) == 1 and rows[0].period == 1 and rows[0].id == body["data"]["id"]


def test_second_report_in_slot_replaces_first(client, seeded):
    when = hours_ago(1, minute=20)
    fields = {"name": "AO-91", "callsign": "W5API", "reported_at": when.isoformat()}
    first = client.post("/api/v1/reports.php", json={**fields, "report": "Heard"}).json()["data"]
    second = client.post("/api/v1/reports.php", json={**fields, "report": "Not Heard", "callsign": "w5api"})
    assert second.status_code == 201
    assert first["replaced_count"] == 0 and second.json()["data"]["replaced_count"] == 1
    rows = report_rows(seeded)
    assert [(row.report, row.id) for row in rows] == [("Not Heard", second.json()["data"]["id"])]
    assert second.json()["data"]["id"] != first["id"]
    stats = client.get("/api/v1/catalog.php?name=AO-91&include_stats=1").json()["data"][0]
    assert stats["report_count"] == 1


def test_post_form_with_parts_alias_and_display_name(client, seeded):
    when = hours_ago(5)
    response = client.post("/api/v1/reports.php", data={
        "satellite": "ao-91 mode u/v fm", "status": "active", "callsign": "k1abc", "grid_square": "fn42ab12",
        "year": str(when.year), "month": str(when.month), "day": str(when.day), "hour": str(when.hour)})
    assert response.status_code == 201, response.text
    data = response.json()["data"]
    assert (data["name"], data["report"], data["callsign"], data["grid_square"]) == ("AO-91", "Heard", "K1ABC", "FN42ab")
    assert data["reported_time"] == when.strftime("%Y-%m-%dT%H:30:00Z")  # minute defaults to 30


def test_retired_name_stores_under_current_name(client, seeded):
    response = client.post("/api/v1/reports.php", json={
        "name": "[b]_ao-7", "report": "Heard", "callsign": "W1AW", "reported_at": "-1 hour"})
    assert response.status_code == 201 and response.json()["data"]["name"] == "FO-29"
    assert report_rows(seeded)[0].name == "FO-29"


def test_multipart_form(client, seeded):
    response = client.post("/api/v1/reports.php", files={"x": ("a.txt", b"1")}, data={
        "name": "FO-29", "report": "Heard", "callsign": "W1AW", "reported_at": "-2 hours"})
    assert response.status_code == 201


VALID = {"name": "AO-91", "report": "Heard", "callsign": "W1AW", "reported_at": "-1 hour"}


@pytest.mark.parametrize("change, code", [
    ({"name": ""}, "missing_name"),
    ({"name": "", "satellite": "AO-91"}, "missing_name"),  # an empty name does not fall back
    ({"name": None, "satellite": None}, "missing_name"),
    ({"name": "NO-SUCH-SAT", "report": "Loud"}, "unknown_satellite"),
    ({"name": ["AO-91"]}, "unknown_satellite"),
    ({"report": "Loud"}, "invalid_report"),
    ({"callsign": "BAD!"}, "invalid_callsign"),
    ({"callsign": "NOT_A_CALL"}, "invalid_callsign"),
    ({"callsign": "FN42"}, "invalid_callsign"),
    ({"callsign": "W1AWß"}, "invalid_callsign"),  # not W1AWSS: upper-casing is ASCII-only, as PHP's
    ({"callsign": "K1ABﬁ"}, "invalid_callsign"),
    ({"callsign": {"a": 1}}, "invalid_callsign"),
    ({"grid_square": "ZZ99"}, "invalid_grid_square"),
    ({"reported_at": "2026-02-30T10:00:00Z"}, "invalid_reported_at"),
    ({"reported_at": "a"}, "invalid_reported_at"),
    ({"reported_at": "+1 hour"}, "future_reported_at"),
    ({"reported_at": "9999-01-01T00:00:00Z"}, "future_reported_at"),
    ({"reported_at": "31 Dec 9999 23:59:59 EST"}, "invalid_reported_at"),
    ({"reported_at": None, "year": 2026, "month": 2}, "missing_reported_at"),
    ({"reported_at": "", "year": 2026, "month": 2, "day": 30, "hour": 1}, "invalid_reported_at"),
    ({"reported_at": None, "year": 2025, "month": 1, "day": 1, "hour": 24}, "invalid_reported_at"),
    ({"reported_at": None, "year": 2025, "month": 1, "day": 1, "hour": 2, "minute": 60}, "invalid_reported_at"),
    ({"reported_at": None, "year": "", "month": 1, "day": 1, "hour": 2}, "invalid_reported_at"),
    ({"reported_at": None, "year": "99999", "month": 1, "day": 1, "hour": 2}, "invalid_reported_at"),
    ({"reported_at": None, "year": 2025, "month": "99999999999999999999999", "day": 1, "hour": 2}, "invalid_reported_at"),
    ({"reported_at": None, "year": 2025, "month": 1, "day": 1, "hour": 1e20}, "invalid_reported_at"),
    ({"reported_at": None, "year": 2025, "month": 1, "day": 1, "hour": "1e20"}, "invalid_reported_at"),
    ({"reported_at": None, "year": 2025, "month": 1e20, "day": 1, "hour": 2}, "invalid_reported_at"),
    ({"reported_at": None, "year": 2025, "month": 1, "day": 1, "hour": 2, "minute": 5e300}, "invalid_reported_at"),
    ({"reported_at": None, "year": 99999999999999999999999999999, "month": 1, "day": 1, "hour": 2},
     "invalid_reported_at"),
])
def test_post_validation(client, seeded, change, code):
    response = client.post("/api/v1/reports.php", json={**VALID, **change})
    assert response.status_code == 422 and error_code(response) == code
    assert report_rows(seeded) == []


def test_invalid_report_lists_allowed_values(client, seeded):
    error = client.post("/api/v1/reports.php", json={**VALID, "report": "x"}).json()["error"]
    assert error["details"] == {"allowed_values": ["Heard", "Telemetry Only", "Not Heard", "Crew Active"]}


@pytest.mark.parametrize("body, content_type, status, code", [
    (b"", "application/json", 400, "invalid_json"),
    (b"{bad", "application/json; charset=utf-8", 400, "invalid_json"),
    (b'"AO-91"', "Application/JSON", 400, "invalid_json"),
    (b"null", "application/json", 400, "invalid_json"),
    (b'{"name": "\xff\xfe"}', "application/json", 400, "invalid_json"),
    (b'{"name": "\\ud800"}', "application/json", 400, "invalid_json"),
    (b"[1, 2]", "application/json", 422, "missing_name"),
    (b"name=AO-91", "text/plain", 422, "missing_name"),
    (b"name=AO-91", "", 422, "missing_name"),
    (b"--x\r\nbroken", "multipart/form-data; boundary=x", 422, "missing_name"),
    (b"name=%ff%fe&report=Heard&callsign=W1AW&reported_at=-1+hour", "application/x-www-form-urlencoded", 422, "unknown_satellite"),
    (b"[" * 100000, "application/json", 413, "payload_too_large"),
])
def test_bad_bodies(client, seeded, body, content_type, status, code):
    headers = {"content-type": content_type} if content_type else {}
    response = client.post("/api/v1/reports.php", content=body, headers=headers)
    assert response.status_code == status and error_code(response) == code
    assert report_rows(seeded) == []


@pytest.mark.parametrize("hostile", [
    "AO-91'; DROP TABLE reports; --", "<script>alert(1)</script>", "AO-91\x00x", "A" * 60000, "💥",
])
def test_hostile_strings_store_nothing(client, seeded, hostile):
    for field in ("name", "callsign", "grid_square", "report", "reported_at"):
        response = client.post("/api/v1/reports.php", json={**VALID, field: hostile})
        assert response.status_code in (400, 422), (field, response.text)
        response = client.post("/api/v1/reports.php", data={**VALID, field: hostile})
        assert response.status_code == 422, (field, response.text)
    expected = {"name": 404, "callsign": 200, "grid_square": 400, "status": 400, "since": 400}
    for param, status in expected.items():
        response = client.get("/api/v1/reports.php", params={param: hostile})
        assert response.status_code == status and "data" in response.json() or "error" in response.json()
    assert client.get("/api/v1/reports.php", params={"callsign": hostile}).json()["data"] == []
    assert client.get("/api/v1/sat_info.php", params={"name": hostile}).json() == []
    assert client.get("/api/v1/catalog.php", params={"name": hostile}).status_code == 404
    assert report_rows(seeded) == []


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
        ("AO-91", "Heard", 2), ("AO-91", "Not Heard", 1), ("Retired-Sat", "Heard", 1)]
    assert list(body["data"][0]) == ["name", "satellite_display_name", "report", "report_count", "latest_reported_time"]
    assert body["data"][0]["latest_reported_time"] == hours_ago(2).strftime("%Y-%m-%dT%H:30:00Z")
    assert body["data"][2]["satellite_display_name"] is None
    assert client.get("/api/v1/summary.php?hours=48").json()["meta"]["count"] == 4
    assert error_code(client.get("/api/v1/summary.php?hours=abc")) == "invalid_parameter"


def test_statuses(client):
    body = client.get("/api/v1/statuses.php").json()
    assert body == {"data": [{"value": "Heard", "label": "Satellite active"},
                             {"value": "Telemetry Only", "label": "Telemetry or beacon only"},
                             {"value": "Not Heard", "label": "No signal"},
                             {"value": "Crew Active", "label": "ISS crew voice active"}],
                    "meta": {"count": 4}}


def test_health(client):
    body = client.get("/api/v1/health.php").json()
    assert list(body["data"]) == ["status", "version", "time"]
    assert body["data"]["status"] == "ok" and body["data"]["version"] == "1.0.0"


# --- legacy arrays ---

def test_sat_info(client, seeded):
    store_report(seeded, "AO-91", hours_ago(2), grid=None)
    store_report(seeded, "AO-91", hours_ago(1), callsign="K1ABC")
    response = client.get("/api/v1/sat_info.php?name=ao-91&hours=24")
    assert response.status_code == 200 and response.headers["content-type"] == "application/json"
    items = response.json()
    assert [list(item) for item in items] == [["name", "reported_time", "callsign", "report", "grid_square"]] * 2
    assert items[0]["callsign"] == "K1ABC" and items[1]["grid_square"] == ""
    assert "data" not in response.text and "meta" not in response.text


@pytest.mark.parametrize("query", ["", "name=", "name=%20", "name=NO-SUCH", "name=AO-91%20Mode%20U/v%20FM"])
def test_sat_info_empty_answers(client, seeded, query):
    store_report(seeded, "AO-91", hours_ago(1))
    response = client.get("/api/v1/sat_info.php?" + query)
    assert response.status_code == 200 and response.text == "[]"


@pytest.mark.parametrize("hours, count", [("bogus", 2), ("", 2), ("9999", 2), ("1", 0), ("96", 2), ("50.5", 1)])
def test_sat_info_hours(client, seeded, hours, count):
    store_report(seeded, "AO-91", hours_ago(10))
    store_report(seeded, "AO-91", hours_ago(60))
    assert len(client.get(f"/api/v1/sat_info.php?name=AO-91&hours={hours}").json()) == count


def test_sat_info_caps_at_100(client, seeded):
    for i in range(105):
        store_report(seeded, "AO-91", hours_ago(1), callsign=f"K{i % 10}AB{chr(65 + i // 10)}")
    assert len(client.get("/api/v1/sat_info.php?name=AO-91").json()) == 100


def test_satellites_legacy(client, seeded):
    response = client.get("/api/v1/satellites.php")
    assert response.headers["content-type"] == "application/json"
    assert response.text.startswith('[{"id":')
    assert '"name":"AO-91 Mode U\\/v FM"' in response.text  # PHP escapes every slash
    items = response.json()
    assert [list(item) for item in items] == [["id", "name", "html_element_name", "website"]] * 3
    assert [item["html_element_name"] for item in items] == ["AO-91", "FO-29", "ISS-FM"]


def test_satellites_empty_catalog(client):
    assert client.get("/api/v1/satellites.php").text == "[]"


# --- methods, headers, formatting ---

def test_method_not_allowed(client):
    response = client.delete("/api/v1/reports.php")
    assert response.status_code == 405 and response.headers["allow"] == "GET, POST"
    assert error_code(response) == "method_not_allowed"
    assert client.put("/api/v1/sat_info.php").headers["allow"] == "GET"


def test_options(client):
    response = client.options("/api/v1/catalog.php")
    assert response.status_code == 204 and response.content == b""
    assert response.headers["access-control-allow-methods"] == "GET"
    assert response.headers["access-control-allow-origin"] == "*"


def test_head_is_get_without_body(client, seeded):
    get, head = client.get("/api/v1/catalog.php"), client.head("/api/v1/catalog.php")
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-length"] == get.headers["content-length"]


def test_envelope_headers_and_php_pretty_print(client, engine):
    seed_catalog(engine, [{"name": "OSCAR-Ø", "display_name": "Ørsted 😀", "website": "https://x.test/a"}])
    response = client.get("/api/v1/catalog.php")
    for header, value in [("cache-control", "no-store"), ("access-control-allow-origin", "*"),
                          ("access-control-allow-headers", "Content-Type"), ("x-amsat-api-version", "1.0.0")]:
        assert response.headers[header] == value
    text = response.text
    assert text.startswith('{\n    "data": [\n        {\n            "id": ')
    assert '"display_name": "\\u00d8rsted \\ud83d\\ude00"' in text
    assert '"website": "https://x.test/a"' in text and not text.endswith("\n")
    assert '"meta": {\n        "count": 1\n    }\n}' in text


def test_index_listing(client):
    response = client.get("/api/v1/")
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    assert "1.0.0" in response.text and f"OpenAPI: {BASE}/openapi.php" in response.text
    assert f"{BASE}/sat_info.php?name=AO-91&hours=24" in response.text
    assert client.get("/api/v1/index.php").text == response.text


def test_unknown_paths_are_404(client):
    for path in ("/info.php", "/admin/passwordhash.php", "/composer.json", "/db/schema.sql", "/config.php",
                 "/api/v1/lib/bootstrap.php", "/API/V1/CATALOG.PHP"):
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
    with TestClient(create_app(Settings(database_url=database_url), engine=engine),
                    base_url="http://example.org:8123") as client:
        link = client.get("/api/v1/catalog.php").json()["data"][0]["links"]["self"]
        assert link == "http://example.org:8123/api/v1/catalog.php?name=AO-91"


def test_catalog_stats_for_non_ascii_names(client, engine):
    # The totals' key must be the database's own lower(), which the catalog join uses.
    seed_catalog(engine, [{"name": "İSS-Ω", "display_name": "İSS Ω", "website": ""}])
    store_report(engine, "İSS-Ω", hours_ago(1))
    assert client.get("/api/v1/catalog.php?include_stats=1").json()["data"][0]["report_count"] == 1


def test_non_ascii_catalog_names_match_on_every_backend(client, seeded):
    """The database folds case on both sides (SQLite's lower() is ASCII-only, Python's is not)."""
    from sathub import db
    from sathub.status import store

    with db.connect(seeded, write=True) as conn:
        store.load_catalog(conn, [{"name": "OSCAR-Ø", "display_name": "Ørsted Sat", "website": ""}])
        store.load_catalog(conn, [{"name": "OSCAR-Ø", "display_name": "Ørsted Sat", "website": ""}])  # no duplicate
    for name in ("OSCAR-Ø", "oscar-Ø", "Ørsted Sat"):
        assert [e["name"] for e in client.get("/api/v1/catalog.php", params={"name": name}).json()["data"]] == ["OSCAR-Ø"]
    posted = client.post("/api/v1/reports.php", json={**VALID, "name": "oscar-Ø"})
    assert posted.status_code == 201 and posted.json()["data"]["name"] == "OSCAR-Ø"
    found = client.get("/api/v1/reports.php", params={"name": "Ørsted Sat"}).json()["data"]
    assert [row["name"] for row in found] == ["OSCAR-Ø"]
    assert len(client.get("/api/v1/sat_info.php", params={"name": "OSCAR-Ø"}).json()) == 1
