"""A list's posting address (sathub.archive.mail.list_address): what Mailman accepts when it creates a
list, within the length mailing_lists.name holds."""

import pytest

from sathub.archive.mail.list_address import MAX_LENGTH, list_address_fault
from sathub.archive.tables import mailing_lists

# 312 characters, issue 23's example of a name PostgreSQL's column refused (500 on every retry).
LONG = "l" * 300 + "@example.org"


def test_the_bound_is_the_length_of_the_column():
    assert MAX_LENGTH == mailing_lists.c.name.type.length == 254


@pytest.mark.parametrize(
    "address",
    [
        "dev@example.org",
        "Dev@Example.ORG",  # the door lowercases it
        "gpsd-dev@lists.berlios.de",
        "evs-private@lists.example.org",
        "a_b.c-d@x-y.example",
        "x+tag=1!$*{}~@example.org",  # every character of Mailman's widest list-name set
        "3gpp_tsg_ct@list.etsi.org",
        "a@b.c",
        "l" * (MAX_LENGTH - len("@example.org")) + "@example.org",  # exactly the column's length
    ],
)
def test_addresses_mailman_can_create(address):
    assert list_address_fault(address) is None


@pytest.mark.parametrize(
    "address, why",
    [
        # issue 23's examples
        ("a b@c.org", "list name"),
        ("a@b\r\nx: y", "domain"),
        ("..@..", "domain"),
        (LONG, "312 characters"),
        # one @, with a list name and a domain
        ("no-at-sign", "one @"),
        ("a@b@example.org", "one @"),
        ("@example.org", "list name"),
        ("dev@", "domain"),
        # list names: no whitespace, control characters, quotes, slashes or other punctuation
        ("de\tv@example.org", "list name"),
        ("dev\x00@example.org", "list name"),
        ("de\x7fv@example.org", "list name"),
        ('"dev"@example.org', "list name"),
        ("dev's@example.org", "list name"),
        ("dev/x@example.org", "list name"),
        ("dev#1@example.org", "list name"),
        ("dév@example.org", "list name"),
        ("dev\n@example.org", "list name"),
        # domains: two or more labels of letters, digits and hyphens, none empty or starting with one
        ("dev@localhost", "domain"),
        ("dev@.example.org", "domain"),
        ("dev@example.org.", "domain"),
        ("dev@example..org", "domain"),
        ("dev@-example.org", "domain"),
        ("dev@exa_mple.org", "domain"),
        ("dev@exa mple.org", "domain"),
        ("dev@example.org\n", "domain"),
        ("dev@bücher.de", "domain"),
        ("dev@[127.0.0.1]", "domain"),
    ],
)
def test_addresses_refused_with_the_reason(address, why):
    fault = list_address_fault(address)
    assert fault is not None and why in fault, fault
