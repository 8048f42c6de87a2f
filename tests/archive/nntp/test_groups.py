"""Newsgroup names and numbers (archive/nntp/groups.py)."""

import pytest

from sathub.archive.nntp.groups import Group, group_name, numbers


@pytest.mark.parametrize(
    "address, name",
    [
        # lore's: the domain reversed, then the list's local part (the example)
        ("python-committers@python.org", "org.python.python-committers"),
        ("gpsd-dev@lists.nongnu.org", "org.nongnu.lists.gpsd-dev"),
        ("Dev@Example.ORG", "org.example.dev"),
    ],
)
def test_group_names_are_lores(address, name):
    assert group_name(address) == name


def test_numbers_of_a_group():
    assert numbers(3, 2, 7) == (2, 7)  # the high water mark is the last number given
    # RFC 3977 6.1.1.2: an empty group's high is one below its low; its low is the next number
    assert numbers(0, None, 0) == (1, 0)
    assert numbers(0, None, 12) == (13, 12)


def test_group_lines():
    group = Group("org.example.dev", 1, 3, 2, 7, "Development")
    assert group.active_line() == "org.example.dev 7 2 n"
    assert group.group_reply() == "211 3 2 7 org.example.dev"
