"""The archive's web pages (pages/browse.py) at HyperKitty's paths: list, thread and message pages,
escaped, no JavaScript, private lists 403; and the same pages in Chromium."""

from __future__ import annotations

import re

import pytest

from sathub import db
from tests.archive.api_fixtures import MAIL
from tests.archive.messages import raw_message
from tests.live_server import app_in_thread

BASE = "http://sathub.test"
DEV = "dev@example.org"


def test_the_list_page_shows_name_description_and_latest_threads(client, archive):
    answer = client.get(f"/archive/list/{DEV}/")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "text/html; charset=utf-8"
    text = answer.text
    assert "<script" not in text
    assert '<html lang="en">' in text and "<h1>" in text
    latest = text[text.index('id="latest"') : text.index('id="active"')]
    subjects = re.findall(r'<a href="[^"]*/thread/[A-Z2-7]{32}/">([^<]*)</a>', latest)
    assert subjects == ["[dev] Late", "[dev] Tie one", "[dev] Tie two", "[dev] Report", "[dev] Welcome"]
    assert f"{BASE}/archive/list/{DEV}/thread/{MAIL['A'].hash}/" in text


def test_the_message_page_shows_headers_text_attachments_and_links(client, archive):
    answer = client.get(f"/hyperkitty/list/{DEV}/message/{MAIL['B'].hash}/")
    assert answer.status_code == 200
    text = answer.text
    assert "<h1>Re: [dev] Welcome</h1>" in text
    assert "bob (a) example.net" in text and "bob@example.net" not in text.replace("mailto:", "")
    assert f"{BASE}/hyperkitty/list/{DEV}/thread/{MAIL['A'].hash}/" in text  # its thread
    assert f"{BASE}/hyperkitty/list/{DEV}/message/{MAIL['A'].hash}/" in text  # its parent
    assert f"{BASE}/hyperkitty/list/{DEV}/message/{MAIL['D'].hash}/" in text  # its reply
    assert f"{BASE}/hyperkitty/api/sender/" in text  # the sender's messages
    report = client.get(f"/archive/list/{DEV}/message/{MAIL['E'].hash}/").text
    downloads = re.findall(r'href="([^"]*/attachment/\d+/[^"]*)"', report)
    assert len(downloads) == 2
    assert client.get(downloads[0]).status_code == 200


def test_the_thread_page_lists_the_thread_in_thread_order(client, archive):
    text = client.get(f"/archives/list/{DEV}/thread/{MAIL['A'].hash}/").text
    hashes = re.findall(r'<h2 id="h-[A-Z2-7]{32}"><a href="[^"]*/message/([A-Z2-7]{32})/"', text)
    assert hashes == [MAIL[k].hash for k in "ACBD"]


def test_a_sender_named_by_their_address_is_shown_obfuscated_on_every_page(client, engine):
    """Pipermail's `x at y (Name)` leaves the address as the name (archive-api.md, Header rules 1)."""
    from sathub.archive.mail.dates import utc_now
    from sathub.archive.mailman import live_ingest
    from sathub.archive.store import lists

    raw = raw_message("pm@x", sender="benjamin at python.org (Benjamin Peterson)", subject="Pipermail sender")
    with db.connect(engine, write=True) as conn:
        lists.create_list(conn, DEV, {"created_at": utc_now()})
        email = live_ingest.store(conn, DEV, live_ingest.parse(raw))
    for path in (
        f"message/{email.message_id_hash}/",
        f"thread/{email.message_id_hash}/",
        "2001/01/",  # the month: who started each thread
        "latest",
    ):
        text = client.get(f"/archive/list/{DEV}/{path}").text
        assert "benjamin (a) python.org" in text and "benjamin@python.org" not in text, path


def test_content_is_escaped(client, engine):
    from sathub.archive.mail.dates import utc_now
    from sathub.archive.mailman import live_ingest
    from sathub.archive.store import lists

    raw = raw_message(
        "esc@example.com",
        sender="<b>Eve</b> <eve@example.com>",
        subject="<script>alert(1)</script>",
        date=None,
        body="<img src=x onerror=alert(2)> & more\n",
    )
    email = live_ingest.parse(raw)
    with db.connect(engine, write=True) as conn:
        lists.create_list(conn, DEV, {"created_at": utc_now(), "description": "<i>desc</i>"})
        live_ingest.store(conn, DEV, email)
    page = client.get(f"/archive/list/{DEV}/message/{email.message_id_hash}/").text
    assert "<script>" not in page and "<img" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(2)&gt; &amp; more" in page
    assert "&lt;i&gt;desc&lt;/i&gt;" in client.get(f"/archive/list/{DEV}/").text


