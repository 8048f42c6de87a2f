"""crawlers/sitemap.py, pure: the protocol's limits (sitemaps.org: 50,000 URLs and 52,428,800
bytes a file, 50,000 sitemaps an index), its dates, escaping."""

from __future__ import annotations

from datetime import datetime
from types import SimpleNamespace
from xml.etree import ElementTree

import pytest

from sathub.archive.crawlers import sitemap

WEB = "https://lists.example.org/archive/"
NS = {"s": sitemap.NAMESPACE}


def test_the_protocols_limits():
    assert sitemap.limits() == (50_000, 52_428_800, 50_000)


def test_dates_are_w3c_datetimes_in_utc():
    assert sitemap.w3c_date(datetime(2021, 1, 3, 8, 30, 5)) == "2021-01-03T08:30:05Z"
    assert sitemap.w3c_date(datetime(1, 2, 3)) == "0001-02-03T00:00:00Z"


def test_a_part_holds_at_most_half_the_urls_each_message_giving_two():
    assert sitemap.emails_per_part(WEB, "dev@example.org") == 25_000


def full_part(address: str, count: int) -> bytes:
    """A part of `count` messages, each starting a thread: the most a part can hold."""
    rows = [
        SimpleNamespace(
            message_id_hash="A" * 32,
            archived_date=datetime(2021, 1, 1),
            started_thread="B" * 32,
            thread_newest=datetime(2021, 1, 2),
        )
    ] * count
    return (sitemap.URLSET_HEAD + sitemap.month_urls(WEB, address, rows) + sitemap.URLSET_TAIL).encode()


@pytest.mark.parametrize("address", ["dev@example.org", "a&b-" + "x" * 200 + "@example.org", "zoë@exämple.org"])
def test_a_full_part_stays_within_the_byte_limit_whatever_the_address(monkeypatch, address):
    """With a byte limit small enough to decide the part's size: a full part fits, and uses the room
    (two messages more would not fit; a thread's entry is a byte shorter than a message's)."""
    monkeypatch.setattr(sitemap, "BYTES_PER_SITEMAP", 20_000)
    per_part = sitemap.emails_per_part(WEB, address)
    assert per_part < 25_000
    assert len(full_part(address, per_part)) <= 20_000 < len(full_part(address, per_part + 2))


def test_locations_are_escaped_for_xml():
    body = full_part("a&b@example.org", 1)
    locations = [loc.text for loc in ElementTree.fromstring(body).findall("s:url/s:loc", NS)]
    assert locations == [
        WEB + "list/a&b@example.org/message/" + "A" * 32 + "/",
        WEB + "list/a&b@example.org/thread/" + "B" * 32 + "/",
    ]


def test_the_index_lists_each_months_parts_and_stops_at_its_limit(monkeypatch):
    monkeypatch.setattr(sitemap, "URLS_PER_SITEMAP", 10)  # 5 messages a part
    months = [(2021, 2, 11, datetime(2021, 2, 9)), (2021, 1, 5, datetime(2021, 1, 31))]
    entries = list(sitemap.index_entries(WEB, "dev@example.org", months))
    assert [entry.split("<loc>")[1].split("</loc>")[0].rsplit("/", 1)[1] for entry in entries] == [
        "sitemap-2021-02-1.xml",
        "sitemap-2021-02-2.xml",
        "sitemap-2021-02-3.xml",
        "sitemap-2021-01-1.xml",
    ]
    assert all("<lastmod>2021-02-09T00:00:00Z</lastmod>" in entry for entry in entries[:3])
    monkeypatch.setattr(sitemap, "SITEMAPS_PER_INDEX", 2)
    assert len(list(sitemap.index_entries(WEB, "dev@example.org", months))) == 2


def test_etags_change_with_any_of_their_values():
    assert sitemap.etag("a", 1, 2) == sitemap.etag("a", 1, 2)
    assert len({sitemap.etag("a", 1, 2), sitemap.etag("a", 1, 3), sitemap.etag("b", 1, 2)}) == 3
