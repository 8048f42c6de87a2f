"""status/notify/atom.py: a satellite's feeds as feedparser (an independent Atom reader) reads
them: entry times, ids, titles, the status page's words, and a feed without entries."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace

import feedparser

from sathub.status.notify import atom
from sathub.status.notify.changes import StatusChange

SITE = "https://www.amsat.org/status"
TODAY = date(2026, 11, 25)


def test_entry_times_use_the_first_minute_of_the_quarter():
    assert atom.entry_time(date(2026, 5, 23), 8, 0) == "2026-05-23T08:00:00Z"
    assert atom.entry_time(date(2026, 5, 23), 8, 3) == "2026-05-23T08:46:00Z"


def test_status_words_are_the_legend_of_the_status_page():
    assert atom.STATUS_LABELS == {
        "heard": "Sat/Mode Active",
        "telemetry": "TLM/Beacon only",
        "not_heard": "Not Heard",
        "conflicting": "Conflicting reports",
        "crew": "ISS Crew Active",
        "no_majority": "Unknown report value",
    }


def cell(start: str, end: str, status: str, heard: int = 0, not_heard: int = 0) -> dict:
    counts = {"Heard": heard, "Telemetry Only": 0, "Not Heard": not_heard, "Crew Active": 0}
    return {"start": start, "end": end, "status": status, "counts": counts}


def test_a_status_feed():
    before = cell("2026-11-25T18:00:00Z", "2026-11-25T20:00:00Z", "not_heard", not_heard=1)
    report = {"callsign": "W5API", "report": "Heard", "grid_square": "EM25", "reported_time": "2026-11-25T21:30:00Z"}
    changes = [
        StatusChange(
            9, 1795643191, "AO-91", "AO-91 Mode U/v FM", cell("2026-11-25T20:00:00Z", "x", "heard", 1), before, report
        ),
        StatusChange(4, 1795636000, "AO-91", "AO-91 Mode U/v FM", before, None, None),
    ]
    self_url = f"{SITE}/api/v2/satellites/AO-91/status.atom"
    page = atom.status_feed(SITE, TODAY, "AO-91", "AO-91 Mode U/v FM", changes, self_url)
    assert page.media_type == "application/atom+xml; charset=utf-8"
    feed = feedparser.parse(page.body)
    assert not feed.bozo, feed.bozo_exception
    assert feed.feed.id == self_url and feed.feed.updated == "2026-11-25T21:46:31Z"
    first, second = feed.entries
    assert [first.id, second.id] == [f"{SITE}/satellite/AO-91#status-9", f"{SITE}/satellite/AO-91#status-4"]
    assert first.title == "AO-91: Sat/Mode Active (was Not Heard)"
    assert first.author == "W5API" and "W5API's report Heard from EM25" in first.summary
    assert second.title == "AO-91: Not Heard" and second.author == "AMSAT satellite status"


def test_a_feed_without_entries_is_dated_at_the_start_of_the_day():
    for page in (
        atom.status_feed(SITE, TODAY, "FO-29", "", [], f"{SITE}/api/v2/satellites/FO-29/status.atom"),
        atom.reports_feed(SITE, TODAY, "FO-29", None, [], f"{SITE}/api/v2/satellites/FO-29/reports.atom"),
    ):
        feed = feedparser.parse(page.body)
        assert not feed.bozo and feed.entries == []
        assert feed.feed.updated == "2026-11-25T00:00:00Z"


def test_a_reports_feed_links_itself_where_it_was_asked():
    row = SimpleNamespace(id=41, day=TODAY, hour=21, period=3, callsign="W5API", report="Heard", grid_square="EM25")
    self_url = f"{SITE}/api/v2/satellites/AO-91/reports.atom"
    feed = feedparser.parse(atom.reports_feed(SITE, TODAY, "AO-91", None, [row], self_url).body)
    assert not feed.bozo
    assert [link.href for link in feed.feed.links if link.rel == "self"] == [self_url]
    assert feed.entries[0].id == f"{SITE}/satellite/AO-91#report-41"
    assert feed.entries[0].updated == "2026-11-25T21:46:00Z"
