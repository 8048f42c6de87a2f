"""/api/v2/satellites/NAME/reports.atom and …/status.atom on SQLite and PostgreSQL, read by
feedparser (an independent Atom reader): valid feeds, newest first, ids that stay, at most 50
entries, names resolved as v2 resolves them, ETag and 304, and v2's envelope for what is refused."""

from __future__ import annotations

from urllib.parse import quote

import feedparser
import pytest

from sathub import db
from sathub.status.rules import period_of_minute
from sathub.status.store import writes
from tests.status.seed import hours_ago, seed_catalog, store_report

SITE = "http://sathub.test"


def parsed(response) -> feedparser.FeedParserDict:
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/atom+xml; charset=utf-8"
    feed = feedparser.parse(response.content)
    assert not feed.bozo, feed.bozo_exception
    return feed


def test_reports_feed(client, engine):
    seed_catalog(engine)
    ids = [
        store_report(engine, "AO-91", hours_ago(hours), callsign=callsign, report=report).id
        for hours, callsign, report in ((5, "W1AW", "Heard"), (1, "K1ABC", "Not Heard"), (3, "W5API", "Heard"))
    ]
    feed = parsed(client.get("/api/v2/satellites/ao-91/reports.atom"))  # any case, as v2 matches names
    entries = [entry.id for entry in feed.entries]
    # newest first by the time reported, not by the order stored
    assert entries == [f"{SITE}/satellite/AO-91#report-{ids[n]}" for n in (1, 2, 0)]
    assert [entry.title for entry in feed.entries] == [
        "Not Heard: K1ABC (FN31)",
        "Heard: W5API (FN31)",
        "Heard: W1AW (FN31)",
    ]
    self_links = [link.href for link in feed.feed.links if link.rel == "self"]
    assert self_links == [f"{SITE}/api/v2/satellites/AO-91/reports.atom"]
    # the satellite page's feed, with the same entries: one rendering
    assert [entry.id for entry in parsed(client.get("/feeds/AO-91.atom")).entries] == entries
    by_display_name = client.get(f"/api/v2/satellites/{quote('AO-91 Mode U/v FM', safe='')}/reports.atom")
    assert parsed(by_display_name).entries == feed.entries

    newer = store_report(engine, "AO-91", hours_ago(0), callsign="N0CALL").id
    again = parsed(client.get("/api/v2/satellites/AO-91/reports.atom"))
    assert [entry.id for entry in again.entries] == [f"{SITE}/satellite/AO-91#report-{newer}", *entries]


def test_reports_feed_holds_the_newest_fifty(client, engine):
    seed_catalog(engine)
    when = hours_ago(2)
    rows = [
        dict(
            name="FO-29",
            day=when.date(),
            hour=when.hour,
            period=period_of_minute(when.minute),
            callsign=f"W{n}AB",
            report="Heard",
            grid_square="FN31",
        )
        for n in range(55)
    ]
    with db.connect(engine, write=True) as conn:
        writes.store_submitted(conn, rows)
    feed = parsed(client.get("/api/v2/satellites/FO-29/reports.atom"))
    assert len(feed.entries) == 50


def test_status_feed(client, engine):
    seed_catalog(engine, aliases=[("[B]_AO-7", "FO-29")])
    store_report(engine, "FO-29", hours_ago(4), callsign="W1AW", report="Not Heard")
    for callsign, report in (("W5API", "Heard"), ("K1ABC", "Heard"), ("N0CALL", "Not Heard"), ("G4XYZ", "Not Heard")):
        store_report(engine, "FO-29", hours_ago(0), callsign=callsign, report=report)
    store_report(engine, "AO-91", hours_ago(0), callsign="W5API")  # another satellite's change

    path = f"/api/v2/satellites/{quote('[b]_ao-7', safe='')}/status.atom"  # a retired name, any case
    feed = parsed(client.get(path))
    assert feed.feed.id == f"{SITE}/api/v2/satellites/FO-29/status.atom"
    # Section 7's rule: 1 not heard; then 1 heard (a newer cell), 2 heard, 2 heard beside 1 not
    # heard (no change), 2 beside 2 (conflicting). Newest first, each with the report that made it.
    assert [(entry.title, entry.author) for entry in feed.entries] == [
        ("FO-29: Conflicting reports (was Sat/Mode Active)", "G4XYZ"),
        ("FO-29: Sat/Mode Active (was Not Heard)", "W5API"),
        ("FO-29: Not Heard", "W1AW"),
    ]
    ids = [entry.id for entry in feed.entries]
    assert len(set(ids)) == 3 and all(entry_id.startswith(f"{SITE}/satellite/FO-29#status-") for entry_id in ids)
    assert [entry.updated_parsed for entry in feed.entries] == sorted(
        (entry.updated_parsed for entry in feed.entries), reverse=True
    )

    store_report(engine, "FO-29", hours_ago(0), callsign="K2ABC", report="Heard")  # 3 beside 2: heard
    again = parsed(client.get("/api/v2/satellites/FO-29/status.atom"))
    assert [entry.id for entry in again.entries][1:] == ids  # the ids stay
    assert again.entries[0].title == "FO-29: Sat/Mode Active (was Conflicting reports)"


@pytest.mark.parametrize("feed", ["reports", "status"])
def test_etag_and_cache_control(client, engine, feed):
    seed_catalog(engine)
    store_report(engine, "AO-91", hours_ago(1))
    path = f"/api/v2/satellites/AO-91/{feed}.atom"
    first = client.get(path)
    assert first.headers["cache-control"] == "public, max-age=60"
    assert first.headers["access-control-allow-origin"] == "*"
    etag = first.headers["etag"]
    not_modified = client.get(path, headers={"If-None-Match": etag})
    assert (not_modified.status_code, not_modified.content, not_modified.headers["etag"]) == (304, b"", etag)
    store_report(engine, "FO-29", hours_ago(1))  # another satellite's report: the same feed, the same tag
    assert client.get(path, headers={"If-None-Match": etag}).status_code == 304
    store_report(engine, "AO-91", hours_ago(0), callsign="K1ABC", report="Not Heard")
    changed = client.get(path, headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["etag"] != etag


@pytest.mark.parametrize("feed", ["reports", "status"])
def test_refusals_are_v2_envelopes(client, engine, feed):
    seed_catalog(engine)
    unknown = client.get(f"/api/v2/satellites/NO-SUCH-SAT/{feed}.atom")
    assert unknown.status_code == 404 and unknown.headers["content-type"] == "application/json; charset=utf-8"
    assert unknown.json()["error"] == {
        "code": "satellite_not_found",
        "message": "No satellite matched the requested name 'NO-SUCH-SAT'.",
        "status": 404,
        "details": {"name": "NO-SUCH-SAT"},
    }
    for name in ("AO-91\n", "\x00", "AO-91/x"):  # what no satellite is named (PostgreSQL binds no NUL)
        refused = client.get(f"/api/v2/satellites/{quote(name, safe='')}/{feed}.atom")
        assert refused.status_code == 404 and refused.json()["error"]["details"] == {"name": name}
    refused = client.post(f"/api/v2/satellites/AO-91/{feed}.atom")
    assert refused.status_code == 405 and refused.json()["error"]["code"] == "method_not_allowed"
    head = client.head(f"/api/v2/satellites/AO-91/{feed}.atom")
    assert head.status_code == 200 and head.content == b""
