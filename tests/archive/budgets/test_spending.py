"""The budgets at the doors (archive/budgets/spending.py), through the real app on SQLite and
PostgreSQL: searches (JSON, page, feed) spend the search budget, exports (a list's, a search's)
the export budget; beyond, 429 with Retry-After in each door's error shape. Pages, single messages
and 304s cost nothing; 0 turns a budget off; behind a trusted proxy each forwarded address has its
own budget (a real `sathub serve`)."""

from __future__ import annotations

import re
from urllib.parse import quote

import httpx
import pytest
from starlette.testclient import TestClient

from sathub.app import create_app
from sathub.config import Settings
from tests.archive.api_fixtures import BASE, MAIL, seed_archive
from tests.live_server import sathub_server

DEV = "dev@example.org"
SEARCH = "/archive/api/search/?q=welcome"


def waits(response, seconds: int) -> bool:
    """Retry-After is the time to the next token: `seconds` after the spend that emptied the bucket,
    less the second or two a loaded machine may take between that spend and this refusal."""
    return seconds - 2 <= int(response.headers["retry-after"]) <= seconds


@pytest.fixture
def budgeted(engine, database_url):
    """A client of an app allowing 3 searches and 2 exports a minute, on the hand-built archive."""
    seed_archive(engine)
    settings = Settings(database_url=database_url, base_url=BASE, search_budget=3, export_budget=2)
    with TestClient(create_app(settings, engine=engine), base_url=BASE) as client:
        yield client


def statuses(client, path: str, times: int, **headers) -> list[int]:
    return [client.get(path, headers=headers).status_code for _ in range(times)]


def test_json_searches_beyond_the_budget_are_429_in_the_read_apis_shape(budgeted):
    assert statuses(budgeted, SEARCH, 3) == [200, 200, 200]
    refused = budgeted.get(SEARCH)
    assert refused.status_code == 429
    assert waits(refused, 20)  # 3 a minute: a token every 20 s
    assert refused.headers["content-type"] == "application/json"
    assert refused.json() == {"detail": "Too many searches from your address (3 a minute): try again in 20 seconds."}


def test_the_page_feed_and_api_share_the_search_budget_and_the_page_says_when_to_come_back(budgeted):
    assert budgeted.get("/archive/search?q=welcome").status_code == 200
    assert budgeted.get("/archive/search/feed/atom/?q=welcome").status_code == 200
    assert budgeted.get(SEARCH).status_code == 200
    page = budgeted.get("/archive/search?q=welcome")
    assert page.status_code == 429 and waits(page, 20)
    assert page.headers["content-type"].startswith("text/html")
    assert "try again in 20 seconds" in page.text and "Too many requests" in page.text
    feed = budgeted.get("/archive/search/feed/atom/?q=welcome")
    assert feed.status_code == 429 and waits(feed, 20)


def test_exports_spend_their_own_budget_and_a_single_message_none(budgeted):
    export = f"/archive/list/{DEV}/export/dev.mbox.gz"
    assert statuses(budgeted, export, 1) + statuses(budgeted, "/archive/search/export/s.mbox.gz?q=welcome", 1) == [
        200,
        200,
    ]
    refused = budgeted.get(export)
    assert refused.status_code == 429 and waits(refused, 30)
    assert budgeted.get("/archive/search/export/s.mbox.gz?q=welcome").status_code == 429
    assert statuses(budgeted, f"{export}?message={MAIL['A'].hash}", 4) == [200] * 4
    assert budgeted.get(SEARCH).status_code == 200  # the search budget is untouched


def test_pages_and_single_messages_are_never_budgeted(budgeted):
    assert statuses(budgeted, SEARCH, 4)[-1] == 429
    for path in (
        f"/archive/list/{DEV}/",
        f"/archive/list/{DEV}/message/{MAIL['A'].hash}/",
        f"/archive/list/{DEV}/thread/{MAIL['A'].hash}/",
        f"/archive/api/list/{DEV}/emails/",
        f"/archive/list/{DEV}/feed/atom/",
    ):
        assert statuses(budgeted, path, 5) == [200] * 5, path


def test_a_304_costs_nothing(budgeted):
    etag = budgeted.get(SEARCH).headers["etag"]
    assert statuses(budgeted, SEARCH, 6, **{"If-None-Match": etag}) == [304] * 6
    assert statuses(budgeted, SEARCH, 3) == [200, 200, 429]  # two tokens were left


def test_a_refused_query_costs_nothing(budgeted):
    assert statuses(budgeted, "/archive/api/search/?q=" + quote("(unclosed"), 6) == [400] * 6
    assert statuses(budgeted, SEARCH, 4) == [200, 200, 200, 429]


def test_zero_turns_a_budget_off(engine, database_url):
    seed_archive(engine)
    settings = Settings(database_url=database_url, base_url=BASE, search_budget=0, export_budget=1)
    with TestClient(create_app(settings, engine=engine), base_url=BASE) as client:
        assert statuses(client, SEARCH, 12) == [200] * 12
        assert statuses(client, f"/archive/list/{DEV}/export/dev.mbox.gz", 2) == [200, 429]


def test_behind_a_trusted_proxy_each_forwarded_address_has_its_own_budget(engine, database_url):
    """A crawler behind the proxy spends its own budget, never the proxy's other clients'; the
    address is read as the status API's POST limit reads it (X-Forwarded-For from a trusted proxy)."""
    env = {"SATHUB_SEARCH_BUDGET": "2", "SATHUB_TRUSTED_PROXIES": "127.0.0.1"}
    with sathub_server(database_url, env=env) as root, httpx.Client(base_url=root) as http:

        def ask(address: str) -> int:
            return http.get(SEARCH, headers={"X-Forwarded-For": address}).status_code

        assert [ask("192.0.2.1") for _ in range(3)] == [200, 200, 429]  # the crawler
        assert [ask("192.0.2.2") for _ in range(2)] == [200, 200]  # another client of the proxy
        retry = http.get(SEARCH, headers={"X-Forwarded-For": "192.0.2.1"}).headers["retry-after"]
        assert re.fullmatch(r"[0-9]+", retry) and 1 <= int(retry) <= 30
