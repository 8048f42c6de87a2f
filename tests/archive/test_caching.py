"""The archive's conditional GETs and Cache-Control (archive/caching.py), through every door a
reader or a crawler fetches: a strong ETag, Last-Modified and the Cache-Control of the answer's
kind on each; a 304 after one read of a revision; new mail, a list's new settings and garbage
validators; a private list's answers never kept. The expected headers are the issue's rules
(docs/archive-caching.md), written out here, not taken from the code."""

from __future__ import annotations

from dataclasses import replace
from email.utils import format_datetime, parsedate_to_datetime

import pytest
from starlette.testclient import TestClient

from sathub import db
from sathub.app import create_app
from sathub.archive.mailman import live_ingest
from sathub.archive.pages import browse
from sathub.archive.store import lists
from tests.archive.api_fixtures import ALICE, DEV, MAIL, count_statements
from tests.archive.messages import raw_message

# Distinct ages, so that each kind's header tells which rule chose it.
MESSAGE = "public, max-age=1000, must-revalidate"
LISTING = "public, max-age=20, stale-while-revalidate=30"
SEARCH = "public, max-age=40"
A, X = MAIL["A"], MAIL["X"]
WEB, API = "/archive/", "/archive/api/"

DOORS = {
    # pages
    WEB: LISTING,
    f"{WEB}list/{DEV}/": LISTING,
    f"{WEB}list/{DEV}/2021/1/": LISTING,
    f"{WEB}list/{DEV}/latest": LISTING,
    f"{WEB}list/{DEV}/thread/{A.hash}/": LISTING,
    f"{WEB}list/{DEV}/message/{A.hash}/": MESSAGE,
    f"/hyperkitty/list/{DEV}/message/{A.hash}/": MESSAGE,
    # raw sources
    f"{WEB}list/{DEV}/message/{A.hash}/raw": MESSAGE,
    f"{WEB}list/{DEV}/message/{A.hash}/raw?download=1": MESSAGE,
    # feeds
    f"{WEB}list/{DEV}/feed/": LISTING,
    f"{WEB}list/{DEV}/thread/{A.hash}/feed/atom/": LISTING,
    f"{WEB}sender/{ALICE}/feed/atom/": LISTING,
    f"{WEB}search/feed/atom/?q=welcome": SEARCH,
    # the read API
    f"{API}lists/": LISTING,
    f"{API}list/{DEV}/threads/?limit=2": LISTING,
    f"{API}list/{DEV}/email/{A.hash}/": LISTING,
    f"{API}sender/{ALICE}/emails/": LISTING,
    f"{API}search/?q=welcome": SEARCH,
    # exports
    f"{WEB}list/{DEV}/export/dev.mbox.gz": LISTING,
    f"{WEB}list/{DEV}/export/one.mbox.gz?message={A.hash}": MESSAGE,
    f"{WEB}search/export/found.mbox.gz?q=welcome": SEARCH,
    # search
    f"{WEB}search?q=welcome": SEARCH,
}


@pytest.fixture
def cached(engine, settings):
    ages = replace(
        settings,
        archive_max_age_message=1000,
        archive_max_age_listing=20,
        archive_stale_while_revalidate=30,
        archive_max_age_search=40,
    )
    with TestClient(create_app(ages, engine=engine), base_url="http://sathub.test") as test_client:
        yield test_client


@pytest.mark.parametrize("path", DOORS)
def test_every_door_has_validators_and_answers_304(cached, archive, path):
    first = cached.get(path)
    assert first.status_code == 200, first.text
    etag = first.headers["etag"]
    assert etag.startswith('"') and etag.endswith('"')  # strong: no W/
    assert first.headers["cache-control"] == DOORS[path]
    assert parsedate_to_datetime(first.headers["last-modified"])
    for validator in ({"If-None-Match": etag}, {"If-Modified-Since": first.headers["last-modified"]}):
        again = cached.get(path, headers=validator)
        assert again.status_code == 304 and again.content == b"", (path, validator)
        # A cache refreshes its copy from the 304's headers (RFC 9111 4.3.4).
        assert again.headers["etag"] == etag and again.headers["cache-control"] == DOORS[path]
    assert cached.head(path, headers={"If-None-Match": etag}).status_code == 304
    # Another query string is another answer.
    other = path + ("&" if "?" in path else "?") + "x=1"
    assert cached.get(other, headers={"If-None-Match": etag}).status_code == 200


def test_a_304_reads_one_revision_and_renders_nothing(client, engine, archive, monkeypatch):
    for path in (f"{WEB}list/{DEV}/message/{A.hash}/", f"{WEB}list/{DEV}/thread/{A.hash}/"):
        etag = client.get(path).headers["etag"]
        monkeypatch.setattr(browse, "render_page", lambda *args, **kwargs: pytest.fail("rendered"))
        statements, detach = count_statements(engine)
        try:
            assert client.get(path, headers={"If-None-Match": etag}).status_code == 304
        finally:
            detach()
        monkeypatch.undo()
        assert len(statements) == 1 and "mailing_lists" in statements[0], statements


