"""`<prefix>api/search/` on the hand-built archive of api_fixtures (SQLite and PostgreSQL): the
envelope, the email objects of /list/<address>/emails/, score and snippet, private lists, the 400s."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace
from urllib.parse import quote

import pytest
from starlette.testclient import TestClient

from sathub.app import create_app
from tests.archive.api_fixtures import BASE, FORBIDDEN, MAIL, seed_archive, seed_big_list
from tests.archive.search.trips import counted_trips

PREFIXES = ("/archive/api/", "/archives/api/", "/hyperkitty/api/")


@pytest.fixture
def seeded(engine, client):
    seed_archive(engine)
    return client


def search(client, query: str, prefix: str = "/archive/api/", **params):
    extra = "".join(f"&{key}={quote(str(value))}" for key, value in params.items())
    return client.get(f"{prefix}search/?q={quote(query)}{extra}")


@pytest.mark.parametrize("prefix", PREFIXES)
def test_results_are_the_list_endpoints_email_objects_with_score_and_snippet(seeded, prefix):
    answer = search(seeded, "welcome", prefix, mlist="dev@example.org")
    assert answer.status_code == 200
    body = answer.json()
    listed = {email["message_id_hash"]: email for email in seeded.get(f"{prefix}list/dev@example.org/emails/").json()}
    # A, B, C, D: "[dev] Welcome" and its replies, the most relevant first.
    assert body["count"] == 4
    assert {r["message_id_hash"] for r in body["results"]} == {MAIL[k].hash for k in "ABCD"}
    scores = [r["score"] for r in body["results"]]
    assert scores == sorted(scores, reverse=True)
    for result in body["results"]:
        score, snippet = result.pop("score"), result.pop("snippet")
        assert result == listed[result["message_id_hash"]]
        assert isinstance(score, float) and score > 0
        # Only the subject has the word: the snippet is the subject, the word marked.
        assert snippet == result["subject"].replace("Welcome", "\u0002Welcome\u0003")
    assert body["next"] is None and body["previous"] is None


def test_a_private_list_is_never_in_results_nor_searchable(seeded):
    # P ("Secret") is on the private list; X is A cross-posted to the public other@.
    assert search(seeded, "secret").json()["count"] == 0
    assert search(seeded, "l:private@example.org").json()["count"] == 0
    assert search(seeded, f"m:{MAIL['P'].message_id}").json()["count"] == 0
    everything = search(seeded, "-zzzz", limit=100).json()
    assert everything["count"] == 9  # every public email: A–H and X
    assert MAIL["P"].hash not in {r["message_id_hash"] for r in everything["results"]}
    for address in ("private@example.org", "PRIVATE@Example.ORG"):
        refused = search(seeded, "secret", mlist=address)
        assert (refused.status_code, refused.text) == (403, FORBIDDEN)
    unknown = search(seeded, "secret", mlist="nobody@example.org")
    assert (unknown.status_code, unknown.json()) == (404, {"detail": "Not found."})


def test_words_fold_case_and_accents_and_fields_narrow(seeded):
    found = search(seeded, "zoe", sort="date-asc").json()
    assert [r["message_id_hash"] for r in found["results"]] == [MAIL["C"].hash, MAIL["H"].hash]
    assert all(r["score"] is None for r in found["results"])  # sorted by date: no score
    assert search(seeded, "GRÜSSE").json()["count"] == 0  # ß is a letter of its own: no "ss"
    assert search(seeded, "grüße").json()["count"] == 1
    assert search(seeded, "f:unicode").json()["count"] == 2
    assert search(seeded, "s:unicode").json()["count"] == 0
    assert search(seeded, "n:report").json()["results"][0]["message_id_hash"] == MAIL["E"].hash
    assert search(seeded, "n:signature.asc").json()["count"] == 1
    assert search(seeded, "d:2021-01 welcome").json()["count"] == 4 + 1  # A–D and X (other@)
    assert search(seeded, "d:2021-01-02.. s:welcome").json()["count"] == 2  # B, D
    assert search(seeded, "l:OTHER@example.org").json()["count"] == 1


def test_not_a_list_that_is_not_there_is_every_public_email(seeded):
    """On PostgreSQL `l:` was `list_id = (the list's id)`, NULL for a list that is not there, and
    its NOT NULL again: no email instead of all."""
    for query in ("-l:nowhere@example.org", "NOT l:nowhere@example.org", "welcome -l:nowhere@example.org"):
        assert search(seeded, query).json()["count"] == (9 if "welcome" not in query else 5), query  # A–H, X


def test_snippets_mark_the_matched_words(seeded):
    [result] = search(seeded, "ça").json()["results"]
    assert result["snippet"] == "Grüße — \u0002ça\u0003 va ?"


def test_the_envelope_pages_with_sorted_absolute_links(seeded):
    first = search(seeded, "welcome", limit=2, sort="date-desc").json()
    assert first["count"] == 5
    assert first["next"] == f"{BASE}/archive/api/search/?limit=2&offset=2&q=welcome&sort=date-desc"
    second = seeded.get(first["next"]).json()
    assert second["previous"] == f"{BASE}/archive/api/search/?limit=2&q=welcome&sort=date-desc"
    assert len(second["results"]) == 2


def test_ten_results_by_default_and_at_most_a_hundred(engine, client):
    seed_big_list(engine, replies=60)  # 121 emails whose text is "text"
    assert search(client, "text").json()["count"] == 121
    assert len(search(client, "text").json()["results"]) == 10
    assert len(search(client, "text", limit=1000).json()["results"]) == 100
    assert len(search(client, "text", limit=100, offset=100).json()["results"]) == 21


@pytest.mark.parametrize(
    ("query", "detail"),
    [
        ("", "The search needs a query: q=…"),
        ("we*", "Invalid query: a prefix needs at least 3 characters before '*' (at character 1)"),
        ('"open', "Invalid query: unclosed quote (at character 1)"),
        ("a OR", "Invalid query: the query ends where a word was expected (at character 5)"),
        (" ".join(["w"] * 33), "Invalid query: the query has more than 32 words (at character 1)"),
        ("x" * 501, "Invalid query: the query is longer than 500 characters (at character 501)"),
        ("\x00", "Invalid query: the query contains a NUL character (at character 1)"),
    ],
)
def test_unparsable_or_costly_queries_are_400_in_the_archives_shape(seeded, query, detail):
    answer = search(seeded, query)
    assert (answer.status_code, answer.json()) == (400, {"detail": detail})


def test_an_unknown_sort_is_400(seeded):
    answer = search(seeded, "welcome", sort="random")
    assert answer.status_code == 400
    assert answer.json() == {"detail": "Unknown sort 'random': one of relevance, date-desc, date-asc."}


def test_the_api_root_lists_search(seeded):
    assert seeded.get("/archive/api/?format=json").json()["search"] == f"{BASE}/archive/api/search/?q={{query}}"


def test_relevance_pages_go_on_past_the_ranked_window(seeded, monkeypatch, request):
    """Past RANK_WINDOW ranked matches, the other matches follow, latest arrival first, score null:
    every match is on exactly one page."""
    from sathub.archive.store import search as store

    monkeypatch.setattr(store, "RANK_WINDOW", 3)
    store._paged.cache_clear()  # statements are kept with the window they were built with
    request.addfinalizer(store._paged.cache_clear)
    pages = [
        search(seeded, "-zzzz welcome OR hello OR report OR tie OR late", limit=2, offset=o).json()
        for o in (0, 2, 4, 6, 8)
    ]
    hashes = [r["url"] for page in pages for r in page["results"]]  # X is A cross-posted: same hash
    assert pages[0]["count"] == 9 and len(hashes) == 9 and len(set(hashes)) == 9
    scores = [r["score"] for page in pages for r in page["results"]]
    assert all(score is not None for score in scores[:3]) and scores[3:] == [None] * 6


@pytest.mark.parametrize("sort", ["relevance", "date-desc", "date-asc"])
def test_a_private_lists_mail_is_in_no_order_nor_on_the_walked_dates(seeded, monkeypatch, sort):
    """Every order, SQLite's walk of the dates included (from the first match here), with dates and
    lists asked as facets: P, on the private list, never comes out."""
    from sathub.archive.store import search_fts5

    monkeypatch.setattr(search_fts5, "WALK_FROM", 1)
    assert search(seeded, "secret", sort=sort).json()["count"] == 0
    for query in ("secret OR welcome", "(secret OR welcome) d:2000..2100", "secret OR l:dev@example.org"):
        found = search(seeded, query, sort=sort, limit=100).json()
        assert found["count"] == len(found["results"]) > 0, query
        assert MAIL["P"].hash not in {r["message_id_hash"] for r in found["results"]}, query


@contextmanager
def capped_client(engine, settings, count_limit: int):
    """A server whose searches count exactly up to `count_limit` matches, over big@example.org's 45
    emails whose text is "text": a thread of 23 subjects "Big" and 22 single emails "Single"."""
    seed_big_list(engine, replies=22)
    app = create_app(replace(settings, search_count_limit=count_limit), engine=engine)
    with TestClient(app, base_url=BASE) as client:
        yield client


@pytest.mark.parametrize("sort", ["relevance", "date-desc", "date-asc"])
def test_counts_stop_at_the_limit_and_the_next_links_go_on_to_the_last_match(engine, settings, sort):
    with capped_client(engine, settings, 20) as capped:
        answer = search(capped, "text", limit=7, sort=sort).json()
        assert list(answer)[:2] == ["count", "count_exact"]
        assert (answer["count"], answer["count_exact"]) == (20, False)
        seen, pages = [r["url"] for r in answer["results"]], 1
        while answer["next"]:
            answer = capped.get(answer["next"]).json()
            seen += [r["url"] for r in answer["results"]]
            pages += 1
            assert (answer["count"], answer["count_exact"]) == (20, False)
        assert (len(seen), len(set(seen)), pages) == (45, 45, 7)
        # Asked for every match at once, the page holds them all, and says there is no next one.
        every = search(capped, "text", limit=100, sort=sort).json()
        assert (every["count"], every["count_exact"], every["next"], len(every["results"])) == (20, False, None, 45)


def test_a_count_up_to_the_limit_is_exact(engine, settings):
    with capped_client(engine, settings, 22) as capped:
        assert [search(capped, q).json()["count"] for q in ("s:single", "s:big")] == [22, 22]
        assert [search(capped, q).json()["count_exact"] for q in ("s:single", "s:big")] == [True, False]
        assert search(capped, "s:single", limit=30).json()["next"] is None


def test_every_answer_is_one_worker_thread_trip(engine, settings, monkeypatch):
    """Revision, budget, search and JSON in one trip, whatever the outcome; a 304 and a refused
    query spend nothing (two searches a minute: the third that runs is the 429)."""
    seed_archive(engine)
    with TestClient(create_app(replace(settings, search_budget=2), engine=engine), base_url=BASE) as client:
        trips = counted_trips(monkeypatch)
        found = search(client, "welcome")
        answers = [(found.status_code, len(trips))]
        for query, headers in [
            ("welcome", {"If-None-Match": found.headers["etag"]}),
            ("(unclosed", {}),
            ("welcome OR hello", {}),
            ("welcome", {}),
        ]:
            trips.clear()
            answer = client.get(f"/archive/api/search/?q={quote(query)}", headers=headers)
            answers.append((answer.status_code, len(trips)))
    assert answers == [(200, 1), (304, 1), (400, 1), (200, 1), (429, 1)]
