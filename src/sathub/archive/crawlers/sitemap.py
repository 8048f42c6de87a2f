"""The bytes of the sitemaps (sitemaps.org's protocol 0.9), pure: a list's index of its month
sitemaps, and a month's thread and message pages.

    <web>list/<address>/sitemap.xml                   the index: a sitemap per month and part
    <web>list/<address>/sitemap-<yyyy>-<mm>-<n>.xml   part n of a month: its message pages, and the
                                                      page of each thread one of them starts

Only the first web prefix (`/archive/`) has them: the same page under `/archives/` and
`/hyperkitty/` is one page, and a search engine is given one address for it. Each file stays in the
protocol's limits: a part holds at most URLS_PER_SITEMAP addresses and BYTES_PER_SITEMAP bytes
(a message gives two at most, its page and the thread it starts, and every entry of a list has
the same length, so a part's size is known before it is read), an index at most
SITEMAPS_PER_INDEX sitemaps, the newest months first."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from xml.sax.saxutils import escape

from sathub.archive.links import list_page_url, message_page_url, thread_page_url
from sathub.db.engines import Row

# sitemaps.org: "no more than 50,000 URLs and must be no larger than 50MB (52,428,800 bytes)" a
# file, uncompressed; "no more than 50,000 Sitemaps" an index.
URLS_PER_SITEMAP = 50_000
BYTES_PER_SITEMAP = 52_428_800
SITEMAPS_PER_INDEX = 50_000
NAMESPACE = "http://www.sitemaps.org/schemas/sitemap/0.9"
URLSET_HEAD = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NAMESPACE}">\n'
URLSET_TAIL = "</urlset>\n"
INDEX_HEAD = f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{NAMESPACE}">\n'
INDEX_TAIL = "</sitemapindex>\n"
CONTENT_TYPE = "application/xml; charset=utf-8"
# A part's name after `sitemap-`, as the index writes it: 4 digits, 2, and a number from 1.
PART_NAME = re.compile(r"([0-9]{4})-([0-9]{2})-([1-9][0-9]{0,8})")
_SAMPLE_HASH, _SAMPLE_DATE = "A" * 32, datetime(2000, 1, 1)


def w3c_date(value: datetime) -> str:
    """A naive UTC datetime as the protocol's W3C Datetime, to the second."""
    return f"{value.year:04d}-{value:%m-%dT%H:%M:%S}Z"


def url_entry(loc: str, lastmod: datetime) -> str:
    return f"<url><loc>{escape(loc)}</loc><lastmod>{w3c_date(lastmod)}</lastmod></url>\n"


def sitemap_entry(loc: str, lastmod: datetime) -> str:
    return f"<sitemap><loc>{escape(loc)}</loc><lastmod>{w3c_date(lastmod)}</lastmod></sitemap>\n"


def index_url(web: str, address: str) -> str:
    """`web`: the site URL with the web prefix (`https://host/archive/`)."""
    return f"{list_page_url(web, address)}sitemap.xml"


def part_url(web: str, address: str, year: int, month: int, part: int) -> str:
    return f"{list_page_url(web, address)}sitemap-{year:04d}-{month:02d}-{part}.xml"


def emails_per_part(web: str, address: str) -> int:
    """The messages one part of a list's month holds: two entries each at most, every entry of the
    list no longer than its longest (the hashes and dates have fixed lengths)."""
    longest = max(
        len(url_entry(page(web, address, _SAMPLE_HASH), _SAMPLE_DATE).encode())
        for page in (message_page_url, thread_page_url)
    )
    room = BYTES_PER_SITEMAP - len(URLSET_HEAD) - len(URLSET_TAIL)
    return max(1, min(URLS_PER_SITEMAP // 2, room // (2 * longest)))


def index_entries(web: str, address: str, months: Iterable[tuple[int, int, int, datetime]]) -> Iterator[str]:
    """The index's entries for `months` (year, month, emails, newest: newest first), each month's
    parts by number, SITEMAPS_PER_INDEX at most; each part's lastmod is its month's newest mail."""
    per_part, written = emails_per_part(web, address), 0
    for year, month, count, newest in months:
        for part in range(1, -(-count // per_part) + 1):
            if written == SITEMAPS_PER_INDEX:
                return
            written += 1
            yield sitemap_entry(part_url(web, address, year, month, part), newest)


def month_urls(web: str, address: str, rows: Sequence[Row]) -> str:
    """The entries of a chunk of store/sitemap.py's month_entries: each message's page (lastmod:
    its archived date), then the page of the thread it starts (lastmod: the thread's newest)."""
    entries = []
    for row in rows:
        entries.append(url_entry(message_page_url(web, address, row.message_id_hash), row.archived_date))
        if row.started_thread is not None:
            entries.append(url_entry(thread_page_url(web, address, row.started_thread), row.thread_newest))
    return "".join(entries)


def etag(*values: object) -> str:
    """A strong ETag of what decides a sitemap's bytes."""
    return '"' + hashlib.sha256(repr(values).encode()).hexdigest()[:32] + '"'


def limits() -> tuple[int, int, int]:
    """The limits in force, part of every ETag: a part's bounds move with them."""
    return URLS_PER_SITEMAP, BYTES_PER_SITEMAP, SITEMAPS_PER_INDEX
