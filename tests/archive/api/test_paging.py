"""Opt-in limit/offset pagination (sathub.archive.api.paging): the envelope, its links, what does not paginate."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as examples
from hypothesis import strategies as st

from tests.archive.api_fixtures import ALICE, DEV, A, api

PAGINATED = [
    "lists/",
    f"list/{DEV}/threads/",
    f"list/{DEV}/thread/{A}/emails/",
    f"list/{DEV}/emails/",
    f"sender/{ALICE}/emails/",
]


@pytest.mark.parametrize("path", PAGINATED)
def test_limit_opts_in_to_the_envelope(client, archive, path):
    everything = client.get("/archive/api/" + path).json()
    page = client.get(f"/archive/api/{path}?limit=1&offset=1").json()
    assert list(page) == ["count", "next", "previous", "results"]
    assert page["count"] == len(everything) and page["results"] == everything[1:2]
    base = api(path)
    assert page["previous"] == f"{base}?limit=1"
    assert page["next"] == (f"{base}?limit=1&offset=2" if len(everything) > 2 else None)


@pytest.mark.parametrize("query", ["limit=0", "limit=-1", "limit=abc", "offset=2", "page=2", "ordering=name"])
def test_parameters_that_do_not_paginate(client, archive, query):
    assert (
        client.get(f"/archive/api/list/{DEV}/emails/?{query}").content
        == client.get(f"/archive/api/list/{DEV}/emails/").content
    )


def test_envelope_links_keep_other_parameters_sorted_by_name(client, archive):
    body = client.get(f"/archive/api/list/{DEV}/emails/?offset=3&zeta=1&limit=3&format=json&alpha=x").json()
    base = api(f"list/{DEV}/emails/")
    assert body["next"] == f"{base}?alpha=x&format=json&limit=3&offset=6&zeta=1"
    assert body["previous"] == f"{base}?alpha=x&format=json&limit=3&zeta=1"
    assert body["results"][0]["url"].endswith("?format=json")


def test_offset_past_the_end(client, archive):
    body = client.get(f"/archive/api/list/{DEV}/emails/?offset=1000&limit=5").json()
    assert body == {"count": 8, "next": None, "previous": api(f"list/{DEV}/emails/?limit=5&offset=995"), "results": []}


def test_first_page_has_no_previous_and_last_page_no_next(client, archive):
    first = client.get(f"/archive/api/list/{DEV}/emails/?limit=5").json()
    assert first["previous"] is None and first["next"] == api(f"list/{DEV}/emails/?limit=5&offset=5")
    last = client.get(first["next"]).json()
    assert last["next"] is None and len(last["results"]) == 3


def test_unknown_thread_and_sender_paginate_as_empty(client, archive):
    for path in [f"list/{DEV}/thread/{'B' * 32}/emails/", "sender/nobody@example.org/emails/"]:
        assert client.get(f"/archive/api/{path}?limit=2").json() == {
            "count": 0,
            "next": None,
            "previous": None,
            "results": [],
        }


def test_detail_endpoints_ignore_limit(client, archive):
    assert client.get(f"/archive/api/list/{DEV}/?limit=1").content == client.get(f"/archive/api/list/{DEV}/").content


# -- numbers beyond what a database takes (issue 23) -------------------------------------------------


def expected_envelope(everything: list, path: str, limit: int, offset: int) -> dict:
    """DRF's LimitOffsetPagination without max_limit, on numbers of any size: `limit` (≥ 1) as
    given, a negative `offset` read as 0, an offset past the end an empty page."""
    offset = max(offset, 0)
    base, count = api(path), len(everything)
    nxt = f"{base}?limit={limit}&offset={offset + limit}" if offset + limit < count else None
    previous = None
    if offset > 0:
        previous = f"{base}?limit={limit}" + (f"&offset={offset - limit}" if offset - limit > 0 else "")
    return {"count": count, "next": nxt, "previous": previous, "results": everything[offset : offset + limit]}


HUGE = [2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64, 10**40]


@pytest.mark.parametrize(
    "limit, offset",
    [*((n, 0) for n in HUGE), *((1, n) for n in HUGE), *((n, n) for n in HUGE), (2, -(2**64)), (2**64, 1)],
)
@pytest.mark.parametrize("path", PAGINATED)
def test_a_huge_limit_or_offset_is_answered_as_any_other(client, archive, path, limit, offset):
    everything = client.get("/archive/api/" + path).json()
    response = client.get(f"/archive/api/{path}?limit={limit}&offset={offset}")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    assert response.json() == expected_envelope(everything, path, limit, offset)


@pytest.mark.parametrize("path", PAGINATED)
def test_a_number_longer_than_python_reads_is_no_number(client, archive, path):
    # int() refuses more than 4,300 digits (CPython's guard against quadratic parsing); DRF, calling
    # int() too, then reads the limit as absent (no envelope) and the offset as 0.
    digits = "9" * 5000
    everything = client.get("/archive/api/" + path).content
    assert client.get(f"/archive/api/{path}?limit={digits}").content == everything
    assert (
        client.get(f"/archive/api/{path}?limit=1&offset={digits}").json()
        == client.get(f"/archive/api/{path}?limit=1").json()
    )


NUMBERS = st.one_of(
    st.integers(),
    st.integers(min_value=2**31 - 3, max_value=2**31 + 3),
    st.integers(min_value=2**63 - 3, max_value=2**64 + 3),
    st.integers(min_value=2**64),
)


@pytest.mark.parametrize("path", PAGINATED)
@examples(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(limit=NUMBERS, offset=st.none() | NUMBERS)
def test_any_integer_limit_and_offset_is_never_a_server_error(client, archive, path, limit, offset):
    everything = client.get("/archive/api/" + path).json()
    query = f"limit={limit}" + ("" if offset is None else f"&offset={offset}")
    response = client.get(f"/archive/api/{path}?{query}")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    if limit < 1:
        assert response.json() == everything  # limit 0 or negative: no envelope, as DRF
    else:
        assert response.json() == expected_envelope(everything, path, limit, offset or 0)
