"""The archive's feeds (feeds/endpoint.py, render.py): HyperKitty's RSS at list/<address>/feed/ and
the Atom feeds of a list, a thread and a sender; each parsed with feedparser and with an XML parser.
Expected values come from the hand-built archive of tests/archive/api_fixtures.py; every test runs
on SQLite and PostgreSQL."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime, parsedate_to_datetime

import feedparser
import pytest

from sathub import db
from sathub.archive.mail.dates import utc_now
from sathub.archive.mailman import live_ingest
from sathub.archive.store import lists
from tests.archive.api_fixtures import MAIL, mailman_id, message_id_hash
from tests.archive.messages import raw_message

BASE = "http://sathub.test"
DEV = "dev@example.org"
ATOM = "{http://www.w3.org/2005/Atom}"
# The list's emails newest archived first; equal dates (F, G) by later arrival first.
DEV_NEWEST_FIRST = "HGFEDBCA"


def page(key: str, prefix: str = "/archive/") -> str:
    return f"{BASE}{prefix}list/{MAIL[key].list_name}/message/{MAIL[key].hash}/"


def parsed(answer) -> feedparser.FeedParserDict:
    assert answer.status_code == 200, answer.text
    ET.fromstring(answer.content)  # well-formed XML, or this raises
    feed = feedparser.parse(answer.content)
    assert not feed.bozo, feed.bozo_exception
    return feed


# -- RSS, as HyperKitty serves it ------------------------------------------------------------------


def test_the_rss_feed_has_hyperkittys_channel_and_item_fields(client, archive):
    answer = client.get(f"/hyperkitty/list/{DEV}/feed/")
    assert answer.headers["content-type"] == "application/rss+xml; charset=utf-8"
    channel = ET.fromstring(answer.content).find("channel")
    assert [child.tag for child in channel][:6] == [
        "title",
        "link",
        "description",
        f"{ATOM}link",
        "language",
        "lastBuildDate",
    ]
    assert channel.findtext("link") == f"{BASE}/hyperkitty/list/{DEV}/"
    assert channel.find(f"{ATOM}link").attrib == {"href": f"{BASE}/hyperkitty/list/{DEV}/feed/", "rel": "self"}
    assert channel.findtext("lastBuildDate") == "Thu, 01 Apr 2021 00:00:00 +0000"  # H's date
    items = channel.findall("item")
    assert [item.findtext("link") for item in items] == [page(k, "/hyperkitty/") for k in DEV_NEWEST_FIRST]
    first = items[-1]  # A
    assert [child.tag for child in first] == ["title", "link", "description", "author", "pubDate", "guid"]
    assert first.findtext("title") == "[dev] Welcome"
    assert first.findtext("author") == "alice\uff20example.org (Alice Liddell)"
    assert first.findtext("pubDate") == "Fri, 01 Jan 2021 10:00:00 +0000"
    assert first.findtext("guid") == page("A", "/hyperkitty/")
    assert first.findtext("description") == "<pre>Hello.\n</pre>"
    feed = parsed(answer)
    assert feed.version == "rss20" and len(feed.entries) == 8
    assert feed.entries[0].title == "[dev] Late" and feed.entries[0].link == page("H", "/hyperkitty/")


def test_rss_writes_at_signs_in_the_text_as_hyperkitty_does(client, engine):
    raw = raw_message("at@x", sender="Ann <ann@example.com>", body="Write to ann@example.com.\n")
    with db.connect(engine, write=True) as conn:
        lists.create_list(conn, DEV, {"created_at": utc_now()})
        live_ingest.store(conn, DEV, live_ingest.parse(raw))
    item = ET.fromstring(client.get(f"/archive/list/{DEV}/feed/").content).find("channel/item")
    assert item.findtext("description") == "<pre>Write to ann\uff20example.com.\n</pre>"
    assert item.findtext("author") == "ann\uff20example.com (Ann)"


# -- Atom ------------------------------------------------------------------------------------------


def test_the_list_atom_feed(client, archive):
    feed = parsed(client.get(f"/archive/list/{DEV}/feed/atom/"))
    assert feed.version == "atom10"
    assert feed.feed.title == DEV and feed.feed.link == f"{BASE}/archive/list/{DEV}/"
    assert feed.feed.id == f"{BASE}/archive/list/{DEV}/feed/atom/"
    assert feed.feed.updated == "2021-04-01T00:00:00Z"
    assert [entry.link for entry in feed.entries] == [page(k) for k in DEV_NEWEST_FIRST]
    zoe = feed.entries[DEV_NEWEST_FIRST.index("C")]
    assert zoe.id == page("C") and zoe.title == "Re: [dev] Welcome"
    assert zoe.published == zoe.updated == "2021-01-01T12:00:00Z"
    assert zoe.author_detail.name == "Zoë Ünïcode"
    assert zoe.author_detail.href == f"{BASE}/archive/sender/{mailman_id('zoe@example.com')}/feed/atom/"
    assert zoe.content[0].type == "text/html" and zoe.content[0].value == "<pre>Grüße — ça va ?\n</pre>"
    thread_link = [link.href for link in zoe.links if link.rel == "related"]
    assert thread_link == [f"{BASE}/archive/list/{DEV}/thread/{MAIL['A'].hash}/"]


def test_the_thread_atom_feed(client, archive):
    feed = parsed(client.get(f"/archives/list/{DEV}/thread/{MAIL['A'].hash}/feed/atom/"))
    assert feed.feed.title == "[dev] Welcome"
    assert feed.feed.link == f"{BASE}/archives/list/{DEV}/thread/{MAIL['A'].hash}/"
    assert [entry.id for entry in feed.entries] == [page(k, "/archives/") for k in "DBCA"]


def test_the_sender_atom_feed_leaves_private_lists_out(client, archive):
    # Alice wrote A, D, F on dev, X on other and P on the private list; X and A share a date (X later).
    for key in (mailman_id("alice@example.org"), "Alice@Example.org"):
        feed = parsed(client.get(f"/archive/sender/{key}/feed/atom/"))
        assert [entry.link for entry in feed.entries] == [page(k) for k in "FDXA"], key
        assert feed.feed.title == "Messages from Alice Liddell"
    assert "Secret" not in client.get(f"/archive/sender/{mailman_id('alice@example.org')}/feed/atom/").text


def test_an_unknown_sender_is_an_empty_feed_and_a_malformed_one_not_found(client, archive):
    # The same answer as for a sender whose mail is all on private lists (as the API's `[]`).
    empty = parsed(client.get(f"/archive/sender/{mailman_id('nobody@example.org')}/feed/atom/"))
    assert empty.entries == [] and empty.feed.updated == "1970-01-01T00:00:00Z"
    assert client.get("/archive/sender/not-an-id/feed/atom/").status_code == 404


def test_a_sender_of_private_mail_only_is_a_sender_who_never_wrote(client, engine, archive):
    """archive-export.md: the two answers cannot be told apart; byte for byte, the asked key aside
    (as written in the URL, and with ` (a) ` in the title), and never the hidden sender's mailman_id."""
    with db.connect(engine, write=True) as conn:
        live_ingest.store(conn, "private@example.org", live_ingest.parse(raw_message("p2@x", sender="hid@example.org")))

    def masked(answer, key: str) -> bytes:
        return answer.content.replace(key.encode(), b"KEY").replace(key.replace("@", " (a) ").encode(), b"KEY")

    for hidden, never in (
        ("hid@example.org", "non@example.org"),
        ("Hid@Example.org", "Non@Example.org"),
        (mailman_id("hid@example.org"), mailman_id("non@example.org")),
    ):
        one, other = (client.get(f"/archive/sender/{key}/feed/atom/") for key in (hidden, never))
        assert one.status_code == other.status_code == 200
        assert masked(one, hidden) == masked(other, never), hidden
        assert mailman_id("hid@example.org").encode() not in masked(one, hidden)
        assert {k: v for k, v in one.headers.items() if k != "etag"} == {
            k: v for k, v in other.headers.items() if k != "etag"
        }


