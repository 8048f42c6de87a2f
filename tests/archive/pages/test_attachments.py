"""Attachment downloads (sathub.archive.pages.attachments): the stored bytes, typed; JSON errors."""

from __future__ import annotations

import pytest

from tests.archive.api_fixtures import ATTACHMENTS, DEV, FORBIDDEN, MAIL


def test_attachment_download(client, archive):
    attachment = ATTACHMENTS[0]
    path = f"/archive/list/{DEV}/message/{MAIL['E'].hash}/attachment/2/report.html"
    response = client.get(path)
    assert response.status_code == 200 and response.content == attachment["content"]
    assert response.headers["content-type"] == "text/html; charset=gb2312"
    assert response.headers["content-length"] == str(len(attachment["content"]))
    assert response.headers["content-disposition"] == "attachment; filename*=UTF-8''report.html"
    assert "content-encoding" not in response.headers
    head = client.head(path)
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-length"] == str(len(attachment["content"]))


@pytest.mark.parametrize("prefix", ["/archive/", "/archives/", "/hyperkitty/"])
def test_an_html_attachment_cannot_run_as_the_sites_page(client, archive, prefix):
    # issue 23: served as it is, an HTML attachment ran with the site's origin (its cookies, its pages).
    path = f"{prefix}list/{DEV}/message/{MAIL['E'].hash}/attachment/2/report.html"
    for response in (client.get(path), client.head(path)):
        assert response.status_code == 200
        assert response.headers["content-security-policy"] == "sandbox"
        assert response.headers["x-content-type-options"] == "nosniff"


def test_every_download_is_sandboxed_and_not_sniffed(client, archive):
    response = client.get(f"/archive/list/{DEV}/message/{MAIL['E'].hash}/attachment/3/signature.asc")
    assert response.headers["content-security-policy"] == "sandbox"
    assert response.headers["x-content-type-options"] == "nosniff"


def test_a_download_error_is_json_not_sniffed(client, archive):
    for path in (
        f"/archive/list/{DEV}/message/{MAIL['E'].hash}/attachment/9/report.html",
        f"/archive/list/private@example.org/message/{MAIL['P'].hash}/attachment/1/a.txt",
    ):
        response = client.get(path)
        assert response.status_code in (403, 404) and response.headers["content-type"] == "application/json"
        assert response.headers["x-content-type-options"] == "nosniff"


def test_attachment_without_charset_has_a_bare_content_type(client, archive):
    response = client.get(f"/hyperkitty/list/{DEV}/message/{MAIL['E'].hash}/attachment/3/signature.asc")
    assert response.headers["content-type"] == "application/pgp-signature"
    assert response.content == ATTACHMENTS[1]["content"]


@pytest.mark.parametrize(
    "tail",
    [
        "attachment/2/other.html",
        "attachment/9/report.html",
        "attachment/x/report.html",
        "attachment/99999999999999999999/report.html",  # beyond 64 bits: was a 500 on both backends
        "attachment/2147483648/report.html",  # beyond the column's 32 bits
        "attachment/" + "9" * 5000 + "/report.html",  # more digits than int() converts
        "attachment/2/report.html%00",
    ],
)
def test_attachment_download_needs_the_exact_counter_and_name(client, archive, tail):
    response = client.get(f"/archive/list/{DEV}/message/{MAIL['E'].hash}/{tail}")
    assert response.status_code == 404 and response.json() == {"detail": "Not found."}


def test_attachment_download_links_resolve(client, archive):
    for attachment in client.get(f"/archives/api/list/{DEV}/email/{MAIL['E'].hash}/").json()["attachments"]:
        assert attachment["download"].startswith("http://sathub.test/archives/list/")
        assert client.get(attachment["download"]).status_code == 200


def test_private_attachment_download_is_forbidden(client, archive):
    response = client.get(f"/archive/list/private@example.org/message/{MAIL['P'].hash}/attachment/1/a.txt")
    assert response.status_code == 403 and response.text == FORBIDDEN


@pytest.mark.parametrize(
    "path",
    [
        f"/archive/list/dev%00@example.org/message/{MAIL['E'].hash}/attachment/2/report.html",
        f"/archive/list/{DEV}/message/{MAIL['E'].hash}%00/attachment/2/report.html",
        f"/archive/list/{DEV}/message/{MAIL['E'].hash.lower()}/attachment/2/report.html",
    ],
)
def test_attachment_download_with_a_malformed_segment_is_not_found(client, archive, path):
    response = client.get(path)
    assert response.status_code == 404 and response.json() == {"detail": "Not found."}
