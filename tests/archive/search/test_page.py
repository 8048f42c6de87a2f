"""The search page `<web prefix>search` (HyperKitty's path and parameters) and the search box of the
list, thread and message pages: results, marks, pagination, escaping, refusals; in Chromium too."""

from __future__ import annotations

import gzip
import re
from dataclasses import replace
from urllib.parse import quote

import pytest
from starlette.testclient import TestClient

from sathub.app import create_app
from tests.archive.api_fixtures import MAIL, pooled_connections, seed_archive, seed_big_list
from tests.archive.messages import raw_message
from tests.archive.search.trips import counted_trips, on_event_loop
from tests.live_server import app_in_thread

DEV = "dev@example.org"


@pytest.fixture
def seeded(engine, client):
    seed_archive(engine)
    return client


def test_results_link_their_message_pages_and_mark_the_words(seeded):
    page = seeded.get("/archives/search?q=" + quote("ça") + "&mlist=" + DEV)
    assert page.status_code == 200
    html = page.text
    assert f'href="http://sathub.test/archives/list/{DEV}/message/{MAIL["C"].hash}/"' in html
    assert "Grüße — <mark>ça</mark> va ?" in html
    assert "1 result in dev@example.org." in html


def test_the_results_link_their_mbox_export_and_their_feed(seeded):
    """Both hold every result of the search (one here: C), whatever page is shown."""
    html = seeded.get("/archives/search?q=" + quote("ça") + "&mlist=" + DEV).text
    scope = "q=%C3%A7a&amp;mlist=dev%40example.org"
    export = f"http://sathub.test/archives/search/export/search.mbox.gz?{scope}"
    feed = f"http://sathub.test/archives/search/feed/atom/?{scope}"
    assert f'href="{export}"' in html and f'href="{feed}"' in html
    mbox = gzip.decompress(seeded.get(export.replace("&amp;", "&")).content)
    assert re.findall(rb"^Message-ID: <([^>]+)>", mbox, re.MULTILINE | re.IGNORECASE) == [MAIL["C"].message_id.encode()]
    entries = re.findall(r"<entry>.*?</entry>", seeded.get(feed.replace("&amp;", "&")).text, re.DOTALL)
    assert len(entries) == 1 and MAIL["C"].hash in entries[0]


def test_a_sender_named_by_their_address_is_shown_obfuscated(seeded):
    """B's sender name is its address, as pipermail's imports write it: the message page shows
    `bob (a) example.net`, and so does the search page (it showed the address in clear)."""
    html = seeded.get("/archive/search?q=welcome&mlist=" + DEV).text
    assert f'/message/{MAIL["B"].hash}/"' in html
    assert "bob (a) example.net" in html and "bob@example.net" not in html


def test_a_script_in_the_query_is_shown_not_run(seeded):
    for query in ('"><script>alert(1)</script>', "<script>alert(1)</script>"):
        html = seeded.get("/archive/search?q=" + quote(query)).text
        assert "<script>" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_refusals(seeded):
    refused = seeded.get("/archive/search?q=" + quote("ab*"))
    assert refused.status_code == 400
    assert "a prefix needs at least 3 characters before &#39;*&#39; (at character 1)" in refused.text
    assert seeded.get("/archive/search?q=x&mlist=private@example.org").status_code == 403
    assert seeded.get("/archive/search?q=x&mlist=nobody@example.org").status_code == 404
    assert "Secret" not in seeded.get("/archive/search?q=secret").text
    form = seeded.get("/archive/search")
    assert form.status_code == 200 and 'name="q"' in form.text and "result" not in form.text


def test_pages_of_twenty(engine, client):
    """45 matches (big@example.org: a thread of 23 and 22 single emails, every text "text"): pages
    of 20, 20 and 5, numbered on from one page to the next, each email on one page only."""
    seed_big_list(engine, replies=22)
    url = "/archive/search?q=text&mlist=big@example.org&sort=date-asc"
    pages = [client.get(url + (f"&page={number}" if number > 1 else "")).text for number in (1, 2, 3)]
    assert [page.count("<article") for page in pages] == [20, 20, 5]
    assert "45 results in big@example.org." in pages[0]
    assert [f"Page {number} of 3" in page for number, page in enumerate(pages, 1)] == [True, True, True]
    assert [re.search(r'<ol class="results" start="(\d+)">', page)[1] for page in pages] == ["1", "21", "41"]
    links = [re.findall(r'<h2><a href="([^"]+)"', page) for page in pages]
    assert len({link for page in links for link in page}) == 45
    assert 'rel="prev"' not in pages[0] and 'rel="next"' not in pages[2]
    assert client.get(url + "&page=4").text.count("<article") == 0
    one_page = client.get("/archive/search?q=m:root-big@example.org").text
    assert "1 result." in one_page and "Page 1 of 1" not in one_page  # one page: no page links


