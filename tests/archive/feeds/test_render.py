"""The bytes of the feeds (sathub.archive.feeds.render), without a database: XML escaping,
characters XML 1.0 forbids, the dates of RSS and Atom, and the elements each form carries."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import datetime
from types import SimpleNamespace

from sathub.archive.feeds.render import FeedContent, atom, html_pre, rfc822_date, rfc3339_date, rss, xml_text

ATOM = "{http://www.w3.org/2005/Atom}"
WHEN = datetime(2021, 1, 1, 10, 0, 0)


def test_text_is_escaped_for_xml_and_forbidden_characters_become_u_fffd():
    assert xml_text('<a href="x">&</a>') == "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
    assert xml_text("tab\tnew\nline\rkept") == "tab\tnew\nline\rkept"
    assert xml_text("\x00\x01\x08\x0b\x0c\x1f\ufffe\uffff\ud800") == "\ufffd" * 9
    assert xml_text(None) == ""


def test_a_mails_text_is_html_in_a_pre():
    assert html_pre("<img onerror=x> & more\n") == "<pre>&lt;img onerror=x&gt; &amp; more\n</pre>"


def test_the_dates_of_each_form():
    assert rfc822_date(WHEN) == "Fri, 01 Jan 2021 10:00:00 +0000"  # as Django writes them for HyperKitty
    assert rfc3339_date(WHEN) == "2021-01-01T10:00:00Z"


ITEM = SimpleNamespace(
    subject="Hi <there>",
    sender_name="Ann",
    sender_address="ann@example.com",
    date=WHEN,
    content="Mail ann@example.com\n",
)
FEED = FeedContent(
    title="dev",
    subtitle="",
    alternate="https://h/archive/list/dev@x/",
    self_url="https://h/archive/list/dev@x/feed/?limit=1",
    feed_id="https://h/archive/list/dev@x/feed/",
    updated=WHEN,
    items=[ITEM],
)


def links(item) -> tuple[str, str, str]:
    return ("https://h/m/", "https://h/s/feed/", "https://h/t/")


def test_rss_writes_hyperkittys_item_with_at_signs_as_u_ff20():
    channel = ET.fromstring(rss(FEED, links)).find("channel")
    [item] = channel.findall("item")
    assert item.findtext("title") == "Hi <there>"
    assert item.findtext("author") == "ann\uff20example.com (Ann)"
    assert item.findtext("description") == "<pre>Mail ann\uff20example.com\n</pre>"
    assert item.findtext("pubDate") == "Fri, 01 Jan 2021 10:00:00 +0000"
    assert item.findtext("guid") == item.findtext("link") == "https://h/m/"


def test_atom_leaves_an_empty_subtitle_out_and_links_the_thread():
    feed = ET.fromstring(atom(FEED, links))
    assert feed.find(f"{ATOM}subtitle") is None
    assert feed.findtext(f"{ATOM}id") == "https://h/archive/list/dev@x/feed/"
    [entry] = feed.findall(f"{ATOM}entry")
    assert {link.get("rel"): link.get("href") for link in entry.findall(f"{ATOM}link")} == {
        "alternate": "https://h/m/",
        "related": "https://h/t/",
    }
    assert entry.findtext(f"{ATOM}author/{ATOM}uri") == "https://h/s/feed/"
    assert entry.findtext(f"{ATOM}content") == "<pre>Mail ann@example.com\n</pre>"
    assert entry.findtext(f"{ATOM}published") == entry.findtext(f"{ATOM}updated") == "2021-01-01T10:00:00Z"


def test_a_sender_named_by_their_address_is_shown_as_on_the_pages():
    """Pipermail-imported senders are named by their address (archive-api.md, Header rules 1)."""
    item = SimpleNamespace(**{**vars(ITEM), "sender_name": "ann@example.com"})
    feed = FeedContent(**{**vars(FEED), "items": [item]})
    rss_item = ET.fromstring(rss(feed, links)).find("channel/item")
    assert rss_item.findtext("author") == "ann\uff20example.com (ann (a) example.com)"
    entry = ET.fromstring(atom(feed, links)).find(f"{ATOM}entry")
    assert entry.findtext(f"{ATOM}author/{ATOM}name") == "ann (a) example.com"


def test_rfc3339_writes_four_digits_of_year():
    """RFC 3339's date-fullyear is 4DIGIT."""
    assert rfc3339_date(datetime(1, 1, 1, 0, 0, 0)) == "0001-01-01T00:00:00Z"
