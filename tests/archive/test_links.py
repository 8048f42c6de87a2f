"""Absolute links (sathub.archive.links): from the configured base URL or the request, with the
request's `?format=` copied into each; the page URLs Mailman and the feeds are given."""

from __future__ import annotations

import re

from starlette.testclient import TestClient

from sathub.app import create_app
from sathub.archive.links import (
    API_PREFIXES,
    WEB_PREFIXES,
    Links,
    PageLinks,
    list_page_url,
    message_page_url,
    quote_path,
    with_query,
)
from sathub.config import Settings
from tests.archive.api_fixtures import DEV, A, E, seed_archive


def test_format_json_is_copied_into_every_link(client, archive):
    body = client.get(f"/archive/api/list/{DEV}/thread/{A}/emails/?format=json").json()
    links = [
        link
        for email in body
        for link in (
            email["url"],
            email["mailinglist"],
            email["thread"],
            email["sender"]["emails"],
            email["parent"],
            *email["children"],
        )
        if link
    ]
    assert len(links) == 22 and all(link.endswith("/?format=json") for link in links)


def test_format_api_is_copied_into_every_link_of_the_page(client, archive):
    text = client.get(f"/archive/api/list/{DEV}/thread/{A}/emails/?format=api").text
    links = re.findall(r'href="(http[^"]*)"', text)
    assert len(links) == 23 and all(link.endswith("/?format=api") for link in links)  # 22 + the index


def test_links_come_from_the_configured_base_url_with_its_prefix(engine, database_url):
    seed_archive(engine)
    settings = Settings(database_url=database_url, base_url="https://lists.example.net/status")
    with TestClient(create_app(settings, engine=engine), base_url="http://internal:8000") as client:
        body = client.get("/status/hyperkitty/api/lists/?limit=1").json()
        assert body["results"][0]["url"] == f"https://lists.example.net/status/hyperkitty/api/list/{DEV}/"
        assert body["next"] == "https://lists.example.net/status/hyperkitty/api/lists/?limit=1&offset=1"
        redirect = client.get("/status/hyperkitty/api/lists", follow_redirects=False)
        assert redirect.headers["location"] == "https://lists.example.net/status/hyperkitty/api/lists/"
        download = client.get(f"/status/hyperkitty/api/list/{DEV}/email/{E}/").json()["attachments"][0]["download"]
        assert download.startswith(f"https://lists.example.net/status/hyperkitty/list/{DEV}/message/{E}/")
        assert client.get(download.replace("https://lists.example.net", "")).status_code == 200


def test_links_fall_back_to_the_request_host(engine, database_url):
    seed_archive(engine)
    with TestClient(
        create_app(Settings(database_url=database_url), engine=engine), base_url="http://archive.local:8080"
    ) as client:
        assert (
            client.get("/archive/api/lists/").json()[0]["url"] == f"http://archive.local:8080/archive/api/list/{DEV}/"
        )


# -- the rules, without a server -----------------------------------------------------------------


def test_a_path_keeps_what_djangos_iri_to_uri_keeps_and_quotes_the_rest():
    assert quote_path("dev@example.org") == "dev@example.org"
    assert quote_path("a b/c?d#e%f") == "a%20b/c%3Fd%23e%25f"  # `?` and `#` would end the path
    assert quote_path("Grüße") == "Gr%C3%BC%C3%9Fe"
    assert quote_path("(x);y=z+$,!*'~&:") == "(x);y=z+$,!*'~&:"


def test_the_web_prefixes_sit_beside_the_api_prefixes():
    assert API_PREFIXES == ("/archive/api/", "/archives/api/", "/hyperkitty/api/")
    assert WEB_PREFIXES == ("/archive/", "/archives/", "/hyperkitty/")


def test_drf_sorts_the_query_of_a_pagination_link_by_name():
    base = "https://h/archive/api/lists/"
    assert with_query(base, [("offset", "4"), ("limit", "2"), ("format", "json")]) == (
        f"{base}?format=json&limit=2&offset=4"
    )
    assert with_query(base, []) == base


def test_the_api_links_of_one_request():
    links = Links("https://h", "/archives/api/", "api")
    assert links.thread("a b@x.org", "T") == "https://h/archives/api/list/a%20b@x.org/thread/T/?format=api"
    assert links.thread_emails("d@x.org", "T") == "https://h/archives/api/list/d@x.org/thread/T/emails/?format=api"
    assert links.sender_emails("K") == "https://h/archives/api/sender/K/emails/?format=api"
    # Downloads are pages of the web UI, beside `api/`, and never carry the format.
    assert (
        links.download("d@x.org", "H", 2, "a b.txt")
        == "https://h/archives/list/d@x.org/message/H/attachment/2/a%20b.txt"
    )
    assert links.without_format(links.lists()) == "https://h/archives/api/lists/"


def test_the_page_links_under_a_web_prefix():
    web = "https://h/archive/"
    pages = PageLinks(web, Links("https://h", "/archive/api/", None))
    assert list_page_url(web, "d@x.org") == pages.list("d@x.org") == "https://h/archive/list/d@x.org/"
    assert message_page_url(web, "d@x.org", "H") == "https://h/archive/list/d@x.org/message/H/"
    assert pages.thread("d@x.org", "T") == "https://h/archive/list/d@x.org/thread/T/"
    assert pages.month("d@x.org", 2021, 3) == "https://h/archive/list/d@x.org/2021/03/"
    assert pages.latest("d@x.org") == "https://h/archive/list/d@x.org/latest"
    assert pages.raw("d@x.org", "H") == "https://h/archive/list/d@x.org/message/H/raw"
    assert pages.export_thread("d@x.org", "T") == "https://h/archive/list/d@x.org/export/T.mbox.gz?thread=T"
    assert pages.rss("d@x.org") == "https://h/archive/list/d@x.org/feed/"
    assert pages.atom_thread("d@x.org", "T") == "https://h/archive/list/d@x.org/thread/T/feed/atom/"
    assert pages.atom_sender("M") == "https://h/archive/sender/M/feed/atom/"
