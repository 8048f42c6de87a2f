"""More of the pages to browse (pages/browse.py): the index of lists, the
overview's most active threads and months, month pages and `latest`, the whole thread with its
replies nested. Expected values come from the hand-built archive of tests/archive/api_fixtures.py
(its docstring lists the mail); every test runs on SQLite and PostgreSQL."""

from __future__ import annotations

import gzip
import re
from html.parser import HTMLParser

import httpx

from sathub import db
from sathub.archive.mail.dates import utc_now
from sathub.archive.mailman import live_ingest
from sathub.archive.store import lists
from tests.archive.api_fixtures import MAIL, message_id_hash
from tests.archive.messages import raw_message
from tests.live_server import sathub_server

BASE = "http://sathub.test"
DEV = "dev@example.org"


def thread_links(html: str) -> list[str]:
    return re.findall(r'<a href="[^"]*/thread/[A-Z2-7]{32}/">([^<]*)</a>', html)


def section(html: str, start: str, end: str | None = None) -> str:
    begin = html.index(start)
    return html[begin : html.index(end, begin) if end else None]


# -- the index of lists ----------------------------------------------------------------------------


def test_the_index_lists_public_lists_with_counts_and_last_activity(client, archive):
    answer = client.get("/archive/")
    assert answer.status_code == 200 and answer.headers["content-type"] == "text/html; charset=utf-8"
    rows = re.findall(r"<tr><td><a href=\"([^\"]*)\">([^<]*)</a>(.*?)</tr>", answer.text, re.S)
    assert [(href, name) for href, name, _rest in rows] == [
        (f"{BASE}/archive/list/{name}/", name) for name in ("dev@example.org", "other@example.org", "quiet@example.org")
    ]
    cells = {name: rest for _href, name, rest in rows}
    assert '<td class="num">8</td>' in cells[DEV]  # A, B, C, D, E, F, G, H
    assert '<time datetime="2021-04-01T00:00Z" title="2021-04-01 00:00 UTC">2021-04-01</time>' in cells[DEV]  # H
    assert '<td class="num">1</td>' in cells["other@example.org"]
    assert '<td class="num">0</td>' in cells["quiet@example.org"] and "no mail yet" in cells["quiet@example.org"]
    assert "private@example.org" not in answer.text
    for prefix in ("/archive/", "/archives/", "/hyperkitty/"):
        assert client.get(prefix).status_code == 200
    moved = client.get("/hyperkitty", follow_redirects=False)
    assert (moved.status_code, moved.headers["location"]) == (301, f"{BASE}/hyperkitty/")


def test_the_index_shows_names_and_descriptions_escaped(client, engine):
    with db.connect(engine, write=True) as conn:
        lists.create_list(
            conn, "tags@example.org", {"created_at": utc_now(), "display_name": "<b>Tags</b>", "description": "a & <i>"}
        )
    text = client.get("/archive/").text
    assert "&lt;b&gt;Tags&lt;/b&gt;" in text and "a &amp; &lt;i&gt;" in text and "<b>Tags" not in text


# -- the overview ----------------------------------------------------------------------------------


def test_the_overview_shows_most_active_threads_and_months_with_mail(client, archive):
    text = client.get(f"/archive/list/{DEV}/").text
    # The newest activity is H (2021-04-01); the 30 days before it hold only the "Late" thread (F and
    # G are dated 2021-03-01 00:00, before 2021-03-02 00:00).
    assert thread_links(section(text, 'id="active"', 'id="months"')) == ["[dev] Late"]
    months = section(text, 'id="months"', "Machine-readable")
    found = re.findall(r'<a href="([^"]*)">(\w+)</a> <span class="muted">\((\d+)\)</span>', months)
    assert found == [
        (f"{BASE}/archive/list/{DEV}/2021/04/", "April", "1"),
        (f"{BASE}/archive/list/{DEV}/2021/03/", "March", "2"),
        (f"{BASE}/archive/list/{DEV}/2021/02/", "February", "1"),
        (f"{BASE}/archive/list/{DEV}/2021/01/", "January", "4"),
    ]
    assert '<h3 id="year-2021">2021</h3>' in months
    assert f'href="{BASE}/archive/list/{DEV}/feed/"' in text  # the RSS feed, also as <link rel=alternate>
    assert (
        f'type="application/atom+xml" title="dev@example.org (Atom)" href="{BASE}/archive/list/{DEV}/feed/atom/"'
        in text
    )


