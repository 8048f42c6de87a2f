"""RFC 3977's ranges (archive/nntp/ranges.py): `n`, `n-`, `n-m`; anything else is a 501."""

import pytest

from sathub.archive.nntp.ranges import parse_range
from sathub.db.dialect import MAX_INTEGER


@pytest.mark.parametrize(
    "text, expected",
    [
        ("5", (5, 5)),
        ("5-", (5, MAX_INTEGER)),
        ("5-9", (5, 9)),
        ("9-5", (9, 5)),  # valid, and empty
        ("0-0", (0, 0)),
        ("99999999999-", (MAX_INTEGER, MAX_INTEGER)),
    ],
)
def test_ranges(text, expected):
    assert parse_range(text) == expected


@pytest.mark.parametrize("text", ["", "-", "-5", "a", "5-a", "1-2-3", " 5", "5 ", "+5", "1,2"])
def test_what_is_no_range(text):
    assert parse_range(text) is None
