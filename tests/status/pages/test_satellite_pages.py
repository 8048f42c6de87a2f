"""Each satellite's page (history strip, newest reports, redirects, 404) and Atom feed: valid
RFC 4287 (checked element by element, and read by a real feed parser), newest reports first,
conditional GET."""

import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta

import feedparser
import pytest

from tests.status.pages.conftest import now_minus
from tests.status.seed import seed_catalog, set_visible, store_report

ATOM = "{http://www.w3.org/2005/Atom}"
RFC3339 = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)")
URL = "/feeds/AO-7_%5BU%2Fv%5D.atom"


@pytest.fixture
def seeded(engine):
    seed_catalog(engine, rows=[{"name": "AO-7_[U/v]", "display_name": "AO-7 Mode B", "website": ""}])
    now = datetime.now(UTC).replace(second=0, microsecond=0)
    store_report(engine, "AO-7_[U/v]", now - timedelta(days=2), callsign="K1ABC", report="Not Heard", grid="")
    store_report(engine, "AO-7_[U/v]", now - timedelta(hours=1), callsign="W1AW", report="Heard", grid="FN42")
    return engine


def assert_valid_atom(text: str) -> ET.Element:
    """The MUSTs of RFC 4287 that a feed generator can break (sections 4.1.1, 4.1.2, 4.2)."""
    root = ET.fromstring(text.encode())
    assert root.tag == f"{ATOM}feed"

    def one(element, name):
        found = element.findall(f"{ATOM}{name}")
        assert len(found) == 1, f"{element.tag} must have exactly one {name}"
        return found[0]

    for name in ("id", "title", "updated"):
        assert one(root, name).text
    assert RFC3339.fullmatch(one(root, "updated").text)
    assert re.match(r"[a-z][a-z0-9+.-]*:", one(root, "id").text)  # an absolute IRI
    feed_has_author = root.find(f"{ATOM}author/{ATOM}name") is not None
    self_links = [link for link in root.findall(f"{ATOM}link") if link.get("rel") == "self"]
    assert len(self_links) == 1 and self_links[0].get("href").startswith("http")
    ids = []
    for entry in root.findall(f"{ATOM}entry"):
        for name in ("id", "title", "updated"):
            assert one(entry, name).text
        assert RFC3339.fullmatch(one(entry, "updated").text)
        assert feed_has_author or entry.find(f"{ATOM}author/{ATOM}name") is not None
        content = entry.find(f"{ATOM}content")
        alternate = [link for link in entry.findall(f"{ATOM}link") if link.get("rel", "alternate") == "alternate"]
        assert content is not None or alternate, "an entry without content needs an alternate link"
        ids.append(one(entry, "id").text)
    assert len(ids) == len(set(ids)), "entry ids must be unique"
    return root


def test_the_feed_is_valid_atom_with_the_newest_report_first(client, seeded):
    response = client.get(URL)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/atom+xml; charset=utf-8"
    root = assert_valid_atom(response.text)
    titles = [e.find(f"{ATOM}title").text for e in root.findall(f"{ATOM}entry")]
    assert titles == ["Heard: W1AW (FN42)", "Not Heard: K1ABC"]
    assert root.find(f"{ATOM}updated").text == root.find(f"{ATOM}entry/{ATOM}updated").text


def test_a_feed_reader_reads_it_without_complaint(client, seeded):
    parsed = feedparser.parse(client.get(URL).content)
    assert not parsed.bozo and parsed.version == "atom10"
    assert parsed.feed.title == "AO-7_[U/v]: AMSAT satellite status reports"
    assert [e.author for e in parsed.entries] == ["W1AW", "K1ABC"]
    assert parsed.entries[0].link == "http://sathub.test/satellite/AO-7_%5BU%2Fv%5D"


def test_an_empty_feed_is_still_valid(client, engine):
    seed_catalog(engine, rows=[{"name": "NEW-1", "display_name": "New", "website": ""}])
    root = assert_valid_atom(client.get("/feeds/NEW-1.atom").text)
    assert root.findall(f"{ATOM}entry") == []


def test_names_are_escaped_in_the_xml(client, engine):
    seed_catalog(engine, rows=[{"name": "A&B<1>", "display_name": "A & B", "website": ""}])
    assert_valid_atom(client.get("/feeds/A%26B%3C1%3E.atom").text)


def test_conditional_get_answers_304_until_a_report_arrives(client, seeded):
    etag = client.get(URL).headers["etag"]
    assert client.get(URL, headers={"If-None-Match": etag}).status_code == 304
    store_report(seeded, "AO-7_[U/v]", datetime.now(UTC) - timedelta(minutes=5), callsign="DL1ABC")
    assert client.get(URL, headers={"If-None-Match": etag}).status_code == 200


