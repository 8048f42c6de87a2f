"""The sitemaps through the app, on SQLite and PostgreSQL: the hand-built archive (a private list
planted), then the real corpus. Every file is checked against the protocol's schemas (sitemap.xsd
and siteindex.xsd beside this file, from sitemaps.org's published definition); what each lists
comes from the fixture's mails or the corpus's rows, never from the code under test."""

from __future__ import annotations

import collections
import random
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest
import sqlalchemy as sa
import xmlschema
from starlette.testclient import TestClient

from sathub.app import create_app
from sathub.archive.crawlers import sitemap
from sathub.archive.tables import emails, mailing_lists, threads
from sathub.config import Settings
from tests.archive.api_fixtures import BASE, MAIL, MAILS, THREADS
from tests.archive.corpus import CORPUS_GROUP

HERE = Path(__file__).parent
SITEMAP_SCHEMA = xmlschema.XMLSchema(HERE / "sitemap.xsd")
INDEX_SCHEMA = xmlschema.XMLSchema(HERE / "siteindex.xsd")
NS = {"s": sitemap.NAMESPACE}
WEB = f"{BASE}/archive/"
DEV = "dev@example.org"


def index_of(client, address: str) -> list[tuple[str, str]]:
    """(loc, lastmod) of a list's index, checked against siteindex.xsd."""
    answer = client.get(f"/archive/list/{address}/sitemap.xml")
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "application/xml; charset=utf-8"
    INDEX_SCHEMA.validate(answer.text)
    root = ElementTree.fromstring(answer.content)
    return [(item.findtext("s:loc", namespaces=NS), item.findtext("s:lastmod", namespaces=NS)) for item in root]


def urls_of(client, location: str, validate: bool = True) -> list[tuple[str, str]]:
    """(loc, lastmod) of one sitemap, checked against sitemap.xsd."""
    answer = client.get(location)
    assert answer.status_code == 200, answer.text
    if validate:
        SITEMAP_SCHEMA.validate(answer.text)
    root = ElementTree.fromstring(answer.content)
    return [(item.findtext("s:loc", namespaces=NS), item.findtext("s:lastmod", namespaces=NS)) for item in root]


def stamp(date) -> str:
    return date.strftime("%Y-%m-%dT%H:%M:%SZ")


def expected_dev() -> dict[str, set[tuple[str, str]]]:
    """Each month of dev: its message pages, and the page of each thread whose root it holds,
    with the thread's newest date (from api_fixtures' mails)."""
    months: dict[str, set[tuple[str, str]]] = {}
    for mail in MAILS:
        if mail.list_name != DEV:
            continue
        urls = months.setdefault(f"{mail.date:%Y-%m}", set())
        urls.add((f"{WEB}list/{DEV}/message/{mail.hash}/", stamp(mail.date)))
        if mail.key in THREADS:
            newest = max(MAIL[key].date for key in THREADS[mail.key])
            urls.add((f"{WEB}list/{DEV}/thread/{mail.hash}/", stamp(newest)))
    return months


def test_a_lists_index_names_a_sitemap_per_month_which_lists_its_threads_and_messages(client, archive):
    expected = expected_dev()
    index = index_of(client, DEV)
    assert [loc for loc, _ in index] == [f"{WEB}list/{DEV}/sitemap-{month}-1.xml" for month in sorted(expected)[::-1]]
    for (loc, lastmod), month in zip(index, sorted(expected)[::-1], strict=True):
        urls = urls_of(client, loc)
        assert set(urls) == expected[month] and len(urls) == len(expected[month])
        assert lastmod == max(date for url, date in urls if "/message/" in url)
        for url, _ in urls:
            assert client.get(url).status_code == 200, url


def test_a_private_list_has_no_sitemap_and_answers_as_a_list_that_does_not_exist(client, archive):
    for path in ("sitemap.xml", "sitemap-2021-05-1.xml"):
        private = client.get(f"/archive/list/private@example.org/{path}")
        unknown = client.get(f"/archive/list/nobody@example.org/{path}")
        assert private.status_code == unknown.status_code == 404
        assert private.text == unknown.text.replace("nobody@example.org", "private@example.org")
    for address in (DEV, "other@example.org"):
        for loc, _ in index_of(client, address):
            assert "private" not in client.get(loc).text


@pytest.mark.parametrize(
    "path",
    [
        "sitemap-2021-01-2.xml",  # past the end of January's one part
        "sitemap-2021-05-1.xml",  # a month without mail
        "sitemap-2021-01-0.xml",
        "sitemap-2021-1-1.xml",
        "sitemap-2021-01-01.xml",
        "sitemap-2021-13-1.xml",
        "sitemap-0000-01-1.xml",
        "sitemap-9999-12-1.xml",
        "sitemap-2021-01-99999999999999999999.xml",
        "sitemap-x.xml",
    ],
)
def test_a_sitemap_that_is_not_there_is_a_404_page(client, archive, path):
    answer = client.get(f"/archive/list/{DEV}/{path}")
    assert answer.status_code == 404
    assert answer.headers["content-type"].startswith("text/html")


def test_a_list_without_mail_and_the_other_prefixes_have_no_sitemap(client, archive):
    assert client.get("/archive/list/quiet@example.org/sitemap.xml").status_code == 404
    for web in ("/archives/", "/hyperkitty/"):
        assert client.get(f"{web}list/{DEV}/sitemap.xml").status_code == 404


