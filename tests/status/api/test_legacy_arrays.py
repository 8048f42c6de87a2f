"""The legacy bare arrays satellites.php and sat_info.php (status-api.md 12)."""

import pytest

from tests.status.seed import hours_ago, store_report


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


def test_legacy_arrays_carry_no_version_header_as_upstream(client, seeded):
    for path in ("/api/v1/satellites.php", "/api/v1/sat_info.php?name=AO-91", "/api/v1/sat_info.php"):
        response = client.get(path)
        assert response.status_code == 200 and "x-amsat-api-version" not in response.headers
        # upstream's one header, and nosniff (issue 23)
        assert dict(response.headers) == {
            "content-type": "application/json",
            "x-content-type-options": "nosniff",
            "content-length": str(len(response.content)),
        }
    assert client.get("/api/v1/statuses.php").headers["x-amsat-api-version"] == "1.0.0"


def test_array_parameters_of_sat_info_are_no_values(client, seeded):
    store_report(seeded, "AO-91", hours_ago(1))
    assert client.get("/api/v1/sat_info.php?name[]=AO-91").json() == []
    assert len(client.get("/api/v1/sat_info.php?name=AO-91&hours[]=1").json()) == 1  # hours 72, the default
