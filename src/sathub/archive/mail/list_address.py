"""A mailing list's posting address, as Mailman 3 accepts one when it creates a list: the rule a list
name must pass before sathub creates a list under it (Mailman's archiver calls, `archive import`).

Mailman (`mailman.app.lifecycle.create_list`, `mailman.email.validate.Validator`) takes a list name of
the characters `[-_.+=!$*{}~0-9a-z]` in any case (its `listname_chars` setting may only narrow that set;
the default is `[-_.0-9a-z]`) and a domain of two or more dot-separated labels of letters, digits and
hyphens, none empty or starting with a hyphen. Every list Mailman can have passes, so a real list is
never refused; nothing else does: no whitespace, control character, quote, slash or second `@`."""

from __future__ import annotations

import re

# mailing_lists.name is a String(254) (tables.py; tests/archive/mail/test_list_address.py keeps them
# equal). Every allowed character is ASCII, so the lowercased address has the same length.
MAX_LENGTH = 254
_LIST_NAME = re.compile(r"[-_.+=!$*{}~0-9a-z]+", re.ASCII | re.IGNORECASE)
_DOMAIN_LABEL = re.compile(r"[0-9a-z][-0-9a-z]*", re.ASCII | re.IGNORECASE)


def list_address_fault(address: str) -> str | None:
    """Why `address` cannot be a list's posting address (a phrase to put after "because"), or None
    when it can. The check is on the address as given; lowercasing it changes nothing here."""
    if len(address) > MAX_LENGTH:
        return f"it is {len(address)} characters long, more than the {MAX_LENGTH} a list address may have"
    name, at, domain = address.partition("@")
    if not at or "@" in domain:
        return "it must have exactly one @"
    if not _LIST_NAME.fullmatch(name):
        return "a list name is made of letters, digits and - _ . + = ! $ * { } ~"
    labels = domain.split(".")
    if len(labels) < 2 or not all(_DOMAIN_LABEL.fullmatch(label) for label in labels):
        return (
            "the domain must be two or more dot-separated labels of letters, digits and hyphens, "
            "none empty or starting with a hyphen"
        )
    return None