def test_a_sender_named_by_their_address_is_shown_obfuscated_in_every_feed(client, engine):
    """Pipermail's `x at y (Name)` leaves the address as the name (archive-api.md, Header rules 1):
    the pages' rule, ` (a) `, for the name; RSS keeps HyperKitty's `＠` in the address."""
    raw = raw_message("pm@x", sender="benjamin at python.org (Benjamin Peterson)", subject="Pipermail sender")
    with db.connect(engine, write=True) as conn:
        lists.create_list(conn, DEV, {"created_at": utc_now()})
        thread = live_ingest.store(conn, DEV, live_ingest.parse(raw)).message_id_hash
    rss = client.get(f"/archive/list/{DEV}/feed/")
    assert (
        ET.fromstring(rss.content).findtext("channel/item/author")
        == "benjamin\uff20python.org (benjamin (a) python.org)"
    )
    for path in (
        f"list/{DEV}/feed/atom/",
        f"list/{DEV}/thread/{thread}/feed/atom/",
        f"sender/{mailman_id('benjamin@python.org')}/feed/atom/",
        "search/feed/atom/?q=pipermail",
    ):
        feed = parsed(client.get(f"/archive/{path}"))
        assert [entry.author_detail.name for entry in feed.entries] == ["benjamin (a) python.org"], path
    for path in (f"list/{DEV}/feed/", f"sender/{mailman_id('benjamin@python.org')}/feed/atom/"):
        assert b"benjamin@python.org" not in client.get(f"/archive/{path}").content, path


