"""GET /api/v2/status: the status page's grid as data. The page and the API are rendered from one
database and compared cell by cell (colour and text as the scraping apps read them), and the
cells' times follow section 7's column rule, not the code under test."""

import random
from datetime import UTC, datetime, timedelta

from tests.status.pages.test_status_page import scrape
from tests.status.seed import store_report

VALUES = ("Heard", "Telemetry Only", "Not Heard", "Crew Active")


def busy_week(engine, count=400):
    """Reports of every kind over the last eight days (two of them outside the page), several to
    a block, ties and crew included, and two rows of an old value none of the four."""
    rng = random.Random(25)
    now = datetime.now(UTC).replace(second=0, microsecond=0)
    for _ in range(count):
        when = now - timedelta(minutes=rng.randrange(8 * 24 * 60))
        name = rng.choice(["AO-91", "FO-29", "ISS-FM", "RETIRED-1", "ao-91"])
        value = rng.choices(VALUES, weights=[6, 3, 3, 1])[0]
        store_report(engine, name, when, callsign=f"W{rng.randrange(10)}AW", report=value, grid="FN42")
    # An old row the importer kept: a value none of the four (the page's grey, "no majority").
    store_report(engine, "SO-50", now - timedelta(hours=3), callsign="K1OLD", report="Beacon?")


def test_every_cell_of_the_page_and_of_the_api_agree(client, seeded):
    busy_week(seeded)
    page = scrape(client.get("/").text)
    _, *rows = page.tables[2]
    answer = client.get("/api/v2/status")
    assert answer.status_code == 200
    data = answer.json()["data"]
    assert [row["name"] for row in data] == [row[0]["text"] for row in rows]
    compared = 0
    for api_row, page_row in zip(data, rows, strict=True):
        assert len(api_row["cells"]) == len(page_row) - 1 == 72
        for cell, td in zip(api_row["cells"], page_row[1:], strict=True):
            assert cell["colour"] == td["attrs"]["bgcolor"]
            assert cell["text"] == td["text"].strip()
            compared += 1
    # AO-91 and ao-91 are rows of their own, as on the page; SO-50 holds only the old value.
    assert compared == 72 * len(rows) and len(rows) == 6
    statuses = {cell["status"] for row in data for cell in row["cells"]}
    assert {"heard", "none", "crew", "no_majority"} <= statuses


def test_a_known_block_counts_its_values_and_is_placed_by_the_column_rule(client, seeded):
    today = datetime.now(UTC).date()
    at = datetime(today.year, today.month, today.day, 0, 20, tzinfo=UTC) - timedelta(days=1)  # yesterday 00:20
    store_report(seeded, "AO-91", at, callsign="W1AW", report="Heard")
    store_report(seeded, "AO-91", at + timedelta(hours=1), callsign="K1ABC", report="Not Heard")
    store_report(seeded, "AO-91", at + timedelta(minutes=30), callsign="G4ABC", report="Telemetry Only")
    row = client.get("/api/v2/status", params={"days": 2}).json()["data"][0]
    assert row["name"] == "AO-91" and row["display_name"] == "AO-91 Mode U/v FM"
    assert len(row["cells"]) == 24
    # Column = 1 day back * 12 + (23 - 0) // 2 = 23: yesterday 00:00-02:00, the last of 24.
    cell = row["cells"][23]
    assert cell["start"] == f"{at.date().isoformat()}T00:00:00Z"
    assert cell["end"] == f"{at.date().isoformat()}T02:00:00Z"
    assert cell["counts"] == {"Heard": 1, "Telemetry Only": 1, "Not Heard": 1, "Crew Active": 0}
    assert (cell["status"], cell["colour"], cell["text"]) == ("conflicting", "#fe6100", "_")
    assert cell["latest_report_time"] == f"{at.date().isoformat()}T01:30:00Z"
    assert row["latest_report_time"] == cell["latest_report_time"]
    first = row["cells"][0]
    assert first["start"] == f"{today.isoformat()}T22:00:00Z" and first["status"] == "none"
    assert first["counts"] == {"Heard": 0, "Telemetry Only": 0, "Not Heard": 0, "Crew Active": 0}


def test_days_is_1_to_30_and_anything_else_the_error_envelope(client, seeded):
    store_report(seeded, "AO-91", datetime.now(UTC) - timedelta(days=20))
    assert client.get("/api/v2/status", params={"days": 30}).json()["meta"]["cells"] == 360
    assert client.get("/api/v2/status", params={"days": 30}).json()["meta"]["count"] == 1
    assert client.get("/api/v2/status").json()["meta"]["count"] == 0  # the page's six days
    for bad in ("0", "31", "abc", "5.5", "-1", "1e1"):
        response = client.get("/api/v2/status", params={"days": bad})
        assert response.status_code == 400
        assert response.json() == {
            "error": {
                "code": "invalid_parameter",
                "message": "Parameter 'days' must be an integer from 1 to 30.",
                "status": 400,
                "details": {"days": bad},
            }
        }
