"""How an export reads its parameters (issue 40): a range of days that holds no day is one 400 on
both backends, with or without a search (SQLite answered 503, PostgreSQL an empty 200); days are
written in ASCII digits; a parameter given twice is its last value, as the search API, page and
feed read it (Django's QueryDict, which HyperKitty's clients know). The expected messages are the
fixture's, read off its texts by hand."""

from __future__ import annotations

import pytest

from tests.archive.export.endpoint.test_search import DEV, EXPORT, SEARCH_EXPORT, exported, import_lists
from tests.archive.source_fixtures import HASHES, LIST

EMPTY_RANGE = "end must be after start"


def says(response, status: int, text: str) -> None:
    assert response.status_code == status
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert text in response.text.replace("&#39;", "'").replace("&amp;", "&")


@pytest.mark.parametrize("search", ["", "q=gps&", "q=one&"])
@pytest.mark.parametrize("days", ["start=2010-01-02&end=2010-01-01", "start=2020-01-07&end=2020-01-07"])
def test_a_range_without_a_day_is_a_400_naming_start_and_end(client, engine, tmp_path, search, days):
    import_lists(engine, tmp_path)
    urls = [f"{EXPORT}?{search}{days}"] + ([f"{SEARCH_EXPORT}?{search}{days}"] if search else [])
    for url in urls:
        response = client.get(url)
        says(response, 400, EMPTY_RANGE)
        start, end = days.split("&")
        assert start in response.text and end in response.text  # the values asked, named


def test_a_range_of_one_day_is_that_day(client, engine, tmp_path):
    import_lists(engine, tmp_path)
    # dev's two: Jan 6 10:00 and Jan 7 11:00; end excluded
    assert exported(client, f"{EXPORT}?q=s:one&start=2020-01-06&end=2020-01-07") == DEV[0]
    assert exported(client, f"{SEARCH_EXPORT}?q=s:one&start=2020-01-07&end=2020-01-08") == DEV[1]


@pytest.mark.parametrize(
    "day",
    [
        "%EF%BC%92020-01-07",  # FULLWIDTH DIGIT TWO
        "%D9%A2%D9%A0%D9%A2%D9%A0-01-07",  # ARABIC-INDIC digits for 2020
        "2020-01-%E0%A5%A6%E0%A5%AD",  # DEVANAGARI digits for 07
    ],
)
def test_days_are_written_in_ascii_digits(client, engine, tmp_path, day):
    import_lists(engine, tmp_path)
    for url in (f"{EXPORT}?start={day}", f"{SEARCH_EXPORT}?q=one&end={day}"):
        says(client.get(url), 400, "must be a day written YYYY-MM-DD")


@pytest.mark.parametrize(
    "query, expected",
    [
        ("q=three&q=s:one", [0, 1]),  # the last q: subjects "one" and "Re: one"
        ("q=s:one&q=three", [2]),
        ("start=2021-01-01&start=2020-01-07", [1, 2]),
        ("end=2020-01-01&end=2020-01-07", [0]),
        (f"thread={HASHES[2]}&thread={HASHES[0]}", [0, 1]),
        (f"message={HASHES[0]}&message={HASHES[1]}", [1]),
        ("q=&q=three", [2]),  # a blank q before the last is not read
    ],
)
def test_a_parameter_given_twice_is_its_last_value(client, engine, tmp_path, query, expected):
    import_lists(engine, tmp_path)
    assert exported(client, f"{EXPORT}?{query}") == b"".join(DEV[n] for n in expected)


def test_a_search_exports_last_q_and_mlist(client, engine, tmp_path):
    import_lists(engine, tmp_path)
    # mlist=ops then dev: dev's alone; q=relay (ops' word) then s:one
    assert exported(client, f"{SEARCH_EXPORT}?q=relay&q=s:one&mlist=ops@lists.example.org&mlist={LIST}") == (
        DEV[0] + DEV[1]
    )
    says(client.get(f"{SEARCH_EXPORT}?q=one&q=%20"), 400, "The search needs a query: q=…")  # the last is blank
