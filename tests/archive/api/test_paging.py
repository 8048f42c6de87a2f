"""Opt-in limit/offset pagination (sathub.archive.api.paging): the envelope, its links, what does not paginate."""

from __future__ import annotations

import pytest

from tests.archive.api_fixtures import ALICE, DEV, A, api

PAGINATED = ["lists/", f"list/{DEV}/threads/", f"list/{DEV}/thread/{A}/emails/", f"list/{DEV}/emails/",
             f"sender/{ALICE}/emails/"]


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
    assert client.get(f"/archive/api/list/{DEV}/emails/?{query}").content == \
        client.get(f"/archive/api/list/{DEV}/emails/").content


def test_envelope_links_keep_other_parameters_sorted_by_name(client, archive):
    body = client.get(f"/archive/api/list/{DEV}/emails/?offset=3&zeta=1&limit=3&format=json&alpha=x").json()
    base = api(f"list/{DEV}/emails/")
    assert body["next"] == f"{base}?alpha=x&format=json&limit=3&offset=6&zeta=1"
    assert body["previous"] == f"{base}?alpha=x&format=json&limit=3&zeta=1"
    assert body["results"][0]["url"].endswith("?format=json")


def test_offset_past_the_end(client, archive):
    body = client.get(f"/archive/api/list/{DEV}/emails/?offset=1000&limit=5").json()
    assert body == {"count": 8, "next": None, "previous": api(f"list/{DEV}/emails/?limit=5&offset=995"),
                    "results": []}


def test_first_page_has_no_previous_and_last_page_no_next(client, archive):
    first = client.get(f"/archive/api/list/{DEV}/emails/?limit=5").json()
    assert first["previous"] is None and first["next"] == api(f"list/{DEV}/emails/?limit=5&offset=5")
    last = client.get(first["next"]).json()
    assert last["next"] is None and len(last["results"]) == 3


def test_unknown_thread_and_sender_paginate_as_empty(client, archive):
    for path in [f"list/{DEV}/thread/{'B' * 32}/emails/", "sender/nobody@example.org/emails/"]:
        assert client.get(f"/archive/api/{path}?limit=2").json() == {
            "count": 0, "next": None, "previous": None, "results": []}


def test_detail_endpoints_ignore_limit(client, archive):
    assert client.get(f"/archive/api/list/{DEV}/?limit=1").content == client.get(f"/archive/api/list/{DEV}/").content
