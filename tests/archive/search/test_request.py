"""The one reader of a search's parameters, as docs/archive-search.md states them: `q` (its two
refusals, in the words every door answers, the last of two), `sort`, the API's `limit`/`offset`
(10 by default, 100 at most, numbers as DRF reads them) and the page's `page`; and through every
door that searches, on SQLite and PostgreSQL."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from starlette.datastructures import QueryParams

from sathub.archive.edge import ArchiveError
from sathub.archive.search.query import And, Term
from sathub.archive.search.request import MISSING, Query, query_text, read_query, read_request
from sathub.archive.store.listing import Page
from tests.archive.api_fixtures import MAIL, seed_archive


def refusal(call, *args, **kwargs) -> tuple[int, str]:
    with pytest.raises(ArchiveError) as refused:
        call(*args, **kwargs)
    return refused.value.status, refused.value.detail


def test_q_is_read_without_the_blanks_around_it():
    assert query_text(None) == "" and query_text("  gpsd release \t") == "gpsd release"
    assert read_query("  gpsd release \n") == Query("gpsd release", And((Term(("gpsd",)), Term(("release",)))))


@pytest.mark.parametrize("value", [None, "", "   ", "\t\n"])
def test_a_missing_or_blank_q_is_one_400(value):
    assert MISSING == "The search needs a query: q=…"
    assert refusal(read_query, value) == (400, MISSING)
    assert refusal(read_request, {} if value is None else {"q": value}) == (400, MISSING)


@pytest.mark.parametrize(
    ("value", "detail"),
    [
        ("we*", "Invalid query: a prefix needs at least 3 characters before '*' (at character 1)"),
        # the position counts in `q` without its blanks, as the page shows it back
        ("   we*", "Invalid query: a prefix needs at least 3 characters before '*' (at character 1)"),
        ("gps AND ", "Invalid query: the query ends where a word was expected (at character 8)"),
        ("(gps", "Invalid query: '(' is never closed (at character 1)"),
    ],
)
def test_a_query_the_language_refuses_is_a_400_saying_what_and_where(value, detail):
    assert refusal(read_query, value) == (400, detail)


def test_sort_is_relevance_unless_one_of_the_dates_is_asked():
    assert read_request({"q": "gps"}).sort == "relevance"
    assert read_request({"q": "gps", "sort": "relevance"}).sort == "relevance"
    assert read_request({"q": "gps", "sort": "date-asc"}).sort == "date-asc"
    assert read_request({"q": "gps", "sort": "date-desc"}).sort == "date-desc"


@pytest.mark.parametrize("value", ["random", "", " ", "Relevance"])
def test_any_other_sort_is_a_400_an_empty_one_too(value):
    """docs/archive-search.md: "Anything else is a 400" (issue 40: `sort=` was relevance)."""
    assert refusal(read_request, {"q": "gps", "sort": value}) == (
        400,
        f"Unknown sort {value!r}: one of relevance, date-desc, date-asc.",
    )


def test_a_parameter_given_twice_is_read_as_its_last_value():
    """Django's QueryDict rule, which HyperKitty's clients know; the doors hand the query string
    as Starlette parses it."""
    asked = read_request(QueryParams("q=first&sort=random&q=second&sort=date-asc&mlist=a@x&mlist="))
    assert (asked.query.text, asked.sort, asked.mlist) == ("second", "date-asc", None)


def test_mlist_is_a_list_address_or_nothing():
    assert read_request({"q": "gps"}).mlist is None
    assert read_request({"q": "gps", "mlist": ""}).mlist is None
    assert read_request({"q": "gps", "mlist": "dev@example.org"}).mlist == "dev@example.org"


@pytest.mark.parametrize(
    ("params", "page"),
    [
        ({}, Page(10, 0)),
        ({"limit": "5", "offset": "15"}, Page(5, 15)),
        ({"limit": "1000"}, Page(100, 0)),  # 100 at most, as DRF's max_limit
        ({"limit": "100"}, Page(100, 0)),
        ({"limit": "0", "offset": "-3"}, Page(10, 0)),
        ({"limit": "ten", "offset": "x"}, Page(10, 0)),
        ({"limit": " 7", "offset": "+2"}, Page(7, 2)),  # Python's int(), as DRF reads numbers
    ],
)
def test_the_apis_window(params, page):
    assert read_request({"q": "gps", **params}).page == page


@pytest.mark.parametrize(
    ("number", "offset"), [(None, 0), ("1", 0), ("2", 20), ("3", 40), ("0", 0), ("-2", 0), ("two", 0)]
)
def test_the_pages_window(number, offset):
    params = {"q": "gps"} if number is None else {"q": "gps", "page": number}
    assert read_request(params, page_size=20).page == Page(20, offset)
    assert read_request({**params, "limit": "5"}, page_size=20).page == Page(20, offset)  # the page has no limit


# -- through the doors ----------------------------------------------------------------------------

SEARCHING_DOORS = (
    "/archive/api/search/?q={}",
    "/archive/search?q={}",
    "/archive/search/feed/atom/?q={}",
    "/archive/search/export/search.mbox.gz?q={}",
    "/archive/list/dev@example.org/export/dev.mbox.gz?q={}",
)


@pytest.mark.parametrize(
    ("query", "detail"),
    [
        # issue 40: each was a 503 on SQLite and a 500 on PostgreSQL, at every door
        ("-- OR --", "Invalid query: the query has no word to search for (at character 1)"),
        ("!! OR ??", "Invalid query: the query has no word to search for (at character 1)"),
        ("... OR ...", "Invalid query: the query has no word to search for (at character 1)"),
        ("gps (-- OR --)", "Invalid query: the parentheses hold no word to search for (at character 5)"),
        ("NOT (-- OR --)", "Invalid query: the parentheses hold no word to search for (at character 5)"),
        ("d:2010 (-- OR --)", "Invalid query: the parentheses hold no word to search for (at character 8)"),
    ],
)
def test_a_query_of_punctuation_alone_is_the_same_400_at_every_door(engine, client, query, detail):
    seed_archive(engine)
    for door in SEARCHING_DOORS:
        answer = client.get(door.format(quote(query)))
        assert answer.status_code == 400, (door, answer.status_code)
        assert detail in answer.text, door


@pytest.mark.parametrize("door", SEARCHING_DOORS[:3])
def test_q_given_twice_is_the_last_one_at_every_door(engine, client, door):
    seed_archive(engine)
    for first, last in (("zzzz", "report"), ("report", "zzzz"), ("--", "report"), ("report", "")):
        answer = client.get(door.format(first) + f"&q={last}")
        alone = client.get(door.format(last))
        assert answer.status_code == alone.status_code, (door, first, last)
        assert (MAIL["E"].hash in answer.text) == (MAIL["E"].hash in alone.text), (door, first, last)


@pytest.mark.parametrize("door", ["/archive/api/search/?q=report&sort=", "/archive/search?q=report&sort="])
def test_an_empty_sort_is_a_400_at_the_doors_that_sort(engine, client, door):
    seed_archive(engine)
    answer = client.get(door)
    assert answer.status_code == 400
    assert "Unknown sort &#39;&#39;" in answer.text or "Unknown sort ''" in answer.text