def test_the_overview_of_a_list_without_mail(client, archive):
    text = client.get("/archive/list/quiet@example.org/").text
    assert "Nothing has been archived yet." in text and 'id="active"' not in text and 'id="months"' not in text


# -- months ----------------------------------------------------------------------------------------


def test_a_month_lists_the_threads_with_mail_in_it(client, archive):
    answer = client.get(f"/archive/list/{DEV}/2021/01/")
    assert answer.status_code == 200
    text = answer.text
    assert "<h1>January 2021</h1>" in text
    assert thread_links(text) == ["[dev] Welcome"]
    row = section(text, "<tbody>", "</tbody>")
    assert "Alice Liddell" in row and re.findall(r'<td class="num">(\d+)</td>', row) == ["4", "4"]
    assert f'rel="next" href="{BASE}/archive/list/{DEV}/2021/02/"' in text
    assert 'rel="prev"' not in text  # nothing older
    # Two threads with mail at the same moment: the smaller thread id first (as the list's order).
    march = client.get(f"/archive/list/{DEV}/2021/3/").text
    expected = sorted([(MAIL["F"].hash, "[dev] Tie one"), (MAIL["G"].hash, "[dev] Tie two")])
    assert thread_links(march) == [subject for _hash, subject in expected]
    assert f'rel="prev" href="{BASE}/archive/list/{DEV}/2021/02/"' in march
    assert f'rel="next" href="{BASE}/archive/list/{DEV}/2021/04/"' in march


def test_a_thread_spanning_months_is_in_each_with_its_mail_of_that_month(client, engine):
    def post(message_id: str, date: str, reply_to: str | None = None) -> None:
        raw = raw_message(message_id, subject="Long thread", date=date, reply_to=reply_to)
        with db.connect(engine, write=True) as conn:
            live_ingest.store(conn, DEV, live_ingest.parse(raw))

    with db.connect(engine, write=True) as conn:
        lists.create_list(conn, DEV, {"created_at": utc_now()})
    post("one@x", "Fri, 29 Jan 2021 10:00:00 +0000")
    post("two@x", "Mon, 01 Feb 2021 10:00:00 +0000", "one@x")
    post("three@x", "Tue, 02 Feb 2021 10:00:00 +0000", "two@x")
    january, february = (client.get(f"/archive/list/{DEV}/2021/{m}/").text for m in ("01", "02"))
    assert thread_links(january) == thread_links(february) == ["Long thread"]
    counts = [re.findall(r'<td class="num">(\d+)</td>', page) for page in (january, february)]
    assert counts == [["1", "3"], ["2", "3"]]


def test_latest_is_the_month_of_the_newest_mail(client, archive):
    answer = client.get(f"/archive/list/{DEV}/latest")
    assert answer.status_code == 200
    assert "<h1>April 2021 <span" in answer.text and thread_links(answer.text) == ["[dev] Late"]
    empty = client.get("/archive/list/quiet@example.org/latest")
    now = utc_now()
    assert empty.status_code == 200 and f"{now:%B} {now.year}" in empty.text
    assert "No mail was archived in this month." in empty.text


def test_month_errors(client, archive):
    assert client.get(f"/archive/list/{DEV}/2021/05/").status_code == 200  # a month without mail
    assert "No mail was archived" in client.get(f"/archive/list/{DEV}/2021/05/").text
    for path in ("2021/13/", "2021/0/", "0/01/", "99999/01/", "12345678901234567890/01/"):
        assert client.get(f"/archive/list/{DEV}/{path}").status_code == 404, path
    assert client.get("/archive/list/private@example.org/2021/05/").status_code == 403
    assert client.get("/archive/list/private@example.org/latest").status_code == 403
    assert client.get("/archive/list/nobody@example.org/latest").status_code == 404
    moved = client.get(f"/archive/list/{DEV}/2021/01", follow_redirects=False)
    assert (moved.status_code, moved.headers["location"]) == (301, f"{BASE}/archive/list/{DEV}/2021/01/")


