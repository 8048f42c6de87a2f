"""POST /api/v1/reports.php through the real app: body forms, the validation order of status-api.md
4.3, the slot rule, and bad bodies that store nothing."""

import pytest
import sqlalchemy as sa

from sathub.status.tables import reports
from tests.status.api.envelope import error_code
from tests.status.seed import hours_ago

BASE = "http://sathub.test/api/v1"


def report_rows(engine):
    with engine.connect() as conn:
        return conn.execute(sa.select(reports).order_by(reports.c.id)).all()


def test_post_json_report(client, seeded):
    when = hours_ago(1, minute=17)
    response = client.post(
        "/api/v1/reports.php",
        json={
            "name": "AO-91",
            "report": "Telemetry",
            "callsign": "W5API/EM25",
            "reported_at": when.strftime("%Y-%m-%dT%H:%M:42Z"),
        },
    )
    assert response.status_code == 201
    assert response.headers["location"] == f"{BASE}/reports.php?name=AO-91"
    body = response.json()
    assert list(body["data"]) == ["id", "name", "reported_time", "callsign", "report", "grid_square", "replaced_count"]
    assert body["data"]["reported_time"] == when.strftime("%Y-%m-%dT%H:%M:42Z")
    assert (body["data"]["report"], body["data"]["callsign"], body["data"]["grid_square"]) == (
        "Telemetry Only",
        "W5API",
        "EM25",
    )
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
    response = client.post(
        "/api/v1/reports.php",
        data={
            "satellite": "ao-91 mode u/v fm",
            "status": "active",
            "callsign": "k1abc",
            "grid_square": "fn42ab12",
            "year": str(when.year),
            "month": str(when.month),
            "day": str(when.day),
            "hour": str(when.hour),
        },
    )
    assert response.status_code == 201, response.text
    data = response.json()["data"]
    assert (data["name"], data["report"], data["callsign"], data["grid_square"]) == (
        "AO-91",
        "Heard",
        "K1ABC",
        "FN42ab",
    )
    assert data["reported_time"] == when.strftime("%Y-%m-%dT%H:30:00Z")  # minute defaults to 30


def test_retired_name_stores_under_current_name(client, seeded):
    response = client.post(
        "/api/v1/reports.php",
        json={"name": "[b]_ao-7", "report": "Heard", "callsign": "W1AW", "reported_at": "-1 hour"},
    )
    assert response.status_code == 201 and response.json()["data"]["name"] == "FO-29"
    assert report_rows(seeded)[0].name == "FO-29"


def test_multipart_form(client, seeded):
    response = client.post(
        "/api/v1/reports.php",
        files={"x": ("a.txt", b"1")},
        data={"name": "FO-29", "report": "Heard", "callsign": "W1AW", "reported_at": "-2 hours"},
    )
    assert response.status_code == 201


VALID = {"name": "AO-91", "report": "Heard", "callsign": "W1AW", "reported_at": "-1 hour"}


@pytest.mark.parametrize(
    "change, code",
    [
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
        (
            {"reported_at": None, "year": 2025, "month": "99999999999999999999999", "day": 1, "hour": 2},
            "invalid_reported_at",
        ),
        ({"reported_at": None, "year": 2025, "month": 1, "day": 1, "hour": 1e20}, "invalid_reported_at"),
        ({"reported_at": None, "year": 2025, "month": 1, "day": 1, "hour": "1e20"}, "invalid_reported_at"),
        ({"reported_at": None, "year": 2025, "month": 1e20, "day": 1, "hour": 2}, "invalid_reported_at"),
        ({"reported_at": None, "year": 2025, "month": 1, "day": 1, "hour": 2, "minute": 5e300}, "invalid_reported_at"),
        (
            {"reported_at": None, "year": 99999999999999999999999999999, "month": 1, "day": 1, "hour": 2},
            "invalid_reported_at",
        ),
    ],
)
def test_post_validation(client, seeded, change, code):
    response = client.post("/api/v1/reports.php", json={**VALID, **change})
    assert response.status_code == 422 and error_code(response) == code
    assert report_rows(seeded) == []


def test_invalid_report_lists_allowed_values(client, seeded):
    error = client.post("/api/v1/reports.php", json={**VALID, "report": "x"}).json()["error"]
    assert error["details"] == {"allowed_values": ["Heard", "Telemetry Only", "Not Heard", "Crew Active"]}