# -- limit -----------------------------------------------------------------------------------------


def test_thirty_items_by_default_and_limit_up_to_200(client, engine):
    with db.connect(engine, write=True) as conn:
        lists.create_list(conn, DEV, {"created_at": utc_now()})
        for n in range(205):
            date = f"Mon, 01 Feb 2021 {n // 60:02d}:{n % 60:02d}:00 +0000"
            live_ingest.store(conn, DEV, live_ingest.parse(raw_message(f"n{n}@x", subject=f"n{n}", date=date)))
    default = parsed(client.get(f"/archive/list/{DEV}/feed/"))
    assert [entry.title for entry in default.entries] == [f"n{n}" for n in range(204, 174, -1)]
    assert len(parsed(client.get(f"/archive/list/{DEV}/feed/atom/?limit=200")).entries) == 200
    one = client.get(f"/archive/list/{DEV}/feed/atom/?limit=1")
    assert [entry.title for entry in parsed(one).entries] == ["n204"]
    assert f'href="{BASE}/archive/list/{DEV}/feed/atom/?limit=1" rel="self"' in one.text


@pytest.mark.parametrize("value", ["0", "201", "1000", "-1", "1.5", "abc", "", "٣", "0x10", "9" * 40])
def test_a_bad_limit_is_a_400_page(client, archive, value):
    answer = client.get(f"/archive/list/{DEV}/feed/", params={"limit": value})
    assert answer.status_code == 400 and answer.headers["content-type"] == "text/html; charset=utf-8"
    assert "limit must be a whole number from 1 to 200." in answer.text


def test_limit_given_twice_is_a_400(client, archive):
    assert client.get(f"/archive/list/{DEV}/feed/atom/?limit=2&limit=3").status_code == 400


# -- escaping --------------------------------------------------------------------------------------


