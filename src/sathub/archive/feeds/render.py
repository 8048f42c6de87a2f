"""The bytes of the archive's feeds (pure; no I/O): RSS 2.0 with the channel and item elements
HyperKitty 1.3.12's list feed has (Django's Rss201rev2Feed fed by hyperkitty/feed.py), and Atom
(RFC 4287) for lists, threads, senders and searches.

Everything a sender wrote is escaped for XML, and text that becomes HTML in a reader (an item's
description, an entry's content) is escaped for HTML first, inside `<pre>`: a mail body
`<img onerror=…>` is shown, never run. Characters XML 1.0 forbids (C0 controls other than tab,
newline and carriage return; lone surrogates; U+FFFE, U+FFFF) become U+FFFD, so a parser never
stops at a mail's stray control byte (HyperKitty writes them as `&amp;#N;`, which shows the
entity's text instead of the character)."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime
from typing import Any

from sathub.archive.mail.senders import shown_sender

ATOM_NS = "http://www.w3.org/2005/Atom"
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(value: str | None) -> str:
    """`value` as XML character data or attribute value (quotes escaped). Chained replace, not
    str.translate with a table: on 25 KB of text 0.17 ms instead of 2.9 ms (measured here)."""
    value = _NOT_XML.sub("\ufffd", value or "")
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def html_pre(value: str) -> str:
    """A mail's text as the HTML a reader shows: escaped, in `<pre>` (line breaks kept)."""
    return f"<pre>{html.escape(value, quote=False)}</pre>"


def rfc822_date(value: datetime) -> str:
    """RSS dates, as Django writes them for HyperKitty: `Fri, 01 Jan 2021 10:00:00 +0000`."""
    return format_datetime(value.replace(tzinfo=UTC))


def rfc3339_date(value: datetime) -> str:
    """Four digits of year, as RFC 3339 says (strftime writes year 1 as `1`)."""
    return f"{value.year:04d}-{value:%m-%dT%H:%M:%S}Z"


@dataclass
class FeedContent:
    """One feed, whatever its form: what it is about, and its emails (store/feeds.py rows), newest first."""

    title: str
    subtitle: str  # RSS channel description; Atom subtitle (left out when empty)
    alternate: str  # the page a reader opens for the feed as a whole
    self_url: str  # this feed's own URL, as requested
    feed_id: str  # a stable id: the feed's URL without parameters
    updated: datetime  # the newest item's date, or the date the feed stands for when it is empty
    items: Sequence[Any]


# An item's links: (message page, sender's Atom feed, thread page) of a store/feeds.py row.
ItemLinks = Callable[[Any], tuple[str, str, str]]


def rss(feed: FeedContent, item_links: ItemLinks) -> str:
    """RSS 2.0 in HyperKitty's form: per item title, link, description (the text, `@` written as
    U+FF20 as HyperKitty does), author `address (name)` (address with U+FF20; the name as the
    pages show it, where HyperKitty prints a name that is an address in clear), pubDate, guid."""
    out = [
        '<?xml version="1.0" encoding="utf-8"?>\n',
        f'<rss xmlns:atom="{ATOM_NS}" version="2.0"><channel>',
        f"<title>{xml_text(feed.title)}</title>",
        f"<link>{xml_text(feed.alternate)}</link>",
        f"<description>{xml_text(feed.subtitle)}</description>",
        f'<atom:link href="{xml_text(feed.self_url)}" rel="self"></atom:link>',
        "<language>en-us</language>",
        f"<lastBuildDate>{rfc822_date(feed.updated)}</lastBuildDate>",
    ]
    for item in feed.items:
        message, _sender_feed, _thread = item_links(item)
        address = item.sender_address.replace("@", "\uff20")
        out.append(
            f"<item><title>{xml_text(item.subject)}</title>"
            f"<link>{xml_text(message)}</link>"
            f"<description>{xml_text(html_pre(item.content.replace('@', chr(0xFF20))))}</description>"
            f"<author>{xml_text(address)} ({xml_text(shown_sender(item.sender_name))})</author>"
            f"<pubDate>{rfc822_date(item.date)}</pubDate>"
            f"<guid>{xml_text(message)}</guid></item>"
        )
    out.append("</channel></rss>\n")
    return "".join(out)


def atom(feed: FeedContent, item_links: ItemLinks) -> str:
    """Atom: per entry title, the message page (alternate) and its thread (related), id (the
    message page's URL), published and updated (the Date header), author (the name as the pages
    show it, and the sender's feed), content (the text, as HTML)."""
    out = [
        '<?xml version="1.0" encoding="utf-8"?>\n',
        f'<feed xmlns="{ATOM_NS}" xml:lang="en">',
        f"<title>{xml_text(feed.title)}</title>",
        f"<subtitle>{xml_text(feed.subtitle)}</subtitle>" if feed.subtitle else "",
        f'<link href="{xml_text(feed.self_url)}" rel="self" type="application/atom+xml"/>',
        f'<link href="{xml_text(feed.alternate)}" rel="alternate" type="text/html"/>',
        f"<id>{xml_text(feed.feed_id)}</id>",
        f"<updated>{rfc3339_date(feed.updated)}</updated>",
        "<generator>sathub</generator>",
    ]
    for item in feed.items:
        message, sender_feed, thread = item_links(item)
        date = rfc3339_date(item.date)
        out.append(
            f'<entry><title type="text">{xml_text(item.subject)}</title>'
            f'<link href="{xml_text(message)}" rel="alternate" type="text/html"/>'
            f'<link href="{xml_text(thread)}" rel="related" type="text/html"/>'
            f"<id>{xml_text(message)}</id>"
            f"<published>{date}</published><updated>{date}</updated>"
            f"<author><name>{xml_text(shown_sender(item.sender_name))}</name>"
            f"<uri>{xml_text(sender_feed)}</uri></author>"
            f'<content type="html">{xml_text(html_pre(item.content))}</content></entry>'
        )
    out.append("</feed>\n")
    return "".join(out)
