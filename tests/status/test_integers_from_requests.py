"""Every integer a request hands interface A, whatever its size, is answered as any other value
out of range or not found is: never a 500 (issue 23, point 1). PostgreSQL refuses a parameter
beyond its column ('integer out of range'), and Python's int() refuses 4,301 digits and more.

Covered: the admin pages' ids (edit, update, delete), the API's hours and limit, the POST's date
and time parts (form and JSON) and reported_at, reports.php's since, submit.php's date and time
fields, the index of a PHP array parameter, and the issued time of a CSRF token."""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlencode

import bcrypt
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from sathub import db
from sathub.app import create_app
from sathub.status.admin import views as admin
from sathub.status.store import accounts
from tests.status.seed import seed_catalog

# Arbitrary integers, and always those at and beyond the edges of 32 and 64 bits, and of int().
EDGES = [
    2**31 - 1,
    2**31,
    -(2**31),
    -(2**31) - 1,
    2**63 - 1,
    2**63,
    -(2**63),
    -(2**63) - 1,
    2**64,
    10**19,
    10**20,
    -999999999999999999,
    10**4301 - 1,
    -(10**5000 - 1),
]
integers = st.one_of(st.sampled_from(EDGES), st.integers(), st.integers(min_value=-(10**40), max_value=10**40))
examples = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def digits(number: int) -> str:
    """The number's decimal text; str() refuses those of more than 4,300 digits, all nines here."""
    try:
        return str(number)
    except ValueError:
        return ("-" if number < 0 else "") + "9" * 5000


@pytest.fixture
def client(engine, settings):
    """Without the rate limits: each test sends hundreds of submissions."""
    app = create_app(replace(settings, api_rate_per_minute=0, submit_rate_per_minute=0), engine=engine)
    with TestClient(app, base_url="http://sathub.test") as test_client:
        yield test_client


@pytest.fixture
def admin_client(client, engine, monkeypatch):
    monkeypatch.setattr(admin, "FAILED_LOGIN_DELAY", 0)
    seed_catalog(engine)
    with db.connect(engine, write=True) as conn:
        accounts.save_user(conn, "admin", bcrypt.hashpw(b"pw", bcrypt.gensalt(4)).decode())
    assert (
        client.post(
            "/admin/login.php", data={"username": "admin", "password": "pw"}, follow_redirects=False
        ).status_code
        == 302
    )
    return client


def entry_ids(engine) -> set[int]:
    with engine.connect() as conn:
        return {row[0] for row in conn.exec_driver_sql("SELECT id FROM satellites")}


# A submission of submit.php that is stored as it is; each test changes one of its fields.
SUBMISSION = {
    "SatSubmit": "yes",
    "Confirm": "yes",
    "SatName": "AO-91",
    "SatYear": "2024",
    "SatMonth": "05",
    "SatDay": "23",
    "SatHour": "08",
    "SatPeriod": "1",
    "SatCall": "W1AW",
    "SatReport": "Heard",
}


@examples
@given(number=integers)
@example(number=2147483648)
@example(number=-999999999999999999)
def test_admin_ids_of_any_size(admin_client, engine, number):
    """Any id no entry has, however large, is answered as upstream answers a missing one."""
    ids = entry_ids(engine)
    assume(number not in ids)
    edit = admin_client.get(f"/admin/edit_satellite.php?id={digits(number)}")
    assert edit.status_code == 200
    assert "0 results" in edit.text and "Edit Satellite" not in edit.text
    update = admin_client.post(
        "/admin/update_satellite.php",
        data={"sat_id": digits(number), "satellite_name": "Renamed", "html_satellite_name": "RENAMED-1", "website": ""},
    )
    assert update.status_code == 200 and "Renamed updated successfully" in update.text
    delete = admin_client.get(f"/admin/delete_satellite.php?id={digits(number)}")
    assert delete.status_code == 200 and "Satellite deleted successfully" in delete.text
    assert entry_ids(engine) == ids


