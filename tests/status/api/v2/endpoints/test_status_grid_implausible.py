"""SATHUB_STATUS_IMPLAUSIBLE (docs/orbits.md, "Where visibility shows"), on SQLite and PostgreSQL:
with `mark` (the default) the status page and GET /api/v2/status count every report, as before;
with `exclude` both leave out the reports whose `visible` is false, cell by cell alike; /api/v1
answers the same bytes either way, and the same bytes as before any report was checked.

The expected cells are section 7's rule applied by hand to the reports each test stores."""

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest
from starlette.testclient import TestClient

from sathub.app import create_app
from sathub.status import times
from tests.status.pages.test_status_page import scrape
from tests.status.seed import set_visible, store_report

V1 = (
    "/api/v1/reports.php",
    "/api/v1/summary.php",
    "/api/v1/statuses.php",
    "/api/v1/sat_info.php?name=AO-91",
    "/api/v1/satellites.php",
)


@pytest.fixture
def excluding(engine, settings):
    app = create_app(dataclasses.replace(settings, status_implausible="exclude"), engine=engine)
    with TestClient(app, base_url="http://sathub.test") as test_client:
        yield test_client


@pytest.fixture
def yesterday(monkeypatch) -> datetime:
    # One second for the whole test: version 1's windows end now, to the second.
    now = times.utc_now()
    monkeypatch.setattr(times, "utc_now", lambda: now)
    return datetime(now.year, now.month, now.day, tzinfo=UTC) - timedelta(days=1)


def v1_bodies(client) -> list[bytes]:
    return [client.get(path).content for path in V1]


def store_week(engine, yesterday):
    """Yesterday 00:00-02:00, AO-91: two Heard then found below the horizon, one Not Heard not
    checked. Yesterday 04:00-06:00, AO-91: one Heard found below the horizon alone. FO-29: one
    report in the window, found below it. ISS-FM, 09:00-10:00: two Heard, one found above the
    horizon, one below. Returns the reports found below, and the one found above."""
    below = [
        store_report(engine, "AO-91", yesterday + timedelta(minutes=20), callsign="W1AW"),
        store_report(engine, "AO-91", yesterday + timedelta(minutes=50), callsign="K1ABC"),
        store_report(engine, "AO-91", yesterday + timedelta(hours=4, minutes=10), callsign="G4XYZ"),
        store_report(engine, "FO-29", yesterday + timedelta(hours=7), callsign="JA1ABC"),
        store_report(engine, "ISS-FM", yesterday + timedelta(hours=9, minutes=40), callsign="N0CALL"),
    ]
    store_report(engine, "AO-91", yesterday + timedelta(hours=1, minutes=5), callsign="DL1ABC", report="Not Heard")
    above = store_report(engine, "ISS-FM", yesterday + timedelta(hours=9), callsign="KB1XYZ")
    return below, above


def cells(client) -> dict[str, dict[int, tuple[str, str]]]:
    """The non-empty cells of /api/v2/status by name and column: (colour, text)."""
    data = client.get("/api/v2/status", params={"days": 2}).json()["data"]
    return {
        row["name"]: {i: (c["colour"], c["text"]) for i, c in enumerate(row["cells"]) if c["status"] != "none"}
        for row in data
    }


def page_cells(client) -> dict[str, dict[int, tuple[str, str]]]:
    """The status page's non-empty cells of its first two days, as a scraper reads them."""
    _, *rows = scrape(client.get("/").text).tables[2]
    found = {}
    for row in rows:
        coloured = {i: (td["attrs"]["bgcolor"], td["text"].strip()) for i, td in enumerate(row[1:25])}
        found[row[0]["text"]] = {i: look for i, look in coloured.items() if look[0] != "C0C0C0"}
    return {name: row for name, row in found.items() if row}


HEARD, NOT_HEARD = "#648fff", "#dc267f"
# Yesterday's columns (section 7): 12 + (23 - hour) // 2.
MIDNIGHT, FOUR, SEVEN, NINE = 23, 21, 20, 19


def test_mark_counts_every_report_and_exclude_leaves_out_the_implausible(client, excluding, engine, yesterday):
    below, above = store_week(engine, yesterday)
    v1_unchecked = v1_bodies(client)
    marked = {
        "AO-91": {MIDNIGHT: (HEARD, "2"), FOUR: (HEARD, "1")},
        "FO-29": {SEVEN: (HEARD, "1")},
        "ISS-FM": {NINE: (HEARD, "2")},
    }
    assert cells(client) == cells(excluding) == marked  # nothing checked yet: nothing to leave out
    for report in below:  # as a recheck sets them
        set_visible(engine, report.id, False)
    set_visible(engine, above.id, True)

    excluded = {"AO-91": {MIDNIGHT: (NOT_HEARD, "1")}, "ISS-FM": {NINE: (HEARD, "1")}}
    assert cells(client) == page_cells(client) == marked
    assert cells(excluding) == page_cells(excluding) == excluded
    # /api/v1 is upstream's: the same bytes with either setting, and as before the reports were checked
    assert v1_bodies(excluding) == v1_bodies(client) == v1_unchecked


def test_a_recheck_moves_the_excluded_grid_and_its_etag(excluding, engine, yesterday):
    report = store_report(engine, "AO-91", yesterday + timedelta(minutes=20), callsign="W1AW")
    first = excluding.get("/api/v2/status", params={"days": 2})
    assert first.json()["data"][0]["cells"][MIDNIGHT]["colour"] == HEARD
    set_visible(engine, report.id, False)
    again = excluding.get("/api/v2/status", params={"days": 2}, headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 200 and again.json()["data"] == []