def test_a_write_about_another_satellite_keeps_a_feed_not_modified(client, seeded):
    seed_catalog(
        seeded,
        rows=[
            {"name": "AO-7_[U/v]", "display_name": "AO-7 Mode B", "website": ""},
            {"name": "FO-29", "display_name": "FO-29", "website": ""},
        ],
    )
    empty = "/feeds/FO-29.atom"
    empty_tag = client.get(empty).headers["etag"]
    store_report(seeded, "AO-7_[U/v]", datetime.now(UTC) - timedelta(minutes=5), callsign="DL1ABC")
    assert client.get(empty, headers={"If-None-Match": empty_tag}).status_code == 304
    tag = client.get(URL).headers["etag"]
    store_report(seeded, "FO-29", datetime.now(UTC) - timedelta(minutes=5), callsign="DL1ABC")
    assert client.get(URL, headers={"If-None-Match": tag}).status_code == 304
    assert client.get(empty, headers={"If-None-Match": empty_tag}).status_code == 200


def test_unknown_satellite_feed_is_404(client, engine):
    assert client.get("/feeds/NOPE.atom").status_code == 404


def test_satellite_page_shows_history_and_recent_reports(client, catalog_seeded):
    store_report(catalog_seeded, "AO-7_[U/v]", now_minus(hours=1), callsign="W1AW", report="Heard", grid="FN42")
    store_report(catalog_seeded, "AO-7_[U/v]", now_minus(days=10), callsign="K1ABC", report="Not Heard", grid="")
    response = client.get("/satellite/AO-7_%5BU%2Fv%5D")
    assert response.status_code == 200
    html = response.text
    assert "<h1>AO-7 Mode B &lt;b&gt;</h1>" in html
    assert html.count("<rect x=") >= 3 and "<svg" in html and "2 blocks with reports" in html
    assert "W1AW" in html and "K1ABC" in html
    assert 'href="http://sathub.test/feeds/AO-7_%5BU%2Fv%5D.atom"' in html


def test_a_name_only_in_reports_still_has_a_page(client, catalog_seeded):
    store_report(catalog_seeded, "RETIRED-1", now_minus(hours=1))
    response = client.get("/satellite/retired-1")
    assert response.status_code == 200 and "No longer in the catalog" in response.text


def test_display_names_and_aliases_redirect_to_the_api_name(client, catalog_seeded):
    response = client.get("/satellite/ISS%20Voice%20Repeater", follow_redirects=False)
    assert response.status_code == 301
    assert response.headers["location"] == "http://sathub.test/satellite/ISS-FM"


def test_an_unknown_satellite_is_404(client, catalog_seeded):
    assert client.get("/satellite/NO-SUCH-SAT").status_code == 404


IMPLAUSIBLE = "(implausible: the satellite was below this grid square&#39;s horizon)"  # as HTML


def test_an_implausible_report_is_marked_never_hidden(client, engine, catalog_seeded):
    below = store_report(catalog_seeded, "AO-91", now_minus(hours=1), callsign="W1AW", grid="FN42")
    above = store_report(catalog_seeded, "AO-91", now_minus(hours=2), callsign="K1ABC", grid="JO62")
    store_report(catalog_seeded, "AO-91", now_minus(hours=3), callsign="DL1ABC", grid="")  # not checked
    assert "implausible" not in client.get("/satellite/AO-91").text.lower()  # nothing checked, nothing marked
    set_visible(engine, below.id, False)
    set_visible(engine, above.id, True)

    html = client.get("/satellite/AO-91").text
    rows = re.findall(
        r"<tr( class=\"implausible\")?><td>[^<]*</td><td>[^<]*</td><td>[^<]*</td><td>([^<]*)</td>(.*?)</tr>", html
    )
    assert [(callsign, bool(marked)) for marked, callsign, _ in rows] == [
        ("W1AW", True),
        ("K1ABC", False),
        ("DL1ABC", False),
    ]
    marked_cell = rows[0][2]
    # a mark the eye sees (its tooltip says why), and the words a screen reader says instead
    assert 'aria-hidden="true">⚠</span>' in marked_cell and 'title="Implausible: the satellite' in marked_cell
    assert f'<span class="visually-hidden">{IMPLAUSIBLE}</span>' in marked_cell
    assert html.count(IMPLAUSIBLE) == 1 and 'class="implausible-key"' in html