def test_feeds_escape_markup_and_control_characters(client, engine):
    raw = raw_message(
        "esc@example.com",
        sender='"<b>Eve</b> & co" <eve@example.com>',
        subject="<script>alert(1)</script> & \x01",
        body="<img src=x onerror=alert(2)> & ]]> \x02 more\n",
    )
    with db.connect(engine, write=True) as conn:
        lists.create_list(conn, DEV, {"created_at": utc_now(), "description": "<i>desc</i> & more"})
        live_ingest.store(conn, DEV, live_ingest.parse(raw))
    thread = message_id_hash("esc@example.com")
    for path in (f"list/{DEV}/feed/", f"list/{DEV}/feed/atom/", f"list/{DEV}/thread/{thread}/feed/atom/"):
        answer = client.get(f"/archive/{path}")
        assert b"<script" not in answer.content and b"<img" not in answer.content and b"<b>" not in answer.content
        feed = parsed(answer)
        [entry] = feed.entries
        assert entry.title.startswith("<script>alert(1)</script> &")
        text = entry.content[0].value if entry.get("content") else entry.summary
        # What a reader renders: the text itself, markup shown as text.
        assert "&lt;img src=x onerror=alert(2)&gt; &amp; ]]&gt;" in text, path
    channel = ET.fromstring(client.get(f"/archive/list/{DEV}/feed/").content).find("channel")
    assert channel.findtext("description") == "<i>desc</i> & more"


# -- conditional GET -------------------------------------------------------------------------------


def test_etag_and_last_modified_answer_304(client, archive):
    path = f"/archive/list/{DEV}/feed/atom/"
    first = client.get(path)
    etag, last_modified = first.headers["etag"], first.headers["last-modified"]
    # When the list last changed (its import, just now), not its newest item's date: a reply to
    # an old thread may be archived with an older date (docs/archive-caching.md).
    changed = parsedate_to_datetime(last_modified)
    assert abs((datetime.now(UTC) - changed).total_seconds()) < 120
    same = client.get(path, headers={"If-None-Match": etag})
    assert same.status_code == 304 and same.content == b"" and same.headers["etag"] == etag
    assert client.get(path, headers={"If-None-Match": f'W/{etag}, "other"'}).status_code == 304
    assert client.get(path, headers={"If-Modified-Since": last_modified}).status_code == 304
    later = format_datetime(parsedate_to_datetime(last_modified).replace(year=2030), usegmt=True)
    assert client.get(path, headers={"If-Modified-Since": later}).status_code == 304
    earlier = format_datetime(changed - timedelta(seconds=1), usegmt=True)
    assert client.get(path, headers={"If-Modified-Since": earlier}).status_code == 200
    assert client.get(path, headers={"If-Modified-Since": "not a date"}).status_code == 200
    # If-None-Match wins over If-Modified-Since (RFC 9110 13.2.2).
    both = client.get(path, headers={"If-None-Match": '"stale"', "If-Modified-Since": last_modified})
    assert both.status_code == 200
    head = client.head(path, headers={"If-None-Match": etag})
    assert head.status_code == 304
    # Other limits are other bytes, so other tags.
    assert client.get(path + "?limit=2").headers["etag"] != etag


def test_new_mail_changes_the_etag(client, engine):
    with db.connect(engine, write=True) as conn:
        lists.create_list(conn, DEV, {"created_at": utc_now()})
        live_ingest.store(conn, DEV, live_ingest.parse(raw_message("one@x")))
    path = f"/archive/list/{DEV}/feed/"
    etag = client.get(path).headers["etag"]
    with db.connect(engine, write=True) as conn:
        live_ingest.store(conn, DEV, live_ingest.parse(raw_message("two@x", date="Tue, 02 Jan 2001 10:00:00 +0000")))
    fresh = client.get(path, headers={"If-None-Match": etag})
    assert fresh.status_code == 200 and fresh.headers["etag"] != etag
    assert len(parsed(fresh).entries) == 2


# -- refusals --------------------------------------------------------------------------------------


def test_private_unknown_and_malformed(client, archive):
    private = "private@example.org"
    for path in (
        f"list/{private}/feed/",
        f"list/{private}/feed/atom/",
        f"list/{private}/thread/{MAIL['P'].hash}/feed/atom/",
    ):
        answer = client.get(f"/archive/{path}")
        assert answer.status_code == 403 and "Secret" not in answer.text, path
    assert client.get("/archive/list/nobody@example.org/feed/").status_code == 404
    assert client.get(f"/archive/list/{DEV}/thread/{'A' * 32}/feed/atom/").status_code == 404
    assert client.get(f"/archive/list/{DEV}/thread/bad/feed/atom/").status_code == 404
    refused = client.post(f"/archive/list/{DEV}/feed/")
    assert (refused.status_code, refused.headers["allow"]) == (405, "GET, HEAD")
    moved = client.get(f"/archive/list/{DEV}/feed", follow_redirects=False)
    assert (moved.status_code, moved.headers["location"]) == (301, f"{BASE}/archive/list/{DEV}/feed/")


