"""What every archive endpoint shares: headers, HEAD, OPTIONS, 405, trailing slashes, `?format=`,
prefixes, the pagination envelope and the error answers."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient

from sathub.app import create_app
from sathub.archive.tables import mailing_lists
from sathub.config import Settings
from tests.archive.api_fixtures import MAIL, api, email_link, mailman_id, seed_archive

DEV = "dev@example.org"
A, E = MAIL["A"].hash, MAIL["E"].hash
ALICE = mailman_id("alice@example.org")

# path → OPTIONS name and description
ENDPOINTS = {
    "lists/": ("Mailing List List", "List mailing-lists"),
    f"list/{DEV}/": ("Mailing List Detail", "Show a mailing-list"),
    f"list/{DEV}/threads/": ("Thread List", "List threads"),
    f"list/{DEV}/thread/{A}/": ("Thread Detail", "Show a thread"),
    f"list/{DEV}/thread/{A}/emails/": ("Email List", "List emails"),
    f"list/{DEV}/emails/": ("Email List", "List emails"),
    f"list/{DEV}/email/{E}/": ("Email Detail", "Show an email"),
    f"sender/{ALICE}/emails/": ("Email List By Sender", "List emails by sender"),
    "tags/": ("Tag List", "List tags"),
}
PAGINATED = ["lists/", f"list/{DEV}/threads/", f"list/{DEV}/thread/{A}/emails/", f"list/{DEV}/emails/",
             f"sender/{ALICE}/emails/"]
PREFIXES = ["/archive/api/", "/archives/api/", "/hyperkitty/api/"]


@pytest.fixture
def archive(engine):
    return seed_archive(engine)


def assert_api_headers(response, content_type="application/json"):
    assert response.headers["allow"] == "GET, HEAD, OPTIONS"
    assert response.headers["content-type"] == content_type
    assert response.headers["vary"] == "Accept"


@pytest.mark.parametrize("path", [*ENDPOINTS, ""])
@pytest.mark.parametrize("prefix", PREFIXES)
def test_every_endpoint_answers_json_under_every_prefix(client, archive, prefix, path):
    response = client.get(prefix + path)
    assert response.status_code == 200
    assert_api_headers(response)
    assert prefix in response.text or response.content == b"[]"
    for other in set(PREFIXES) - {prefix}:
        assert other not in response.text


@pytest.mark.parametrize("path", [*ENDPOINTS, f"list/{DEV}/email/NOPE/", f"list/{DEV}/thread/{A}/emails/?limit=2"])
def test_head_has_the_get_headers_and_no_body(client, archive, path):
    get, head = client.get("/archive/api/" + path), client.head("/archive/api/" + path)
    assert head.status_code == get.status_code and head.content == b""
    assert head.headers["content-length"] == str(len(get.content))
    assert {k: v for k, v in head.headers.items()} == {k: v for k, v in get.headers.items()}


@pytest.mark.parametrize("path", ENDPOINTS)
def test_options_describes_the_view(client, archive, path):
    name, description = ENDPOINTS[path]
    response = client.options("/archive/api/" + path)
    assert response.status_code == 200
    assert_api_headers(response)
    assert response.text == (
        f'{{"name":"{name}","description":"{description}","renders":["application/json","text/html"],'
        '"parses":["application/json","application/x-www-form-urlencoded","multipart/form-data"]}')


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
@pytest.mark.parametrize("path", ["lists/", f"list/{DEV}/thread/{A}/emails/", f"sender/{ALICE}/emails/"])
def test_other_methods_are_not_allowed(client, archive, method, path):
    response = client.request(method, "/archive/api/" + path)
    assert response.status_code == 405
    assert_api_headers(response)
    assert response.text == f'{{"detail":"Method \\"{method}\\" not allowed."}}'


@pytest.mark.parametrize("path", [*ENDPOINTS, ""])
def test_missing_trailing_slash_redirects_keeping_the_query(client, archive, path):
    slashless = ("/archives/api/" + path)[:-1]
    response = client.get(slashless + "?format=json&limit=2", follow_redirects=False)
    assert response.status_code == 301
    assert response.headers["location"] == f"http://sathub.test{slashless}/?format=json&limit=2"
    assert client.get(slashless, follow_redirects=False).headers["location"] == f"http://sathub.test{slashless}/"


def test_redirect_is_followed_to_the_json(client, archive):
    response = client.get("/archives/api/lists")
    assert response.status_code == 200 and response.url.path == "/archives/api/lists/"


def test_format_json_is_copied_into_every_link(client, archive):
    body = client.get(f"/archive/api/list/{DEV}/thread/{A}/emails/?format=json").json()
    links = [link for email in body for link in (email["url"], email["mailinglist"], email["thread"],
                                                  email["sender"]["emails"], email["parent"], *email["children"])
             if link]
    assert len(links) == 22 and all(link.endswith("/?format=json") for link in links)


def test_format_api_is_copied_into_every_link_of_the_page(client, archive):
    text = client.get(f"/archive/api/list/{DEV}/thread/{A}/emails/?format=api").text
    links = re.findall(r'href="(http[^"]*)"', text)
    assert len(links) == 23 and all(link.endswith("/?format=api") for link in links)  # 22 + the index


def test_format_json_answers_json(client, archive):
    response = client.get("/archive/api/lists/?format=json", headers={"Accept": "text/html"})
    assert_api_headers(response)
    assert response.json()[0]["url"] == api(f"list/{DEV}/?format=json")


def test_format_api_is_the_browsable_page_with_clickable_links(client, archive):
    response = client.get(f"/archive/api/list/{DEV}/email/{E}/?format=api")
    assert response.status_code == 200
    assert_api_headers(response, "text/html; charset=utf-8")
    assert "<title>Email Detail – Django REST framework</title>" in response.text
    link = email_link("E", "?format=api")
    assert f'<a href="{link}" rel="nofollow">{link}</a>' in response.text
    # Downloads never carry a format suffix, but are clickable too.
    assert f'<a href="http://sathub.test/archive/list/{DEV}/message/{E}/attachment/2/report.html"' in response.text
    assert "<script" not in response.text and "cdn" not in response.text.lower()


def test_browser_accept_header_gets_the_page_with_plain_links(client, archive):
    response = client.get("/archive/api/lists/", headers={
        "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"})
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert f'<a href="{api(f"list/{DEV}/")}"' in response.text


@pytest.mark.parametrize("accept", ["application/json", "*/*", "application/json, text/html;q=0.5", ""])
def test_other_accept_headers_get_json(client, archive, accept):
    assert client.get("/archive/api/lists/", headers={"Accept": accept}).headers["content-type"] == "application/json"


@pytest.mark.parametrize("path", ["lists/", f"list/{DEV}/email/{E}/", "nowhere/"])
def test_unknown_format_is_a_json_404(client, archive, path):
    response = client.get(f"/archive/api/{path}?format=xml")
    assert response.status_code == 404 and response.text == '{"detail":"Not found."}'
    assert_api_headers(response)


def test_errors_are_rendered_in_the_browsable_page_too(client, archive):
    response = client.get("/archive/api/list/private@example.org/emails/?format=api")
    assert response.status_code == 403 and "HTTP 403 Forbidden" in response.text


# Pagination ----------------------------------------------------------------------------------

@pytest.mark.parametrize("path", PAGINATED)
def test_limit_opts_in_to_the_envelope(client, archive, path):
    everything = client.get("/archive/api/" + path).json()
    page = client.get(f"/archive/api/{path}?limit=1&offset=1").json()
    assert list(page) == ["count", "next", "previous", "results"]
    assert page["count"] == len(everything) and page["results"] == everything[1:2]
    base = api(path)
    assert page["previous"] == f"{base}?limit=1"
    assert page["next"] == (f"{base}?limit=1&offset=2" if len(everything) > 2 else None)


@pytest.mark.parametrize("query", ["limit=0", "limit=-1", "limit=abc", "offset=2", "page=2", "ordering=name"])
def test_parameters_that_do_not_paginate(client, archive, query):
    assert client.get(f"/archive/api/list/{DEV}/emails/?{query}").content == \
        client.get(f"/archive/api/list/{DEV}/emails/").content


def test_envelope_links_keep_other_parameters_sorted_by_name(client, archive):
    body = client.get(f"/archive/api/list/{DEV}/emails/?offset=3&zeta=1&limit=3&format=json&alpha=x").json()
    base = api(f"list/{DEV}/emails/")
    assert body["next"] == f"{base}?alpha=x&format=json&limit=3&offset=6&zeta=1"
    assert body["previous"] == f"{base}?alpha=x&format=json&limit=3&zeta=1"
    assert body["results"][0]["url"].endswith("?format=json")


def test_offset_past_the_end(client, archive):
    body = client.get(f"/archive/api/list/{DEV}/emails/?offset=1000&limit=5").json()
    assert body == {"count": 8, "next": None, "previous": api(f"list/{DEV}/emails/?limit=5&offset=995"),
                    "results": []}


def test_first_page_has_no_previous_and_last_page_no_next(client, archive):
    first = client.get(f"/archive/api/list/{DEV}/emails/?limit=5").json()
    assert first["previous"] is None and first["next"] == api(f"list/{DEV}/emails/?limit=5&offset=5")
    last = client.get(first["next"]).json()
    assert last["next"] is None and len(last["results"]) == 3


def test_unknown_thread_and_sender_paginate_as_empty(client, archive):
    for path in [f"list/{DEV}/thread/{'B' * 32}/emails/", "sender/nobody@example.org/emails/"]:
        assert client.get(f"/archive/api/{path}?limit=2").json() == {
            "count": 0, "next": None, "previous": None, "results": []}


def test_detail_endpoints_ignore_limit(client, archive):
    assert client.get(f"/archive/api/list/{DEV}/?limit=1").content == client.get(f"/archive/api/list/{DEV}/").content


# Errors --------------------------------------------------------------------------------------

NOT_FOUND = '{"detail":"Not found."}'
FORBIDDEN = '{"detail":"You do not have permission to perform this action."}'


@pytest.mark.parametrize("path, detail", [
    ("list/nolist@example.org/", "No MailingList matches the given query."),
    ("list/nolist@example.org/threads/", "Not found."),
    ("list/nolist@example.org/emails/", "Not found."),
    (f"list/nolist@example.org/thread/{A}/", "No Thread matches the given query."),
    (f"list/nolist@example.org/thread/{A}/emails/", "Not found."),
    (f"list/nolist@example.org/email/{A}/", "No Email matches the given query."),
    (f"list/{DEV}/thread/{'B' * 32}/", "No Thread matches the given query."),
    (f"list/{DEV}/thread/{A.lower()}/", "No Thread matches the given query."),
    (f"list/{DEV}/thread/{MAIL['C'].hash}/", "No Thread matches the given query."),  # a reply, not a thread
    (f"list/other@example.org/email/{E}/", "No Email matches the given query."),  # another list's email
    (f"list/{DEV}/email/{E}/extra/", "No Email matches the given query."),
    (f"list/{DEV}/email/{E.lower()}/", "No Email matches the given query."),
    (f"list/{DEV}/email//", "No Email matches the given query."),
    (f"list/{DEV}/thread/{A.lower()}/emails/", "Not found."),  # malformed: we differ, 404
    (f"list/{DEV}/thread/SHORT/emails/", "Not found."),
    ("sender/not-an-id/emails/", "Not found."),
    (f"sender/{ALICE.upper()}/emails/", "Not found."),
    ("list/no-at-sign/", "Not found."),
    ("list/two@at@signs/emails/", "Not found."),
    ("no/such/endpoint/", "Not found."),
])
def test_not_found(client, archive, path, detail):
    response = client.get("/archive/api/" + path)
    assert response.status_code == 404 and response.text == f'{{"detail":"{detail}"}}'
    assert_api_headers(response)


@pytest.mark.parametrize("path", [
    "list/private@example.org/", "list/private@example.org/threads/", "list/private@example.org/emails/",
    f"list/private@example.org/thread/{MAIL['P'].hash}/", f"list/private@example.org/thread/{MAIL['P'].hash}/emails/",
    f"list/private@example.org/email/{MAIL['P'].hash}/", "list/PRIVATE@example.org/emails/",
])
def test_private_list_is_forbidden(client, archive, path):
    response = client.get("/archive/api/" + path)
    assert response.status_code == 403 and response.text == FORBIDDEN
    assert_api_headers(response)


def test_private_list_is_never_listed(client, archive):
    assert "private@" not in client.get("/archive/api/lists/").text
    assert "private@" not in client.get(f"/archive/api/sender/{ALICE}/emails/").text
    assert client.get(f"/archive/api/sender/{ALICE}/emails/?limit=1").json()["count"] == 4


def test_private_attachment_download_is_forbidden(client, archive):
    response = client.get(f"/archive/list/private@example.org/message/{MAIL['P'].hash}/attachment/1/a.txt")
    assert response.status_code == 403 and response.text == FORBIDDEN


def test_unknown_thread_of_a_known_list_is_an_empty_array(client, archive):
    assert client.get(f"/archive/api/list/{DEV}/thread/{'B' * 32}/emails/").content == b"[]"
    assert client.get(f"/archive/api/list/{DEV}/thread/{MAIL['X'].hash}/emails/").content != b"[]"


def test_list_address_is_matched_in_any_case_and_linked_in_lowercase(client, archive):
    response = client.get(f"/archive/api/list/DEV@Example.ORG/thread/{A}/emails/")
    assert response.status_code == 200
    assert "DEV@" not in response.text and response.json()[0]["mailinglist"] == api(f"list/{DEV}/")


# Links ---------------------------------------------------------------------------------------

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
    with TestClient(create_app(Settings(database_url=database_url), engine=engine),
                    base_url="http://archive.local:8080") as client:
        assert client.get("/archive/api/lists/").json()[0]["url"] == f"http://archive.local:8080/archive/api/list/{DEV}/"


def test_unreachable_database_is_a_json_503():
    url = "postgresql://postgres@127.0.0.1:1/nowhere"  # nothing listens on port 1: refused at once
    with TestClient(create_app(Settings(database_url=url, base_url="http://sathub.test"))) as client:
        response = client.get(f"/archive/api/list/{DEV}/emails/")
        assert response.status_code == 503
        assert response.text == '{"detail":"Service temporarily unavailable, try again later."}'
        assert_api_headers(response)
        download = client.get(f"/archive/list/{DEV}/message/{E}/attachment/2/report.html")
        assert download.status_code == 503


def test_sender_pages_on_a_site_without_private_lists(client, archive, engine):
    # Without any private list the sender's pages are counted and found on the index alone.
    with engine.begin() as conn:
        conn.execute(mailing_lists.update().values(archive_policy="public"))
    everything = client.get(f"/archive/api/sender/{ALICE}/emails/").json()
    assert len(everything) == 5 and everything[0]["message_id_hash"] == MAIL["P"].hash
    pages = [client.get(f"/archive/api/sender/{ALICE}/emails/?limit=2&offset={offset}").json()
             for offset in (0, 2, 4)]
    assert [page["count"] for page in pages] == [5, 5, 5]
    assert [email for page in pages for email in page["results"]] == everything