def test_a_month_of_more_digits_than_int_reads_is_the_404_of_any_month_out_of_range(client, archive):
    """Python's int() refuses more than 4,300 digits (a ValueError: it was a 500 under each prefix)."""
    huge = "9" * 5000
    for prefix in ("/archive/", "/archives/", "/hyperkitty/"):
        out_of_range = client.get(f"{prefix}list/{DEV}/99999/01/")
        for path in (f"{huge}/01", f"2021/{huge}", f"{'0' * 4999}1/01"):
            answer = client.get(f"{prefix}list/{DEV}/{path}/")
            assert answer.status_code == out_of_range.status_code == 404, (prefix, path)
            assert answer.headers["content-type"] == out_of_range.headers["content-type"]
            assert answer.text.replace(path, "99999/01") == out_of_range.text, (prefix, path)
        private = client.get(f"{prefix}list/private@example.org/{huge}/01/")
        assert private.status_code == 403


# -- the thread page -------------------------------------------------------------------------------


class Depths(HTMLParser):
    """The nesting depth (open <ol> elements) of each <article>, by its id."""

    def __init__(self) -> None:
        super().__init__()
        self.open_lists, self.depths = 0, {}

    def handle_starttag(self, tag, attrs):
        if tag == "ol":
            self.open_lists += 1
        elif tag == "article":
            self.depths[dict(attrs)["id"].removeprefix("m-")] = self.open_lists

    def handle_endtag(self, tag):
        if tag == "ol":
            self.open_lists -= 1


def depths_of(html: str) -> dict[str, int]:
    parser = Depths()
    parser.feed(section(html, "<main", "</main>"))
    return parser.depths


def test_the_thread_page_nests_the_replies_and_shows_every_text(client, archive):
    text = client.get(f"/archive/list/{DEV}/thread/{MAIL['A'].hash}/").text
    # A ← B, A ← C, B ← D; thread order A, C, B, D (C is dated before B).
    assert list(depths_of(text).items()) == [
        (MAIL["A"].hash, 1),
        (MAIL["C"].hash, 2),
        (MAIL["B"].hash, 2),
        (MAIL["D"].hash, 3),
    ]
    assert "Grüße — ça va ?" in text and text.count('<pre class="body">Hello.\n</pre>') == 3
    assert "4 messages, 3 participants" in text
    thread = MAIL["A"].hash
    assert f'href="{BASE}/archive/list/{DEV}/export/{thread}.mbox.gz?thread={thread}"' in text
    for key in "ABCD":
        assert f'href="{BASE}/archive/list/{DEV}/message/{MAIL[key].hash}/raw"' in text
    assert f'href="{BASE}/archive/list/{DEV}/thread/{thread}/feed/atom/"' in text
    # The links lead somewhere (the source and export doors).
    raw = client.get(f"/archive/list/{DEV}/message/{MAIL['C'].hash}/raw")
    assert raw.status_code == 200 and raw.headers["content-type"].startswith("text/plain")
    exported = client.get(f"/archive/list/{DEV}/export/{thread}.mbox.gz?thread={thread}")
    assert exported.status_code == 200 and exported.headers["content-type"] == "application/gzip"
    assert gzip.decompress(exported.content).count(b"\nMessage-ID: <") == 4


def test_the_thread_page_links_attachments(client, archive):
    text = client.get(f"/archives/list/{DEV}/thread/{MAIL['E'].hash}/").text
    downloads = re.findall(r'href="([^"]*/attachment/\d+/[^"]*)">([^<]*)</a>', text)
    assert [name for _href, name in downloads] == ["report.html", "signature.asc"]
    assert downloads[0][0] == f"{BASE}/archives/list/{DEV}/message/{MAIL['E'].hash}/attachment/2/report.html"
    assert client.get(downloads[1][0]).content == b"-----BEGIN PGP SIGNATURE-----\n"


