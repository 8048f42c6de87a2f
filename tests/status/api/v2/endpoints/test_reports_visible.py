"""GET /api/v2/reports and `visible` (docs/orbits.md, "Where visibility shows"): every record says
true, false or null as the report row holds it, `visible=` filters on it, and a recheck that
changes it (an UPDATE of that column alone) changes the answer and its ETag, on SQLite and
PostgreSQL."""

from datetime import UTC, datetime, timedelta

import pytest

from tests.status.api.envelope import error_code
from tests.status.seed import seed_catalog, set_visible, store_report

AT = datetime(2026, 11, 27, 20, 5, tzinfo=UTC)


@pytest.fixture
def three(engine):
    """Three reports of AO-91, oldest first: found above the horizon, below it, and not checked."""
    seed_catalog(engine)
    ids = [
        store_report(engine, "AO-91", AT + timedelta(hours=hour), callsign=callsign, grid="FN31").id
        for hour, callsign in enumerate(["W1AW", "K1ABC", "DL1ABC"])
    ]
    set_visible(engine, ids[0], True)
    set_visible(engine, ids[1], False)
    return ids


def visible_by_callsign(client, **params) -> dict[str, object]:
    response = client.get("/api/v2/reports", params=params)
    assert response.status_code == 200, response.text
    return {record["callsign"]: record["visible"] for record in response.json()["data"]}


def test_each_record_says_true_false_or_null(client, three):
    assert visible_by_callsign(client) == {"DL1ABC": None, "K1ABC": False, "W1AW": True}
    # JSON's own literals, not strings or numbers (SQLite stores a BOOLEAN as 0 or 1)
    body = client.get("/api/v2/reports").content
    assert b'"visible":true' in body and b'"visible":false' in body and b'"visible":null' in body


@pytest.mark.parametrize(
    ("value", "callsigns"),
    [("true", ["W1AW"]), ("false", ["K1ABC"]), ("null", ["DL1ABC"]), (" false ", ["K1ABC"])],
)
def test_the_filter_keeps_the_reports_of_its_value(client, three, value, callsigns):
    assert list(visible_by_callsign(client, visible=value)) == callsigns
    # the walk of named satellites (one branch per name) filters the same way
    assert list(visible_by_callsign(client, visible=value, name="ao-91")) == callsigns


def test_a_walk_of_implausible_reports_in_pages(client, engine, three):
    for minute in range(4):
        report = store_report(engine, "FO-29", AT + timedelta(minutes=15 * minute), callsign="G4XYZ", grid="IO91")
        set_visible(engine, report.id, False)
    records, url = [], "/api/v2/reports?visible=false&limit=2&order=asc"
    while url:
        body = client.get(url).json()
        records += body["data"]
        url = body["links"]["next"]
    assert [(r["name"], r["period"]) for r in records] == [("FO-29", p) for p in range(4)] + [("AO-91", 0)]
    assert {r["visible"] for r in records} == {False}


@pytest.mark.parametrize("value", ["maybe", "False", "0", "", "%00"])
def test_another_value_is_a_400_naming_the_parameter(client, three, value):
    response = client.get(f"/api/v2/reports?visible={value}")
    assert (response.status_code, error_code(response)) == (400, "invalid_parameter")
    assert "'visible'" in response.json()["error"]["message"]


def test_a_recheck_changes_the_answer_and_its_etag(client, engine, three):
    first = client.get("/api/v2/reports")
    assert client.get("/api/v2/reports", headers={"If-None-Match": first.headers["etag"]}).status_code == 304
    set_visible(engine, three[2], False)  # the recheck found DL1ABC's satellite below the horizon
    again = client.get("/api/v2/reports", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 200 and again.headers["etag"] != first.headers["etag"]
    assert again.json()["data"][0] == {**first.json()["data"][0], "visible": False}
    assert list(visible_by_callsign(client, visible="false")) == ["DL1ABC", "K1ABC"]