def test_private_unknown_and_malformed(client, archive):
    assert client.get("/archive/list/private@example.org/").status_code == 403
    assert client.get(f"/archive/list/private@example.org/message/{MAIL['P'].hash}/").status_code == 403
    assert "private" in client.get("/archive/list/private@example.org/").text
    assert client.get("/archive/list/nobody@example.org/").status_code == 404
    assert client.get(f"/archive/list/{DEV}/message/{'A' * 32}/").status_code == 404
    assert client.get(f"/archive/list/{DEV}/message/not-a-hash/").status_code == 404
    assert client.get(f"/archive/list/{DEV}/thread/{'A' * 32}/").status_code == 404
    assert client.get("/archive/list/no-at-sign/").status_code == 404
    refused = client.post(f"/archive/list/{DEV}/")
    assert (refused.status_code, refused.headers["allow"]) == (405, "GET, HEAD")
    moved = client.get(f"/archive/list/{DEV}", follow_redirects=False)
    assert (moved.status_code, moved.headers["location"]) == (301, f"{BASE}/archive/list/{DEV}/")
    head = client.head(f"/archive/list/{DEV}/")
    assert head.status_code == 200 and head.content == b""


def test_pages_forbid_scripts(client, archive):
    answer = client.get(f"/archive/list/{DEV}/")
    assert "default-src 'none'" in answer.headers["content-security-policy"]


# -- in Chromium -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A real server (uvicorn in a thread) with an archive key; yields (base URL, engine)."""
    with app_in_thread(tmp_path_factory.mktemp("pages") / "sathub.db", archiver_key="browser-key") as server:
        yield server


ROOT = raw_message(
    "root@example.com",
    subject="[dev] Pass predictions",
    content_type="multipart/mixed; boundary=XX",
    body="--XX\nContent-Type: text/plain\n\nSee the attached <b>table</b>.\n"
    "--XX\nContent-Type: text/csv; name=passes.csv\n"
    "Content-Disposition: attachment; filename=passes.csv\n\naos,los\n1,2\n--XX--\n",
)
REPLY = raw_message(
    "reply@example.com",
    sender="Bob <bob@example.net>",
    subject="Re: [dev] Pass predictions",
    reply_to="root@example.com",
    date="Mon, 01 Jan 2001 11:00:00 +0000",
    body="Thanks!\n",
)


@pytest.mark.browser
def test_the_pages_in_chromium(served, browser, screenshots):
    import httpx

    base, _engine = served
    urls = []
    for raw in (REPLY, ROOT):  # the reply first: it joins the thread when its parent arrives
        answer = httpx.post(
            f"{base}/archive/api/mailman/archive",
            data={"mlist": DEV},
            files={"message": ("message.txt", raw)},
            headers={"Authorization": "Token browser-key"},
        )
        assert answer.status_code == 200, answer.text
        urls.append(answer.json()["url"])
    page = browser.new_context(java_script_enabled=False).new_page()
    dialogs = []
    page.on("dialog", lambda dialog: dialogs.append(dialog))

    page.goto(urls[1])  # the root's page, as Mailman's Archived-At link opens it
    assert page.get_by_role("heading", level=1).inner_text() == "[dev] Pass predictions"
    assert "See the attached <b>table</b>." in page.locator("pre").inner_text()
    assert page.get_by_role("link", name="passes.csv").count() == 1
    page.screenshot(path=str(screenshots / "archive-message-page.png"), full_page=True)

    page.get_by_role("link", name="reply 1").click()
    assert page.url == urls[0]
    assert page.get_by_role("heading", level=1).inner_text() == "Re: [dev] Pass predictions"
    page.get_by_role("navigation", name="Breadcrumb").get_by_role("link", name="Thread").click()
    assert [heading.inner_text() for heading in page.locator("article h2").all()] == [
        "[dev] Pass predictions",
        "Re: [dev] Pass predictions",
    ]
    page.get_by_role("link", name=DEV).first.click()
    assert page.url == f"{base}/archive/list/{DEV}/"
    assert (
        page.get_by_role("table", name="Latest threads").get_by_role("link", name="[dev] Pass predictions").count() == 1
    )
    page.screenshot(path=str(screenshots / "archive-list-page.png"), full_page=True)
    assert dialogs == []
    page.context.close()
