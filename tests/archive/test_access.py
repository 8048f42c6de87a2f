"""The one check of who may read a list (sathub.archive.access), on the hand-built archive of
api_fixtures: a public list is answered, a private one is 403 and an unknown or malformed address
404, in the API's words or the HTML doors'; a malformed address costs no statement."""

from __future__ import annotations

import pytest

from sathub.archive.access import readable, visible_list, visible_list_page
from sathub.archive.edge import ArchiveError
from tests.archive.api_fixtures import count_statements


def refusal(call) -> tuple[int, str]:
    with pytest.raises(ArchiveError) as raised:
        call()
    return raised.value.status, raised.value.detail


def test_a_public_list_is_answered_whatever_the_case_of_its_address(engine, archive):
    with engine.connect() as conn:
        assert visible_list(conn, "Dev@Example.org").name == "dev@example.org"
        assert visible_list_page(conn, "other@example.org").name == "other@example.org"
        # `never` keeps new mail out of the archive; what is there stays readable.
        assert visible_list(conn, "quiet@example.org").archive_policy == "never"


def test_a_private_list_is_403_through_every_door(engine, archive):
    with engine.connect() as conn:
        assert refusal(lambda: visible_list(conn, "private@example.org")) == (
            403,
            "You do not have permission to perform this action.",
        )
        assert refusal(lambda: visible_list_page(conn, "private@example.org")) == (
            403,
            "The archive of private@example.org is private.",
        )
        assert refusal(lambda: visible_list(conn, "private@example.org", private="No: {name}.")) == (
            403,
            "No: private@example.org.",
        )


@pytest.mark.parametrize("address", ["nobody@example.org", "no-at-sign", "a@b@c", "@example.org", "x\x00@y"])
def test_an_unknown_or_malformed_address_is_404(engine, archive, address):
    with engine.connect() as conn:
        assert refusal(lambda: visible_list(conn, address)) == (404, "Not found.")
        assert refusal(lambda: visible_list_page(conn, address)) == (
            404,
            f"There is no list {address} in this archive.",
        )


def test_a_malformed_address_never_reaches_the_database(engine, archive):
    statements, detach = count_statements(engine)
    try:
        with engine.connect() as conn:
            for address in ("no-at-sign", "a@b@c", "x\x00@y"):
                refusal(lambda address=address: visible_list(conn, address))
    finally:
        detach()
    assert statements == []


def test_readable_judges_a_row_already_found():
    class Row:
        name, archive_policy, hidden_by = "ops@example.org", "private", None

    assert refusal(lambda: readable(None, unknown="None here.")) == (404, "None here.")
    assert refusal(lambda: readable(Row(), private="{name} is closed.")) == (403, "ops@example.org is closed.")
    Row.archive_policy = "public"
    row = Row()
    assert readable(row) is row
    Row.hidden_by = 7  # hidden whole (archive/removal/): as if there were no such list
    assert refusal(lambda: readable(Row(), unknown="None here.")) == (404, "None here.")