@pytest.mark.parametrize(
    "body, content_type, status, code",
    [
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
        (
            b"name=%ff%fe&report=Heard&callsign=W1AW&reported_at=-1+hour",
            "application/x-www-form-urlencoded",
            422,
            "unknown_satellite",
        ),
        (b"[" * 100000, "application/json", 413, "payload_too_large"),
    ],
)
def test_bad_bodies(client, seeded, body, content_type, status, code):
    headers = {"content-type": content_type} if content_type else {}
    response = client.post("/api/v1/reports.php", content=body, headers=headers)
    assert response.status_code == status and error_code(response) == code
    assert report_rows(seeded) == []


@pytest.mark.parametrize(
    "hostile",
    [
        "AO-91'; DROP TABLE reports; --",
        "<script>alert(1)</script>",
        "AO-91\x00x",
        "A" * 60000,
        "💥",
    ],
)
def test_hostile_strings_store_nothing(client, seeded, hostile):
    for field in ("name", "callsign", "grid_square", "report", "reported_at"):
        response = client.post("/api/v1/reports.php", json={**VALID, field: hostile})
        assert response.status_code in (400, 422), (field, response.text)
        response = client.post("/api/v1/reports.php", data={**VALID, field: hostile})
        assert response.status_code == 422, (field, response.text)
    expected = {"name": 404, "callsign": 200, "grid_square": 400, "status": 400, "since": 400}
    for param, status in expected.items():
        response = client.get("/api/v1/reports.php", params={param: hostile})
        assert response.status_code == status, (param, response.text)
        assert ("data" if status == 200 else "error") in response.json()
    assert client.get("/api/v1/reports.php", params={"callsign": hostile}).json()["data"] == []
    assert client.get("/api/v1/sat_info.php", params={"name": hostile}).json() == []
    assert client.get("/api/v1/catalog.php", params={"name": hostile}).status_code == 404
    assert report_rows(seeded) == []


def test_non_ascii_catalog_names_match_on_every_backend(client, seeded):
    """The database folds case on both sides (SQLite's lower() is ASCII-only, Python's is not)."""
    from sathub import db
    from sathub.status.store import catalog as catalog_store

    with db.connect(seeded, write=True) as conn:
        catalog_store.load_catalog(conn, [{"name": "OSCAR-Ø", "display_name": "Ørsted Sat", "website": ""}])
        catalog_store.load_catalog(
            conn, [{"name": "OSCAR-Ø", "display_name": "Ørsted Sat", "website": ""}]
        )  # no duplicate
    for name in ("OSCAR-Ø", "oscar-Ø", "Ørsted Sat"):
        assert [e["name"] for e in client.get("/api/v1/catalog.php", params={"name": name}).json()["data"]] == [
            "OSCAR-Ø"
        ]
    posted = client.post("/api/v1/reports.php", json={**VALID, "name": "oscar-Ø"})
    assert posted.status_code == 201 and posted.json()["data"]["name"] == "OSCAR-Ø"
    found = client.get("/api/v1/reports.php", params={"name": "Ørsted Sat"}).json()["data"]
    assert [row["name"] for row in found] == ["OSCAR-Ø"]
    assert len(client.get("/api/v1/sat_info.php", params={"name": "OSCAR-Ø"}).json()) == 1


# --- rules of status-api.md 4.3 that a change to report_input.py must not slip past ---

GOOD_PARTS = {
    "name": "AO-91",
    "report": "Heard",
    "callsign": "W1AW",
    "grid_square": "FN31",
    "year": 2024,
    "month": 2,
    "day": 29,
    "hour": 10,
    "minute": 20,
}


@pytest.mark.parametrize(
    "change, code",
    [
        ({"report": "Loud", "callsign": "BAD!"}, "invalid_report"),  # the report is checked before the callsign
        ({"callsign": "BAD!", "grid_square": "ZZ99"}, "invalid_callsign"),  # the callsign before the grid
        ({"grid_square": "ZZ99", "reported_at": "a"}, "invalid_grid_square"),  # the grid before the time
        ({"reported_at": "a", "callsign": "W1AW"}, "invalid_reported_at"),
    ],
)
def test_the_checks_after_the_name_run_in_the_documented_order(client, seeded, change, code):
    response = client.post("/api/v1/reports.php", json={**VALID, **change})
    assert response.status_code == 422 and error_code(response) == code