def test_a_conditional_get_is_a_304_until_the_list_changes(client, archive, engine):
    paths = [f"/archive/list/{DEV}/sitemap.xml", f"/archive/list/{DEV}/sitemap-2021-01-1.xml"]
    tags = {path: client.get(path).headers["etag"] for path in paths}
    for path, tag in tags.items():
        again = client.get(path, headers={"If-None-Match": tag})
        assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == tag
        assert client.get(path, headers={"If-None-Match": '"garbage", W/'}).status_code == 200
    with engine.begin() as conn:  # a message arrives in April: January's part may list a reply's thread
        row = conn.execute(sa.select(emails).where(emails.c.message_id_hash == MAIL["H"].hash)).one()._asdict()
        row.update(id=None, message_id="late-reply@example.org", message_id_hash="L" * 32, thread_id=None)
        del row["id"]
        conn.execute(emails.insert().values(**row))
    for path, tag in tags.items():
        changed = client.get(path, headers={"If-None-Match": tag})
        assert changed.status_code == 200 and changed.headers["etag"] != tag


def test_head_answers_the_headers_of_get(client, archive):
    for path in (f"/archive/list/{DEV}/sitemap.xml", f"/archive/list/{DEV}/sitemap-2021-01-1.xml"):
        answer = client.head(path)
        assert answer.status_code == 200 and answer.content == b""
        assert answer.headers["etag"] == client.get(path).headers["etag"]
    assert client.head(f"/archive/list/{DEV}/sitemap-2021-01-2.xml").status_code == 404
    assert client.post(f"/archive/list/{DEV}/sitemap.xml").status_code == 405


def test_a_month_bigger_than_a_part_is_split_into_numbered_parts(client, archive, monkeypatch):
    monkeypatch.setattr(sitemap, "URLS_PER_SITEMAP", 4)  # 2 messages a part: January's 4 in 2 parts
    index = [loc for loc, _ in index_of(client, DEV)]
    assert index[-2:] == [f"{WEB}list/{DEV}/sitemap-2021-01-{part}.xml" for part in (1, 2)]
    parts = [urls_of(client, loc) for loc in index[-2:]]
    assert all(len(part) <= 4 for part in parts)
    assert set(parts[0]) | set(parts[1]) == expected_dev()["2021-01"]
    assert client.get(f"/archive/list/{DEV}/sitemap-2021-01-3.xml").status_code == 404


# -- the real corpus -------------------------------------------------------------------------------


@pytest.fixture
def corpus_client(corpus):
    settings = Settings(database_url=str(corpus.engine.url), base_url=BASE, secret_key="test")
    with TestClient(create_app(settings, engine=corpus.engine), base_url=BASE) as test_client:
        yield test_client


def corpus_pages(corpus, name: str) -> set[str]:
    """Every message and thread page of a list, from its rows."""
    with corpus.engine.connect() as conn:
        list_id = conn.execute(sa.select(mailing_lists.c.id).where(mailing_lists.c.name == name)).scalar_one()
        hashes = conn.scalars(sa.select(emails.c.message_id_hash).where(emails.c.list_id == list_id)).all()
        thread_ids = conn.scalars(sa.select(threads.c.thread_id).where(threads.c.list_id == list_id)).all()
    return {f"{WEB}list/{name}/message/{h}/" for h in hashes} | {f"{WEB}list/{name}/thread/{t}/" for t in thread_ids}


@CORPUS_GROUP
def test_the_corpus_sitemaps_list_every_page_once_and_each_answers(corpus, corpus_client):
    """Every public list's sitemaps together list each of its message and thread pages once. Every
    listed page of the two small lists is fetched, and a random sample of the others' (fetching all
    22,000 takes minutes a backend): each answers 200."""
    robots = corpus_client.get("/robots.txt").text
    names = re.findall(r"^Sitemap: .*/list/([^/]+)/sitemap\.xml$", robots, re.MULTILINE)
    assert sorted(names) == sorted(corpus.summaries)
    sample = random.Random(37)
    for name in names:
        listed = [url for loc, _ in index_of(corpus_client, name) for url in urls_of(corpus_client, loc, False)]
        locations = [loc for loc, _ in listed]
        assert len(locations) == len(set(locations)) and set(locations) == corpus_pages(corpus, name)
        fetched = locations if len(locations) < 200 else sample.sample(locations, 20)
        for location in fetched:
            assert corpus_client.get(location).status_code == 200, location


@CORPUS_GROUP
def test_the_corpus_busiest_month_is_valid_whole_and_split(corpus, corpus_client, monkeypatch):
    name = "gpsd-dev@lists.berlios.de"
    with corpus.engine.connect() as conn:
        dates = conn.scalars(
            sa.select(emails.c.archived_date).join(mailing_lists).where(mailing_lists.c.name == name)
        ).all()
    busiest = collections.Counter(f"{date:%Y-%m}" for date in dates).most_common(1)[0][0]
    whole = urls_of(corpus_client, f"{WEB}list/{name}/sitemap-{busiest}-1.xml")
    assert len(whole) > 500
    monkeypatch.setattr(sitemap, "URLS_PER_SITEMAP", 200)  # 100 messages a part
    month = f"{WEB}list/{name}/sitemap-{busiest}"
    parts = [loc for loc, _ in index_of(corpus_client, name) if loc.startswith(month + "-")]
    messages = sum(1 for loc, _ in whole if "/message/" in loc)
    assert parts == [f"{month}-{n}.xml" for n in range(1, -(-messages // 100) + 1)]
    split = [urls_of(corpus_client, loc) for loc in parts]
    assert all(len(part) <= 200 for part in split)
    assert [url for part in split for url in part] == whole
    assert corpus_client.get(f"{month}-{len(parts) + 1}.xml").status_code == 404
