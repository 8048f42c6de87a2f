"""What every archive endpoint shares (sathub.archive.api.endpoint, render, routes): headers, HEAD,
OPTIONS, 405, trailing slashes, `?format=` and content negotiation, prefixes, 503, one snapshot."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from sathub.app import create_app
from sathub.archive.api.endpoint import Call
from sathub.config import Settings
from tests.archive.api_fixtures import ALICE, DEV, A, E, api, assert_api_headers, email_link

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
PREFIXES = ["/archive/api/", "/archives/api/", "/hyperkitty/api/"]


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
    assert dict(head.headers.items()) == dict(get.headers.items())


@pytest.mark.parametrize("path", ENDPOINTS)
def test_options_describes_the_view(client, archive, path):
    name, description = ENDPOINTS[path]
    response = client.options("/archive/api/" + path)
    assert response.status_code == 200
    assert_api_headers(response)
    assert response.text == (
        f'{{"name":"{name}","description":"{description}","renders":["application/json","text/html"],'
        '"parses":["application/json","application/x-www-form-urlencoded","multipart/form-data"]}'
    )


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
    response = client.get(
        "/archive/api/lists/", headers={"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
    )
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


def test_unreachable_database_is_a_json_503():
    url = "postgresql://postgres@127.0.0.1:1/nowhere"  # nothing listens on port 1: refused at once
    with TestClient(create_app(Settings(database_url=url, base_url="http://sathub.test"))) as client:
        response = client.get(f"/archive/api/list/{DEV}/emails/")
        assert response.status_code == 503
        assert response.text == '{"detail":"Service temporarily unavailable, try again later."}'
        assert_api_headers(response)
        download = client.get(f"/archive/list/{DEV}/message/{E}/attachment/2/report.html")
        assert download.status_code == 503


def test_the_statements_of_one_answer_read_one_snapshot(engine):
    """On PostgreSQL each statement would otherwise see the commits made since the previous one
    (a list made private between the privacy check and the rows)."""
    with Call(request=None, links=None, engine=engine).connect() as conn:
        if engine.dialect.name == "postgresql":
            assert conn.exec_driver_sql("SHOW transaction_isolation").scalar() == "repeatable read"
        else:
            conn.exec_driver_sql("SELECT 1")
            assert conn.in_transaction()  # SQLite: one read transaction for the whole answer


@pytest.mark.parametrize(
    "path",
    [
        f"/archive/api/list/{DEV}/thread/{A}/",
        f"/archive/list/{DEV}/thread/{A}/",
        f"/archive/list/{DEV}/message/{E}/attachment/2/report.html",
    ],
)
def test_a_database_lost_under_a_statement_is_the_doors_own_503(client, archive, monkeypatch, path):
    """A connection that dies mid-query raises OperationalError, not DatabaseUnavailable: every
    archive door still answers its own 503 (JSON, or the page), never interface A's outage page."""
    import sqlalchemy as sa

    from sathub.archive.store import attachments, threads

    def lost(*_args, **_kwargs):
        raise sa.exc.OperationalError("SELECT …", {}, Exception("server closed the connection unexpectedly"))

    monkeypatch.setattr(threads, "find_thread", lost)
    monkeypatch.setattr(attachments, "find_attachment", lost)
    response = client.get(path)
    assert response.status_code == 503
    if "/api/" in path or "/attachment/" in path:
        assert response.json() == {"detail": "Service temporarily unavailable, try again later."}
    else:
        assert response.headers["content-type"] == "text/html; charset=utf-8"
        assert "The archive is unavailable; try again later." in response.text