def test_leap_days_exist_only_in_leap_years(client, seeded):
    leap = client.post("/api/v1/reports.php", json=GOOD_PARTS)
    assert leap.status_code == 201 and leap.json()["data"]["reported_time"] == "2024-02-29T10:20:00Z"
    assert client.post("/api/v1/reports.php", json={**VALID, "reported_at": "2024-02-29T09:00:00Z"}).status_code == 201
    for body in (
        {**GOOD_PARTS, "year": 2025},
        {**VALID, "reported_at": "2025-02-29T09:00:00Z"},
        {**GOOD_PARTS, "year": 1900},
    ):
        response = client.post("/api/v1/reports.php", json=body)
        assert response.status_code == 422 and error_code(response) == "invalid_reported_at"


def test_there_is_no_lower_bound_on_the_reported_time(client, seeded):
    for reported_at in ("2001-01-01T00:00:00Z", "1970-01-01T00:00:00Z"):
        response = client.post("/api/v1/reports.php", json={**VALID, "reported_at": reported_at})
        assert response.status_code == 201 and response.json()["data"]["reported_time"] == reported_at


def test_a_missing_or_null_minute_means_minute_30(client, seeded):
    without = {key: value for key, value in GOOD_PARTS.items() if key != "minute"}
    assert client.post("/api/v1/reports.php", json=without).json()["data"]["reported_time"] == "2024-02-29T10:30:00Z"
    nulled = client.post("/api/v1/reports.php", json={**GOOD_PARTS, "minute": None, "hour": 11})
    assert nulled.json()["data"]["reported_time"] == "2024-02-29T11:30:00Z"
    zero = client.post("/api/v1/reports.php", json={**GOOD_PARTS, "minute": 0, "hour": 12})
    assert zero.json()["data"]["reported_time"] == "2024-02-29T12:00:00Z"
    rows = report_rows(seeded)
    assert [(row.hour, row.period) for row in rows] == [(10, 1), (11, 1), (12, 0)]


def test_post_never_reads_the_query_string(client, seeded):
    query = "name=AO-91&report=Heard&callsign=W1AW&reported_at=-1%20hour"
    for body in ({"json": {}}, {"data": {}}, {"content": b"", "headers": {"content-type": "text/plain"}}):
        response = client.post(f"/api/v1/reports.php?{query}", **body)
        assert response.status_code == 422 and error_code(response) == "missing_name"
    assert report_rows(seeded) == []


def test_json_booleans_read_as_php_strings(client, seeded):
    # false is "", so no grid; true is "1", which is no callsign and no satellite.
    stored = client.post("/api/v1/reports.php", json={**VALID, "grid_square": False})
    assert stored.status_code == 201 and stored.json()["data"]["grid_square"] == ""
    assert error_code(client.post("/api/v1/reports.php", json={**VALID, "callsign": True})) == "invalid_callsign"
    assert error_code(client.post("/api/v1/reports.php", json={**VALID, "name": True})) == "unknown_satellite"
    assert error_code(client.post("/api/v1/reports.php", json={**VALID, "name": False})) == "missing_name"


def test_a_burst_of_posts_shares_transactions_and_keeps_the_slot_rule(engine, settings):
    """Reports that arrive together are stored together (group commit); a later report of a
    slot in the same burst still replaces the earlier one, in arrival order."""
    import asyncio

    import httpx

    from sathub.app import create_app
    from tests.status.seed import seed_catalog

    seed_catalog(engine)
    app = create_app(settings, engine=engine)
    when = hours_ago(1).strftime("%Y-%m-%dT%H:%M:%SZ")

    async def burst():
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://sathub.test") as http:
            bodies = [
                {
                    **VALID,
                    "callsign": f"K{n % 10}ABC",
                    "reported_at": when,
                    "report": "Heard" if n < 10 else "Not Heard",
                }
                for n in range(20)
            ]
            return await asyncio.gather(*(http.post("/api/v1/reports.php", json=body) for body in bodies))

    answers = asyncio.run(burst())
    assert [a.status_code for a in answers] == [201] * 20
    assert [a.json()["data"]["replaced_count"] for a in answers] == [0] * 10 + [1] * 10
    rows = report_rows(engine)
    assert len(rows) == 10 and {row.report for row in rows} == {"Not Heard"}
    ids = [a.json()["data"]["id"] for a in answers[10:]]
    assert sorted(row.id for row in rows) == sorted(ids)
