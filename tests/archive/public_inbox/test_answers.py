"""The headers of `raw` and `t.mbox.gz` as public-inbox 1.9 writes them (PublicInbox::Mbox mbox_hdr,
Hval to_filename): the answers it gave are in observed/ and test_door.py; these are its rules'
edges, read from its source."""

from __future__ import annotations

import pytest

from sathub.archive.public_inbox.answers import file_name, raw_charset


@pytest.mark.parametrize(
    ("source", "charset"),
    [
        (b"Subject: x\n\nbody\n", "us-ascii"),  # no Content-Type: text/plain; charset=us-ascii
        (b"Content-Type: text/plain; charset=ISO-8859-1\n\nbody\n", "ISO-8859-1"),  # as written
        (b'Content-Type: text/plain; charset="utf-8"\n\nbody\n', "utf-8"),
        (b"Content-Type: text/plain\n\nbody\n", "UTF-8"),  # a Content-Type without one
        (b"Content-Type: text/plain; charset=a\\x0d\n\nbody\n", "UTF-8"),  # no header injection
    ],
)
def test_raw_charset(source, charset):
    assert raw_charset(source) == charset


@pytest.mark.parametrize(
    ("subject", "name"),
    [
        ("[Fedora-packaging] RPM macros", "Fedora-packaging-RPM-macros"),  # observed
        ("..a...b--", "a.b"),
        ("", "no-subject"),
        ("???", "no-subject"),
        ("first\nsecond", "first"),
    ],
)
def test_file_name(subject, name):
    assert file_name(subject) == name