def test_mail_arriving_changes_what_it_changes_at_once(client, engine, archive):
    dev = [
        f"{WEB}list/{DEV}/",
        f"{WEB}list/{DEV}/thread/{A.hash}/",
        f"{WEB}list/{DEV}/message/{A.hash}/",
        f"{API}list/{DEV}/threads/",
        f"{WEB}search?q=welcome",
        WEB,
    ]
    other = f"{WEB}list/{X.list_name}/message/{X.hash}/"
    before = {path: client.get(path).headers["etag"] for path in [*dev, other]}
    reply = raw_message(
        "late@example.org", headers=(f"In-Reply-To: <{A.message_id}>",), subject="Re: Welcome", body="A late reply\n"
    )
    with db.connect(engine, write=True) as conn:
        live_ingest.store(conn, DEV, live_ingest.parse(reply))
    for path in dev:
        after = client.get(path, headers={"If-None-Match": before[path]})
        assert after.status_code == 200 and after.headers["etag"] != before[path], path
    assert "A late reply" in client.get(f"{WEB}list/{DEV}/thread/{A.hash}/").text
    # Another list's answers are untouched.
    assert client.get(other, headers={"If-None-Match": before[other]}).status_code == 304


def test_a_lists_settings_change_its_etags_only_when_they_change(client, engine, archive):
    path = f"{WEB}list/{DEV}/"
    etag = client.get(path).headers["etag"]
    with db.connect(engine, write=True) as conn:
        found = lists.find_list(conn, DEV)
        lists.update_list(conn, found.id, {"display_name": found.display_name, "description": found.description})
    assert client.get(path, headers={"If-None-Match": etag}).status_code == 304
    with db.connect(engine, write=True) as conn:
        lists.update_list(conn, found.id, {"display_name": "Developers"})
    renamed = client.get(path, headers={"If-None-Match": etag})
    assert renamed.status_code == 200 and "Developers" in renamed.text


@pytest.mark.parametrize(
    "headers",
    [
        {"If-None-Match": "garbage"},
        {"If-None-Match": '"'},
        {"If-None-Match": " , ,"},
        {"If-None-Match": "W/"},
        {"If-Modified-Since": "yesterday"},
        {"If-Modified-Since": "Mon, 99 Foo 2020 99:99:99 GMT"},
        {"If-Modified-Since": ""},
        {"If-None-Match": "\x7f", "If-Modified-Since": "\x01"},
    ],
)
def test_garbage_validators_get_a_normal_200(client, archive, headers):
    path = f"{WEB}list/{DEV}/message/{A.hash}/"
    plain = client.get(path)
    answer = client.get(path, headers=headers)
    assert answer.status_code == 200 and answer.content == plain.content


def test_if_modified_since_decides_without_if_none_match(client, archive):
    path = f"{WEB}list/{DEV}/thread/{A.hash}/"
    changed = parsedate_to_datetime(client.get(path).headers["last-modified"])
    earlier = format_datetime(changed.replace(year=changed.year - 1), usegmt=True)
    assert client.get(path, headers={"If-Modified-Since": earlier}).status_code == 200
    # If-None-Match, when sent, decides alone (RFC 9110 13.2.2).
    both = {"If-None-Match": '"other"', "If-Modified-Since": format_datetime(changed, usegmt=True)}
    assert client.get(path, headers=both).status_code == 200


def test_the_apis_page_and_json_are_two_answers(client, archive):
    path = f"{API}list/{DEV}/email/{A.hash}/"
    json_tag = client.get(path).headers["etag"]
    page = client.get(path, headers={"Accept": "text/html"})
    assert page.headers["content-type"].startswith("text/html") and page.headers["etag"] != json_tag
    assert client.get(path, headers={"Accept": "text/html", "If-None-Match": json_tag}).status_code == 200
    same = client.get(path, headers={"If-None-Match": json_tag})
    assert same.status_code == 304 and same.headers["vary"] == "Accept"


@pytest.mark.parametrize(
    "path",
    [
        f"{WEB}list/private@example.org/",
        f"{WEB}list/private@example.org/message/{MAIL['P'].hash}/",
        f"{WEB}list/private@example.org/message/{MAIL['P'].hash}/raw",
        f"{WEB}list/private@example.org/feed/",
        f"{WEB}list/private@example.org/export/p.mbox.gz",
        f"{API}list/private@example.org/emails/",
        f"{API}search/?q=secret&mlist=private@example.org",
        f"{WEB}search?q=secret&mlist=private@example.org",
    ],
)
def test_a_private_lists_answers_are_never_kept(client, archive, path):
    answer = client.get(path, headers={"If-None-Match": "*"})
    assert answer.status_code == 403
    assert answer.headers["cache-control"] == "private, no-store"
    assert "etag" not in answer.headers