@pytest.mark.parametrize("path", [f"list/{DEV}/", f"list/{DEV}/thread/{MAIL['A'].hash}/"])
def test_the_list_and_thread_pages_have_a_search_box_scoped_to_the_list(seeded, path):
    html = seeded.get(f"/archive/{path}").text
    assert 'action="http://sathub.test/archive/search"' in html
    assert f'<option value="{DEV}">this list</option>' in html
    assert '<option value="">all lists</option>' in html


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with app_in_thread(tmp_path_factory.mktemp("search") / "sathub.db", archiver_key="search-key") as server:
        yield server


@pytest.mark.browser
def test_search_in_chromium_without_javascript(served, browser, screenshots):
    import httpx

    base, _engine = served
    raw = raw_message("orbit@example.com", subject="[dev] Perigee of <b>AO-91</b>", body="Kepler elements here.\n")
    answer = httpx.post(
        f"{base}/archive/api/mailman/archive",
        data={"mlist": DEV},
        files={"message": ("message.txt", raw)},
        headers={"Authorization": "Token search-key"},
    )
    assert answer.status_code == 200, answer.text
    page = browser.new_context(java_script_enabled=False).new_page()
    dialogs = []
    page.on("dialog", lambda dialog: dialogs.append(dialog))
    page.goto(answer.json()["url"])  # the message page: its search box, scoped to the list
    page.get_by_label("Search").first.fill("kepler")
    page.get_by_role("button", name="Search").click()
    assert page.url == f"{base}/archive/search?q=kepler&mlist={quote(DEV)}"
    assert page.locator("mark").all_inner_texts() == ["Kepler"]
    page.screenshot(path=str(screenshots / "archive-search-page.png"), full_page=True)
    page.get_by_role("link", name="[dev] Perigee of <b>AO-91</b>").click()
    assert page.url == answer.json()["url"]
    page.goto(f"{base}/archive/search?q=" + quote('"><script>alert(1)</script>'))
    assert page.get_by_role("alert").inner_text().startswith("This query cannot be searched.")
    assert page.locator("#search-q").input_value() == '"><script>alert(1)</script>'
    assert dialogs == []
    page.context.close()


def test_past_the_count_limit_the_page_says_more_than_and_pages_on(engine, settings):
    """45 matches counted up to 30: "More than 30 results", pages without a last number, and a
    next link until the last match."""
    seed_big_list(engine, replies=22)
    with TestClient(create_app(replace(settings, search_count_limit=30), engine=engine)) as client:
        url = "/archive/search?q=text&mlist=big@example.org&sort=date-asc"
        pages = [client.get(url + (f"&page={number}" if number > 1 else "")).text for number in (1, 2, 3)]
        assert ["More than 30 results in big@example.org." in page for page in pages] == [True] * 3
        assert [page.count("<article") for page in pages] == [20, 20, 5]
        assert ["Page 2</li>" in pages[1], " of " in pages[1].split("Page 2", 1)[1][:10]] == [True, False]
        assert ['rel="next"' in page for page in pages] == [True, True, False]
        single = client.get("/archive/search?q=s:single").text
        assert "22 results." in single and "More than" not in single


def test_every_answer_is_one_worker_thread_trip_rendered_off_the_event_loop(engine, settings, monkeypatch):
    """Revision, budget, search and template in one trip; a 304 and a refused query spend nothing
    (two searches a minute: the third that runs is the 429)."""
    from sathub.archive.search import page as search_page

    seed_archive(engine)
    rendered_on_loop, render = [], search_page.render_page

    def recorded(*args, **kwargs):
        rendered_on_loop.append(on_event_loop())
        return render(*args, **kwargs)

    monkeypatch.setattr(search_page, "render_page", recorded)
    with TestClient(create_app(replace(settings, search_budget=2), engine=engine)) as client:
        trips = counted_trips(monkeypatch)
        path = "/archive/search?q=welcome"
        found = client.get(path)
        asked = [
            (path, {"If-None-Match": found.headers["etag"]}, 304),
            ("/archive/search?q=" + quote("(unclosed"), {}, 400),
            ("/archive/search", {}, 200),  # the form: nothing searched
            ("/archive/search?q=welcome&mlist=" + DEV, {}, 200),
            (path, {}, 429),
        ]
        answers = [(found.status_code, len(trips))]
        for url, headers, _ in asked:
            trips.clear()
            answers.append((client.get(url, headers=headers).status_code, len(trips)))
    assert answers == [(status, 1) for status in (200, *(status for *_, status in asked))]
    assert rendered_on_loop == [False] * 4  # the 200s and the 400 (a 304 renders nothing, a 429 the error page)


def test_a_search_holds_one_pooled_connection_at_a_time(engine, settings):
    """The budget's spend takes a connection of its own: threads each holding one while waiting for
    a second would starve the pool under a crawler."""
    seed_archive(engine)
    app = create_app(replace(settings, search_budget=5), engine=engine)
    with TestClient(app) as client, pooled_connections(engine) as most:
        assert client.get("/archive/search?q=welcome").status_code == 200
    assert len(most) == 3 and max(most) == 1  # the revision, the spend, the search: one after another