# -- the search feed (the language of docs/archive-search.md) --------------------------------------


def test_the_search_feed_finds_the_newest_matches(client, archive):
    within = parsed(client.get("/archive/search/feed/atom/", params={"q": "welcome", "mlist": DEV}))
    assert [entry.link for entry in within.entries] == [page(k) for k in "DBCA"]
    assert within.feed.title == f"Search: welcome in {DEV}"
    assert within.feed.id == f"{BASE}/archive/search/feed/atom/?q=welcome&mlist=dev%40example.org"
    assert within.feed.link == f"{BASE}/archive/search?q=welcome&mlist=dev%40example.org&sort=date-desc"
    everywhere = parsed(client.get("/archive/search/feed/atom/", params={"q": "welcome", "limit": "10"}))
    # Newest first across lists: D, B, C, then A and X, which share a date (other's X is A cross-posted).
    links = [entry.link for entry in everywhere.entries]
    assert links[:3] == [page(k) for k in "DBC"] and sorted(links[3:]) == sorted([page("A"), page("X")])
    one = parsed(client.get("/archive/search/feed/atom/", params={"q": "Grüße"}))
    assert [entry.link for entry in one.entries] == [page("C")]
    assert one.entries[0].content[0].value == "<pre>Grüße — ça va ?\n</pre>"
    limited = client.get("/archive/search/feed/atom/", params={"q": "welcome", "mlist": DEV, "limit": "2"})
    assert [entry.link for entry in parsed(limited).entries] == [page(k) for k in "DB"]
    assert f'href="{BASE}/archive/search/feed/atom/?q=welcome&amp;mlist=dev%40example.org&amp;limit=2"' in limited.text


def test_the_search_feed_never_shows_a_private_list(client, archive):
    assert parsed(client.get("/archive/search/feed/atom/", params={"q": "secret"})).entries == []
    private = client.get("/archive/search/feed/atom/", params={"q": "secret", "mlist": "private@example.org"})
    assert private.status_code == 403 and "Secret" not in private.text


def test_the_search_feed_refuses_what_the_language_refuses(client, archive):
    missing, refused = "The search needs a query: q=…", "Invalid query: '(' is never closed (at character 1)"
    for query, says in (({}, missing), ({"q": ""}, missing), ({"q": "   "}, missing), ({"q": "(welcome"}, refused)):
        answer = client.get("/archive/search/feed/atom/", params=query)
        assert answer.status_code == 400 and answer.headers["content-type"] == "text/html; charset=utf-8", query
        assert says in answer.text.replace("&#39;", "'"), query
    assert client.get("/archive/search/feed/atom/", params={"q": "x", "limit": "500"}).status_code == 400
    assert client.get("/archive/search/feed/atom/", params={"q": "x", "mlist": "nobody@example.org"}).status_code == 404


def test_a_search_feed_holds_one_pooled_connection_at_a_time(engine, settings):
    """The budget's spend takes a connection of its own, so the feed gives its first one back
    before: a burst of search feeds each holding one while waiting for a second would empty the
    pool for good (each waits for the others' connections)."""
    from dataclasses import replace

    from starlette.testclient import TestClient

    from sathub.app import create_app
    from tests.archive.api_fixtures import pooled_connections, seed_archive

    seed_archive(engine)
    app = create_app(replace(settings, search_budget=5), engine=engine)
    with TestClient(app) as client, pooled_connections(engine) as most:
        assert client.get("/archive/search/feed/atom/?q=welcome").status_code == 200
    assert len(most) == 3 and max(most) == 1  # the revision, the spend, the search: one after another
