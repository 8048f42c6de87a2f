"""What a search request finds on the hand-built archive of api_fixtures (SQLite and PostgreSQL):
the list `mlist` names, checked as every door checks one (unknown 404, private 403), and the
page found within it. The expected emails are read off the fixtures (which subjects say what)."""

from __future__ import annotations

import pytest

from sathub.archive.edge import ArchiveError
from sathub.archive.search.request import read_request
from sathub.archive.search.results import find
from sathub.config import Settings
from sathub.db import connect
from tests.archive.api_fixtures import MAIL, seed_archive


def found(engine, **params: str):
    with connect(engine) as conn:
        page, mailing_list = find(conn, read_request({"q": "welcome", **params}), Settings.search_count_limit)
    return {row.message_id_hash for row in page.rows}, page.count, mailing_list


def test_a_search_of_every_public_list_or_of_one(engine):
    seed_archive(engine)
    everywhere, count, mailing_list = found(engine)
    # A–D on dev@ and X, A cross-posted to other@: the same message, the same hash.
    assert (everywhere, count, mailing_list) == ({MAIL[key].hash for key in "ABCD"}, 5, None)
    within, count, mailing_list = found(engine, mlist="dev@example.org", limit="2")
    assert count == 4 and len(within) == 2 and within <= {MAIL[key].hash for key in "ABCD"}
    assert mailing_list.name == "dev@example.org"


@pytest.mark.parametrize(("mlist", "status"), [("private@example.org", 403), ("nobody@example.org", 404)])
def test_a_list_that_cannot_be_searched(engine, mlist, status):
    seed_archive(engine)
    with pytest.raises(ArchiveError) as refused:
        found(engine, mlist=mlist)
    assert refused.value.status == status
