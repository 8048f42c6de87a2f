"""public-inbox's forms through the app, on the corpus (both backends): the status codes, content
types, redirects and bytes public-inbox-httpd 1.9 answered for the same requests on the same
mail (bench/peers.py's setup; observed/), and the doors' rules on the hand-built archive: private
lists never seen, a cross-posted message found on its first list, renamed inboxes."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from sathub.app import create_app
from sathub.config import Settings
from tests.archive.api_fixtures import BASE, seed_archive
from tests.archive.corpus import CORPUS_GROUP

OBSERVED = Path(__file__).parent / "observed"
MID = "4FFC1228.3060409@redhat.com"  # edge@example.com: a thread of three
GONE = "nope@x"
# path -> (status, content type, Location) as public-inbox-httpd 1.9 answered it (its host and
# prefix taken out of Location: `/pi/` here).
PUBLIC_INBOX_ANSWERS = {
    "edge": (301, None, "/pi/edge/"),
    "edge/": (200, "text/html", None),
    "edge/new.atom": (200, "application/atom+xml", None),
    f"edge/{MID}": (301, None, f"/pi/edge/{MID}/"),
    f"edge/{MID}/": (200, "text/html", None),
    f"edge/{MID}/raw": (200, "text/plain; charset=us-ascii", None),
    f"edge/{MID}/t.mbox.gz": (200, "application/gzip", None),
    f"edge/{MID}/T/": (200, "text/html", None),
    f"edge/{MID}/t/": (200, "text/html", None),
    f"edge/{MID}/T": (301, None, f"/pi/edge/{MID}/T/#u"),
    f"edge/{MID}/t.atom": (200, "application/atom+xml", None),
    f"edge/{GONE}/": (300, "text/html", None),
    f"edge/{GONE}/raw": (404, "text/plain", None),
    f"edge/{GONE}/t.mbox.gz": (404, "text/plain", None),
    f"edge/{MID}/raw/": (404, "text/plain", None),  # public-inbox answers 300 (docs/public-inbox.md)
    MID: (302, None, f"/pi/edge/{MID}/"),
    GONE: (404, "text/plain", None),
    f"all/{MID}": (301, None, f"/pi/all/{MID}/"),
    f"all/{MID}/": (200, "text/html", None),
    f"all/{MID}/raw": (200, "text/plain; charset=us-ascii", None),
    f"all/{GONE}/": (300, "text/html", None),
    "all/": (200, "text/html", None),
    # lore's rewrite, which public-inbox itself does not have (its answer: 404)
    f"r/{MID}": (302, None, f"/pi/edge/{MID}/"),
}


@pytest.fixture
def corpus_client(corpus):
    settings = Settings(database_url=str(corpus.engine.url), base_url=BASE, export_budget=0)
    with TestClient(create_app(settings, engine=corpus.engine), base_url=BASE) as client:
        yield client


@pytest.fixture
def client_on(engine):
    with TestClient(create_app(Settings(base_url=BASE, export_budget=0), engine=engine), base_url=BASE) as client:
        yield client


@CORPUS_GROUP
def test_answers_are_public_inboxs(corpus_client):
    for path, (status, content_type, location) in PUBLIC_INBOX_ANSWERS.items():
        response = corpus_client.get("/pi/" + path, follow_redirects=False)
        assert response.status_code == status, path
        if content_type:
            assert response.headers["content-type"].lower().startswith(content_type.lower()), path
        assert response.headers.get("location") == (BASE + location if location else None), path
    assert corpus_client.get(f"/pi/edge/{GONE}/raw").content == b"Not Found"  # public-inbox's nine bytes


@CORPUS_GROUP
def test_raw_and_thread_mbox_are_public_inboxs_bytes(corpus_client):
    raw = corpus_client.get("/pi/python-committers/i60e72$udg$2@dough.gmane.org/raw")
    assert raw.content == (OBSERVED / "python-committers-from-quoted.raw").read_bytes()
    assert corpus_client.get("/pi/edge/msg1/raw").content == (OBSERVED / "edge-delivered-to.raw").read_bytes()
    thread = corpus_client.get(f"/pi/all/{MID.replace('@', '%40')}/t.mbox.gz")
    assert thread.headers["content-disposition"] == "inline; filename=Fedora-packaging-RPM-macros.mbox.gz"
    assert gzip.decompress(thread.content) == (OBSERVED / "edge-4FFC1228-thread.mbox").read_bytes()


@CORPUS_GROUP
def test_pages_hold_what_public_inboxs_show(corpus_client):
    page = corpus_client.get(f"/pi/edge/{MID}/").text
    for shown in ("Subject: [Fedora-packaging] RPM macros", "Date: Tue, 10 Jul 2012 13:29:44 +0200", f"&lt;{MID}&gt;"):
        assert shown in page
    assert 'href="raw"' in page and 'href="t.mbox.gz"' in page and "3 messages" in page
    assert f'href="{BASE}/pi/edge/4FFC1C09.6030907@redhat.com/"' in page  # a reply, by its Message-ID
    flat = corpus_client.get(f"/pi/edge/{MID}/T/").text
    assert flat.count("<hr><pre>From:") == 3 and "I noticed that in revised haskell guidelines" in flat
    index = corpus_client.get("/pi/edge/").text
    assert f'href="{BASE}/pi/edge/{MID}/T/#u"' in index
    inboxes = corpus_client.get("/pi/").text
    for name in ("edge", "gpsd-dev", "gpsd-users", "python-committers", "3gpp_tsg_sa_wg4_evs"):
        assert f'href="{BASE}/pi/{name}/"' in inboxes


@CORPUS_GROUP
def test_topics_are_paged(corpus_client):
    first = corpus_client.get("/pi/python-committers/").text
    second = corpus_client.get("/pi/python-committers/?o=200").text
    assert first.count("/T/#u") == 200 and 'href="?o=200"' in first
    assert second.count("/T/#u") == 200 and 'href="?o=0"' in second
    assert not set(first.split("/T/#u")[:-1]) & set(second.split("/T/#u")[:-1])


def test_private_lists_are_never_seen(client_on, engine):
    seed_archive(engine)
    assert "private" not in client_on.get("/pi/").text
    for path in ("private/", "private@example.org/", "private/p-msg@example.org/raw", "r/p-msg@example.org"):
        assert client_on.get("/pi/" + path, follow_redirects=False).status_code == 404, path
    assert client_on.get("/pi/p-msg@example.org", follow_redirects=False).status_code == 404
    assert client_on.get("/pi/all/p-msg@example.org/").status_code == 300
    assert client_on.get("/pi/all/p-msg@example.org/t.mbox.gz").status_code == 404


def test_a_cross_posted_message_is_found_on_its_first_list(client_on, engine):
    seed_archive(engine)
    found = client_on.get("/pi/r/a-msg@example.org", follow_redirects=False)
    assert found.status_code == 302 and found.headers["location"] == f"{BASE}/pi/dev/a-msg@example.org/"
    # its thread (A, C, B, D) in arrival order, rebuilt from the stored fields (no source was kept)
    mbox = gzip.decompress(client_on.get("/pi/other/a-msg@example.org/t.mbox.gz").content)
    assert mbox.count(b"From mboxrd@z") == 1  # on other@, the message alone
    mbox = gzip.decompress(client_on.get("/pi/all/a-msg@example.org/t.mbox.gz").content)
    ids = [line.split(b"<")[1].split(b">")[0] for line in mbox.splitlines() if line.lower().startswith(b"message-id:")]
    assert ids == [b"a-msg@example.org", b"b-msg@example.org", b"c-msg@example.org", b"d-msg@example.org"]


def test_renamed_inbox_and_quote_plus(engine):
    seed_archive(engine)
    settings = Settings(base_url=BASE, public_inbox_names="dev@example.org=kernel")
    with TestClient(create_app(settings, engine=engine), base_url=BASE) as client:
        assert client.get("/pi/kernel/a-msg%40example.org/raw").status_code == 200
        assert client.get("/pi/dev/a-msg@example.org/raw").status_code == 404
        redirect = client.get("/pi/all/a-msg%40example.org", follow_redirects=False)
        assert redirect.headers["location"] == f"{BASE}/pi/all/a-msg%40example.org/"
        raw = client.get("/pi/kernel/a-msg@example.org/raw").content
        assert raw.startswith(b"From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: Alice Liddell <alice@example.org>\n")
        assert b"\nMessage-ID: <a-msg@example.org>\n" in raw and raw.endswith(b"\n\nHello.\n\n")
