"""Old Mailman 2 links: the list and month redirects of HyperKitty, the month's .txt.gz, and the
message pages numbered as pipermail numbered them (from 0, in the order of the list's mbox)."""

from __future__ import annotations

import pytest

from sathub.archive.store import lists
from sathub.archive.tables import PRIVATE
from tests.archive.source_fixtures import HASHES, LIST, import_fixture

BASE = "http://sathub.test"
PIPERMAIL = "/archive/pipermail/dev"
LIST_PAGE = f"{BASE}/archive/list/{LIST}/"


def get(client, url):
    return client.get(url, follow_redirects=False)


@pytest.mark.parametrize(
    "path, location",
    [
        ("/", LIST_PAGE),
        ("", LIST_PAGE),
        ("/2020-January/", LIST_PAGE + "2020/01/"),
        ("/2020-January", LIST_PAGE + "2020/01/"),
        ("/2020-february/thread.html", LIST_PAGE + "2020/02/"),
        ("/2019-December/date.html", LIST_PAGE + "2019/12/"),
        (
            "/2020-January.txt.gz",
            f"{BASE}/archive/list/{LIST}/export/2020-January.mbox.gz?start=2020-01-01&end=2020-02-01",
        ),
        (
            "/2019-December.txt.gz",
            f"{BASE}/archive/list/{LIST}/export/2019-December.mbox.gz?start=2019-12-01&end=2020-01-01",
        ),
    ],
)
def test_list_and_month_links_redirect_like_hyperkitty(client, engine, tmp_path, path, location):
    import_fixture(engine, tmp_path)
    response = get(client, PIPERMAIL + path)
    assert (response.status_code, response.headers["location"]) == (302, location)


def test_message_numbers_from_a_complete_archive(client, engine, tmp_path):
    import_fixture(engine, tmp_path, pipermail_numbers=True)
    for number, message_id_hash in enumerate(HASHES):  # pipermail's first message is 000000.html
        response = get(client, f"{PIPERMAIL}/2020-January/{number:06d}.html")
        assert response.status_code == 301
        assert response.headers["location"] == f"{LIST_PAGE}message/{message_id_hash}/"
    # The month in the link does not matter: the number is the list's, across months.
    assert get(client, f"{PIPERMAIL}/2004-August/000002.html").headers["location"].endswith(f"/{HASHES[2]}/")
    assert get(client, f"{PIPERMAIL}/2020-January/2.html").status_code == 301


def test_an_unknown_number_is_a_404_page_with_the_month(client, engine, tmp_path):
    import_fixture(engine, tmp_path)  # without --pipermail-numbers: no number is known
    response = get(client, f"{PIPERMAIL}/2020-February/000001.html")
    assert response.status_code == 404
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert f'href="{LIST_PAGE}2020/02/"' in response.text and "February 2020" in response.text
    import_fixture(engine, tmp_path, pipermail_numbers=True)  # a re-run records them
    assert get(client, f"{PIPERMAIL}/2020-February/000001.html").status_code == 301
    assert get(client, f"{PIPERMAIL}/2020-February/000003.html").status_code == 404


@pytest.mark.parametrize(
    "path",
    [
        "/2020-Janvier/",
        "/2020-January/00x1.html",
        "/2020-January/99999999999.html",
        "/20-January/",
        "/2020-January/A.html",
    ],
)
def test_what_is_no_pipermail_page_is_404(client, engine, tmp_path, path):
    import_fixture(engine, tmp_path)
    response = get(client, PIPERMAIL + path)
    assert response.status_code == 404 and response.headers["content-type"] == "text/html; charset=utf-8"


def test_unknown_and_private_lists(client, engine, tmp_path):
    import_fixture(engine, tmp_path)
    assert get(client, "/archive/pipermail/nobody/").status_code == 404
    assert get(client, "/archive/pipermail/dev@lists.example.org/").status_code == 404  # a name, not an address
    with engine.begin() as conn:
        lists.update_list(conn, lists.find_list(conn, LIST).id, {"archive_policy": PRIVATE})
    for path in ("/", "/2020-January/", "/2020-January/000000.html", "/2020-January.txt.gz"):
        response = get(client, PIPERMAIL + path)
        assert response.status_code == 404 and "location" not in response.headers


PIPERMAIL_PATHS = (
    "/",
    "",
    "/2020-January/",
    "/2020-January/thread.html",
    "/2020-January/000000.html",
    "/2020-January.txt.gz",
)


@pytest.mark.parametrize("host", [None, "lists.example.org", "aaa.example", "www.aaa.example"])
def test_a_private_list_never_shadows_a_public_list_of_its_name(client, engine, tmp_path, host):
    """`dev@aaa.example` sorts before `dev@lists.example.org` and may be the request's host: the
    public list's links still lead to the public list."""
    import_fixture(engine, tmp_path, pipermail_numbers=True)
    import_fixture(engine, tmp_path, name="dev@aaa.example", private=True, pipermail_numbers=True)
    headers = {"host": host} if host else {}
    for path in PIPERMAIL_PATHS:
        response = client.get(PIPERMAIL + path, headers=headers, follow_redirects=False)
        assert response.status_code in (301, 302), (path, response.text)
        assert "/list/dev@lists.example.org/" in response.headers["location"], path
        assert "aaa.example" not in response.text, path


@pytest.mark.parametrize("path", PIPERMAIL_PATHS)
def test_a_private_list_answers_as_a_list_that_does_not_exist(client, engine, tmp_path, path):
    """Nothing tells a guessed local part of a private list from one no list has: not its address."""
    import_fixture(engine, tmp_path, name="secret-ops@lists.example.org", private=True, pipermail_numbers=True)
    private = get(client, "/archive/pipermail/secret-ops" + path)
    absent = get(client, "/archive/pipermail/hidden-ops" + path)
    assert private.status_code == absent.status_code == 404
    assert private.headers == absent.headers
    assert private.content.replace(b"secret-ops", b"hidden-ops") == absent.content
    assert b"lists.example.org" not in private.content


def test_two_lists_of_one_name_the_requests_host_decides(client, engine, tmp_path):
    import_fixture(engine, tmp_path)
    import_fixture(engine, tmp_path, name="dev@other.example")
    assert get(client, f"{PIPERMAIL}/").headers["location"] == f"{BASE}/archive/list/dev@lists.example.org/"
    other = client.get(f"{PIPERMAIL}/", headers={"host": "www.other.example"}, follow_redirects=False)
    assert other.headers["location"] == f"{BASE}/archive/list/dev@other.example/"  # links: the base URL
