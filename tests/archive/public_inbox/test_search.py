"""public-inbox's search forms through the app, on the corpus (both backends): what
public-inbox-httpd 1.9 answered for the same requests on the same mail (bench/peers.py's setup):
`?q=s:azure` on python-committers found nine messages, newest first; `POST ?q=…&x=m` gave them as
mboxrd.gz, newest arrival first, `inline; filename=results-s-azure.mbox.gz`; nothing found was a
404 (`No results found` for the mbox); GET with x=m the page, saying x=m is for POST; `x=t` each
result whole in the same order, `x=A` an Atom feed of them; `/all/?q=` linked its results under
`all/`; `POST edge/?x=m&q=` the whole inbox (observed/edge-all.mbox); a POST without `q`, 404."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from sathub.app import create_app
from sathub.archive.export.slots import SLOTS
from sathub.config import Settings
from tests.archive.api_fixtures import BASE
from tests.archive.corpus import CORPUS_GROUP, EXPECTED

INBOX = "/pi/python-committers/"
OBSERVED = Path(__file__).parent / "observed"
# public-inbox 1.9's answer to python-committers/?q=s:azure, in its order (date, newest first).
AZURE = [
    "94e51f71-576d-d739-0cde-d6cfe42ad838@python.org",
    "CABcGAgB1oS85B_3VH0ORQbc0Bro6=eFztnombc_YAdmJDxVU2Q@mail.gmail.com",
    "CAGbohnYOyCTvGjDmt7rc97cY3KW-aT_CFhjrTt3zsXBPNKG-Qw@mail.gmail.com",
    "4112c3a7-2771-9f28-53f2-9ef48865ee79@python.org",
    "CAFRnB2X7VYXJW7gQfGqQ5voiiE6vqQeGZcJqpiS3YcyXZ5Yk3A@mail.gmail.com",
    "8c3cc6d3-b128-b746-df55-fc166502fe38@python.org",
    "CACac1F-y=9gpxEjDtLTsLjoh=nzrGS2eFd8wRTGB+CLoz0PvFQ@mail.gmail.com",
    "bd505a47-28e6-d6ba-4e86-ce0c65a51558@python.org",
    "b11158f9-68b2-55f0-6540-e4f0194a3908@python.org",
]

# The GET forms with validators: topics, feed, message, raw, thread, thread mbox, search, `all`.
CACHED = [
    *(INBOX, f"{INBOX}new.atom", f"{INBOX}{AZURE[0]}/", f"{INBOX}{AZURE[0]}/raw", f"{INBOX}{AZURE[0]}/T/"),
    *(f"{INBOX}{AZURE[0]}/t.mbox.gz", f"{INBOX}?q=s:azure", "/pi/all/", f"/pi/all/{AZURE[0]}/raw"),
]


def client_of(corpus, address: str = "testclient", **settings) -> TestClient:
    app = create_app(Settings(database_url=str(corpus.engine.url), base_url=BASE, **settings), engine=corpus.engine)
    return TestClient(app, base_url=BASE, client=(address, 50000))


@pytest.fixture
def corpus_client(corpus):
    with client_of(corpus, export_budget=0) as client:  # the budgets' own test spends them
        yield client


def linked(page: str) -> list[str]:
    return re.findall(r'<b><a href="[^"]*/pi/[^/]+/([^"/]+)/">', page)


def message_ids(mbox: bytes) -> list[str]:
    return [found.decode() for found in re.findall(rb"(?im)^message-id:\s*<([^>]+)>", mbox)]


@CORPUS_GROUP
def test_results_page_is_public_inboxs(corpus_client):
    answer = corpus_client.get(INBOX, params={"q": "s:azure"})
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/html")
    assert linked(answer.text) == AZURE
    assert "Results 1-9 of 9" in answer.text
    reverse = corpus_client.get(INBOX, params={"q": "s:azure", "o": "-1"})
    assert linked(reverse.text) == AZURE[::-1]
    paged = corpus_client.get(INBOX, params={"q": "s:azure", "l": "3", "o": "3"})
    assert linked(paged.text) == AZURE[3:6] and "Results 4-6 of 9" in paged.text
    assert 'href="?q=s:azure&amp;o=6&amp;l=3" rel=next' in paged.text
    assert 'href="?q=s:azure&amp;l=3" rel=prev' in paged.text
    everywhere = corpus_client.get("/pi/all/", params={"q": "s:azure"})
    assert linked(everywhere.text) == AZURE


@CORPUS_GROUP
def test_nothing_found_and_refused_queries(corpus_client):
    none = corpus_client.get(INBOX, params={"q": "s:zzqqxxnothing"})
    assert none.status_code == 404 and "[No results found]" in none.text
    refused = corpus_client.get(INBOX, params={"q": "t:someone"})
    assert refused.status_code == 400 and "To and Cc" in refused.text
    assert corpus_client.get("/pi/nosuchinbox/", params={"q": "azure"}).status_code == 404


@CORPUS_GROUP
def test_post_x_m_is_the_mboxrd_of_the_matches(corpus_client):
    answer = corpus_client.post(INBOX, params={"q": "s:azure", "x": "m"})
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/gzip"
    assert answer.headers["content-disposition"] == "inline; filename=results-s-azure.mbox.gz"
    mbox = gzip.decompress(answer.content)
    assert message_ids(mbox) == AZURE  # public-inbox's order: newest arrival first
    # each entry is the message's `raw`, which is public-inbox's byte for byte (test_mboxrd.py)
    assert mbox == b"".join(corpus_client.get(f"{INBOX}{mid}/raw").content for mid in AZURE)


@CORPUS_GROUP
def test_post_t_1_gives_whole_threads(corpus_client):
    alone = corpus_client.post(INBOX, params={"q": f"m:{AZURE[0]}", "x": "m"})
    assert message_ids(gzip.decompress(alone.content)) == [AZURE[0]]
    threads = corpus_client.post(INBOX, params={"q": f"m:{AZURE[0]}", "x": "m", "t": "1"})
    assert threads.headers["content-disposition"].startswith("inline; filename=results-thread-m-")
    # the thread in arrival order (public-inbox's expand_thread)
    assert message_ids(gzip.decompress(threads.content)) == AZURE[7::-1]


@CORPUS_GROUP
def test_post_without_results_get_with_x_m_and_other_posts(corpus_client):
    none = corpus_client.post(INBOX, params={"q": "s:zzqqxxnothing", "x": "m"})
    assert (none.status_code, none.text, none.headers["content-type"]) == (404, "No results found\n", "text/plain")
    page = corpus_client.get(INBOX, params={"q": "s:azure", "x": "m"})
    assert page.status_code == 200 and '"x=m" ignored for GET requests' in page.text
    # public-inbox answers a POST without `q` with its 404 `Not Found`, and without `x=m` the page
    for path in (INBOX, f"{INBOX}?x=m", f"{INBOX}{AZURE[0]}/raw", f"{INBOX}{AZURE[0]}/?q=&x=m"):
        other = corpus_client.post(path)
        assert (other.status_code, other.text, other.headers["content-type"]) == (404, "Not Found", "text/plain")
    page = corpus_client.post(INBOX, params={"q": "s:azure"})
    assert page.status_code == 200 and linked(page.text) == AZURE
    assert corpus_client.post(INBOX, params={"q": "s:zzqqxxnothing"}).status_code == 404
    assert corpus_client.put(INBOX).status_code == 405


@CORPUS_GROUP
def test_post_with_an_empty_q_is_the_whole_inbox(corpus_client):
    # public-inbox 1.9's answer to `POST edge/?x=m&q=` (Mbox::mbox_all_ids), decompressed
    observed = (OBSERVED / "edge-all.mbox").read_bytes()
    for params in ({"x": "m", "q": ""}, {"q": " ", "x": "m", "t": "1"}):
        answer = corpus_client.post("/pi/edge/", params=params)
        assert answer.status_code == 200 and "content-length" not in answer.headers  # streamed
        assert answer.headers["content-disposition"] == "inline; filename=all.mbox.gz"
        assert gzip.decompress(answer.content) == observed
    # every public list, list by list in arrival order, as public-inbox's extindex numbered them
    everything = gzip.decompress(corpus_client.post("/pi/all/", params={"x": "m", "q": ""}).content)
    assert everything.count(b"\nFrom mboxrd@z ") + 1 == sum(EXPECTED[name][0] for name in EXPECTED)
    first = re.search(rb"(?im)^message-id:\s*<([^>]+)>", everything)
    assert (
        first
        and first.group(1) == b"HE1PR0702MB36431C99F09F56144B855CF3FAC79@HE1PR0702MB3643.eurprd07.prod.outlook.com"
    )
    assert corpus_client.post("/pi/nosuchinbox/", params={"x": "m", "q": ""}).status_code == 404


@CORPUS_GROUP
def test_the_forms_full_threads_button_asks_for_threads(corpus_client):
    # public-inbox's form posts `x=full+threads`: SearchView::mbox_results takes `x=` in the body as t=1
    answer = corpus_client.post(INBOX, params={"q": f"m:{AZURE[0]}", "x": "m"}, content=b"x=full+threads")
    assert message_ids(gzip.decompress(answer.content)) == AZURE[7::-1]
    alone = corpus_client.post(INBOX, params={"q": f"m:{AZURE[0]}", "x": "m"}, content=b"x=0")
    assert message_ids(gzip.decompress(alone.content)) == [AZURE[0]]


@CORPUS_GROUP
def test_results_nested_x_t(corpus_client):
    answer = corpus_client.get(INBOX, params={"q": "s:azure", "x": "t"})
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/html")
    # public-inbox's x=t: each result whole, in the results' order, with its permalink and raw
    assert re.findall(r'<a href="[^"]*/pi/python-committers/([^"/]+)/">permalink', answer.text) == AZURE
    assert answer.text.count('/raw">raw</a>') == len(AZURE)
    assert "I honestly don&#39;t think we&#39;ll ever truly get to 100% reliability" in answer.text
    # the first result replies to the third (public-inbox's thread skeleton links it)
    assert f'In reply to: <a href="{BASE}/pi/python-committers/{AZURE[2]}/">' in answer.text
    assert corpus_client.get(INBOX, params={"q": "s:zzqqxxnothing", "x": "t"}).status_code == 404


@CORPUS_GROUP
def test_results_atom_x_a(corpus_client):
    answer = corpus_client.get(INBOX, params={"q": "s:azure", "x": "A"})
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/atom+xml"
    feed = answer.text
    assert "<title>s:azure - search results</title>" in feed
    entries = re.findall(r'<entry>.*?<link href="[^"]*/pi/python-committers/([^"/]+)/"', feed)
    assert entries == AZURE  # public-inbox's nine entries, in the results' order
    assert f'href="{BASE}/pi/python-committers/?q=s:azure" rel="alternate"' in feed
    none = corpus_client.get(INBOX, params={"q": "s:zzqqxxnothing", "x": "A"})
    assert none.status_code == 404 and none.headers["content-type"].startswith("text/html")


@CORPUS_GROUP
def test_all_results_link_under_all(corpus_client):
    # public-inbox's extindex links each result under itself: all/<mid>/, whatever inbox holds it
    for view in ("", "t"):
        page = corpus_client.get("/pi/all/", params={"q": "s:azure", "x": view}).text
        inboxes = re.findall(r'<a href="[^"]*/pi/([\w-]+)/[^"/]+/"', page)
        assert len(inboxes) >= len(AZURE) and set(inboxes) == {"all"}
    feed = corpus_client.get("/pi/all/", params={"q": "s:azure", "x": "A"}).text
    assert re.findall(r'<entry>.*?<link href="[^"]*/pi/all/([^"/]+)/"', feed) == AZURE


@CORPUS_GROUP
@pytest.mark.parametrize("path", CACHED)
def test_get_forms_answer_304_to_a_current_copy(corpus_client, path):
    answer = corpus_client.get(path)
    assert answer.status_code == 200 and answer.headers["etag"]
    again = corpus_client.get(path, headers={"If-None-Match": answer.headers["etag"]})
    assert again.status_code == 304 and again.content == b""


@CORPUS_GROUP
def test_searches_and_mboxes_spend_their_budgets(corpus):
    # an address of its own: the other tests' searches were spent from the test client's
    with client_of(corpus, "192.0.2.39", search_budget=1, export_budget=1) as client:
        assert client.get(INBOX, params={"q": "azure"}).status_code == 200
        refused = client.get(INBOX, params={"q": "python"})
        assert refused.status_code == 429 and refused.headers["retry-after"]
        assert client.post(INBOX, params={"q": "azure", "x": "m"}).status_code == 200
        assert client.post(INBOX, params={"q": "python", "x": "m"}).status_code == 429
        assert client.post(INBOX, params={"q": "", "x": "m"}).status_code == 429
        assert client.get(f"{INBOX}{AZURE[0]}/t.mbox.gz").status_code == 429
        assert client.get(INBOX, params={"q": "python", "x": "A"}).status_code == 429
    # a thread's mbox spends an export as the export door's thread export does, and takes a slot
    with client_of(corpus, "192.0.2.40", export_budget=1) as client:
        assert client.get(f"{INBOX}{AZURE[0]}/t.mbox.gz").status_code == 200
        assert client.get(f"{INBOX}{AZURE[0]}/t.mbox.gz").status_code == 429
    with client_of(corpus, "192.0.2.41", max_exports=1) as client:
        SLOTS.take("192.0.2.41", 1)
        try:
            refused = client.get(f"{INBOX}{AZURE[0]}/t.mbox.gz")
            assert refused.status_code == 503 and refused.headers["retry-after"]
        finally:
            SLOTS.give_back("192.0.2.41")