def test_a_deep_thread_stops_nesting_and_says_whom_a_reply_answers(client, engine):
    with db.connect(engine, write=True) as conn:
        lists.create_list(conn, DEV, {"created_at": utc_now()})
        for n in range(10):  # a chain: each message answers the one before
            raw = raw_message(
                f"chain{n}@x",
                subject=f"step {n}",
                date=f"Mon, 01 Feb 2021 10:{n:02d}:00 +0000",
                reply_to=f"chain{n - 1}@x" if n else None,
            )
            live_ingest.store(conn, DEV, live_ingest.parse(raw))
    root = message_id_hash("chain0@x")
    text = client.get(f"/archive/list/{DEV}/thread/{root}/").text
    depths = depths_of(text)
    hashes = [message_id_hash(f"chain{n}@x") for n in range(10)]
    assert list(depths) == hashes  # thread order kept
    # Nested up to 6 replies deep (7 lists), the rest beside their parent.
    assert list(depths.values()) == [1, 2, 3, 4, 5, 6, 7, 7, 7, 7]
    for n in (7, 8, 9):
        article = section(text, f'id="m-{hashes[n]}"', "</article>")
        assert f'in reply to <a href="#m-{hashes[n - 1]}">' in article


def test_thread_and_month_pages_escape_what_senders_wrote(client, engine):
    raw = raw_message(
        "esc@example.com",
        sender="<b>Eve</b> <eve@example.com>",
        subject="<script>alert(1)</script>",
        date="Mon, 01 Feb 2021 10:00:00 +0000",
        body="<img src=x onerror=alert(2)> & more\n",
    )
    with db.connect(engine, write=True) as conn:
        lists.create_list(conn, DEV, {"created_at": utc_now()})
        live_ingest.store(conn, DEV, live_ingest.parse(raw))
    thread = client.get(f"/archive/list/{DEV}/thread/{message_id_hash('esc@example.com')}/").text
    month = client.get(f"/archive/list/{DEV}/2021/02/").text
    for page in (thread, month):
        assert "<script>" not in page and "<img" not in page and "<b>Eve" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(2)&gt; &amp; more" in thread


def test_new_pages_refuse_other_methods_and_answer_head(client, archive):
    for path in ("/archive/", f"/archive/list/{DEV}/2021/01/", f"/archive/list/{DEV}/latest"):
        refused = client.post(path)
        assert (refused.status_code, refused.headers["allow"]) == (405, "GET, HEAD"), path
        head = client.head(path)
        assert head.status_code == 200 and head.content == b"", path
        assert "default-src 'none'" in client.get(path).headers["content-security-policy"]


# -- over HTTP, on each backend --------------------------------------------------------------------


def test_the_pages_over_http(archive, database_url):
    """`sathub serve` on this backend's database, the pages and a feed fetched as a browser would."""
    with sathub_server(database_url) as root, httpx.Client(base_url=root) as http:
        index = http.get("/archive/")
        assert index.status_code == 200 and f"{root}/archive/list/{DEV}/" in index.text
        assert thread_links(http.get(f"/archive/list/{DEV}/latest").text) == ["[dev] Late"]
        thread = http.get(f"/hyperkitty/list/{DEV}/thread/{MAIL['A'].hash}/")
        assert list(depths_of(thread.text).values()) == [1, 2, 2, 3]
        assert http.get("/archive/list/private@example.org/2021/05/").status_code == 403
        feed = http.get(f"/archive/list/{DEV}/feed/")
        assert feed.status_code == 200 and feed.headers["content-type"] == "application/rss+xml; charset=utf-8"
        again = http.get(f"/archive/list/{DEV}/feed/", headers={"If-None-Match": feed.headers["etag"]})
        assert again.status_code == 304