@pytest.mark.parametrize(
    "given_id, message",
    [
        ("2147483648", "0 results"),
        ("-999999999999999999", "0 results"),
        (" +0002147483648 ", "0 results"),
        ("9" * 5000, "0 results"),
        ("1.5", "Error"),
        ("0x10", "Error"),
        ("", "Error"),
    ],
)
def test_an_id_no_entry_can_have_is_0_results(admin_client, given_id, message):
    page = admin_client.get("/admin/edit_satellite.php", params={"id": given_id})
    assert page.status_code == 200 and message in page.text


@examples
@given(number=integers)
def test_api_hours_and_limit_of_any_size(client, engine, number):
    for path, parameter in [
        ("reports.php", "hours"),
        ("reports.php", "limit"),
        ("summary.php", "hours"),
        ("sat_info.php?name=AO-91", "hours"),
    ]:
        separator = "&" if "?" in path else "?"
        response = client.get(f"/api/v1/{path}{separator}{parameter}={digits(number)}")
        assert response.status_code == 200, (path, parameter, response.text)
    assert client.get(f"/api/v1/reports.php?hours[{digits(abs(number))}]=5").status_code == 400


@examples
@given(number=integers, field=st.sampled_from(["year", "month", "day", "hour", "minute"]))
def test_post_date_parts_of_any_size(client, engine, number, field):
    seed_catalog(engine)
    parts = {
        "name": "AO-91",
        "report": "Heard",
        "callsign": "W1AW",
        "year": "2024",
        "month": "5",
        "day": "23",
        "hour": "8",
        field: digits(number),
    }
    assert client.post("/api/v1/reports.php", data=parts).status_code in (201, 422)
    body = (
        '{"name": "AO-91", "report": "Heard", "callsign": "W1AW", "year": 2024, "month": 5, "day": 23, "hour": 8, '
        f'"{field}": {digits(number)}}}'
    )
    answer = client.post("/api/v1/reports.php", content=body, headers={"content-type": "application/json"})
    assert answer.status_code in (201, 400, 422)  # 400: beyond a double, orjson refuses the number


@examples
@given(number=integers)
def test_timestamps_of_any_size(client, engine, number):
    seed_catalog(engine)
    for reported_at in (f"@{digits(number)}", f"{digits(number)} hours ago", f"{digits(number)}-01-01"):
        answer = client.post(
            "/api/v1/reports.php",
            json={"name": "AO-91", "report": "Heard", "callsign": "W1AW", "reported_at": reported_at},
        )
        assert answer.status_code in (201, 422)
        assert client.get("/api/v1/reports.php", params={"since": reported_at}).status_code in (200, 400)


@examples
@given(number=integers, field=st.sampled_from(["SatYear", "SatMonth", "SatDay", "SatHour", "SatPeriod"]))
def test_submit_fields_of_any_size(client, engine, number, field):
    seed_catalog(engine)
    fields = {
        **SUBMISSION,
        field: digits(number),
    }
    assert client.get("/submit.php?" + urlencode(fields)).status_code in (200, 422)
    del fields["Confirm"]
    assert client.post("/submit.php", data=fields).status_code in (200, 422)


@examples
@given(number=integers)
@example(number=10**5000 - 1)
def test_token_times_of_any_size(client, engine, number):
    seed_catalog(engine)
    fields = {
        **SUBMISSION,
        "csrf_token": f"{digits(number)}.0123456789abcdef0123456789abcdef",
    }
    answer = client.post("/submit.php", data=fields, headers={"Sec-Fetch-Site": "cross-site"})
    assert answer.status_code == 403
    unicode_digits = client.post(
        "/submit.php", data={**fields, "csrf_token": "\u00b2\u00b3.x"}, headers={"Sec-Fetch-Site": "cross-site"}
    )
    assert unicode_digits.status_code == 403
