"""A list's owners and moderators read from Mailman's REST API (the stub of tests/archive/rest_stub.py)."""

from __future__ import annotations

import pytest

from sathub.archive.mailman.list_settings import MailmanUnavailable
from sathub.archive.mailman.rosters import list_staff
from sathub.config import Settings
from tests.archive.rest_stub import PASSWORD, USER, MailmanRest


@pytest.fixture
def rest():
    with MailmanRest() as server:
        yield server


def rest_settings(rest: MailmanRest, password: str = PASSWORD) -> Settings:
    return Settings(mailman_rest_url=rest.url, mailman_rest_user=USER, mailman_rest_password=password)


def test_owners_and_moderators_in_lower_case(rest):
    rest.add("dev@example.org")
    rest.rosters[("dev@example.org", "owner")] = ["Olga@Example.org"]
    rest.rosters[("dev@example.org", "moderator")] = ["mod@example.org"]
    rest.rosters[("dev@example.org", "member")] = ["member@example.org"]
    assert list_staff(rest_settings(rest), "Dev@example.org") == {"olga@example.org", "mod@example.org"}


def test_a_list_without_staff_or_unknown_to_mailman_has_none(rest):
    rest.add("dev@example.org")
    assert list_staff(rest_settings(rest), "dev@example.org") == frozenset()
    assert list_staff(rest_settings(rest), "nope@example.org") == frozenset()


def test_a_mailman_that_refuses_or_does_not_answer_is_unavailable(rest):
    rest.add("dev@example.org")
    with pytest.raises(MailmanUnavailable):
        list_staff(rest_settings(rest, password="wrong"), "dev@example.org")
    with pytest.raises(MailmanUnavailable):
        list_staff(Settings(mailman_rest_url="http://127.0.0.1:1"), "dev@example.org")
