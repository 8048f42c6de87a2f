"""The bound on the costliest queries the language accepts (search/query.py, MAX_COSTLY), through
the real API on SQLite and PostgreSQL: at most 4 prefixes and phrases together, wherever they
stand; beyond, a 400 naming the term that went past it, before anything is searched or spent."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from tests.archive.api_fixtures import seed_archive

REFUSED = "Invalid query: the query has more than 4 prefixes and phrases (at character {})"


@pytest.fixture
def seeded(engine, client):
    seed_archive(engine)
    return client


def search(client, query: str):
    return client.get(f"/archive/api/search/?q={quote(query)}")


@pytest.mark.parametrize(
    "query",
    [
        "wel* OR hel* OR rep* OR dev*",  # four prefixes
        '"dev welcome" OR "hello again" -"a b" wel*',  # three phrases and a prefix
        "f:alice@example.org wel* (hel* OR -rep*)",  # an address of several words is a phrase
    ],
)
def test_four_are_searched(seeded, query):
    assert search(seeded, query).status_code == 200


@pytest.mark.parametrize(
    "query",
    [
        "wel* OR hel* OR rep* OR dev* OR old*",
        '"a b" "c d" "e f" "g h" i-j',  # a hyphenated word is a phrase
        "gpsd -(wel* OR (hel* NOT (rep* OR dev*))) s:bye*",  # under NOT and parentheses too
        'wel* OR "a b" OR f:alice@example.org OR n:file.txt OR hel*',
    ],
)
def test_a_fifth_is_a_400_naming_where(seeded, query):
    fifth = query.rindex(" ") + 2  # the last term is the fifth: its first character, from 1
    answer = search(seeded, query)
    assert answer.status_code == 400
    assert answer.json() == {"detail": REFUSED.format(fifth)}
    page = seeded.get(f"/archive/search?q={quote(query)}")
    assert page.status_code == 400 and f"at character {fifth})" in page.text
