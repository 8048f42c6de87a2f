"""A source as public-inbox gives it out, against public-inbox-httpd 1.9's own answers (observed/)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from sathub.archive.public_inbox.mboxrd import FROM_LINE, gzip_mbox, one_message, split

OBSERVED = Path(__file__).parent / "observed"
NAMES = [
    "crlf@example.org",  # CRLF line ends, Status and Lines dropped, From quoted in the body
    "dropped@example.org",  # Content-Length, X-Status, Approved (folded), Bytes dropped; >>From quoted
    "nobody@example.org",  # a header without a body
    "python-committers-from-quoted",  # corpus: a `From ` line in the body
    "edge-delivered-to",  # corpus: Delivered-To, which public-inbox's import drops
]


@pytest.mark.parametrize("name", NAMES)
def test_one_message_is_public_inbox_raw(name):
    source = (OBSERVED / f"{name}.eml").read_bytes()
    assert one_message(source) == (OBSERVED / f"{name}.raw").read_bytes()


def test_split_keeps_the_line_end_of_the_message():
    assert split(b"A: 1\r\n\r\nbody\r\n") == (b"A: 1\r\n", b"\r\n", b"body\r\n")
    assert split(b"A: 1\n\nbody\n") == (b"A: 1\n", b"\n", b"body\n")
    assert split(b"A: 1\n") == (b"A: 1\n", b"\n", None)
    assert split(b"no header at all") == (b"", b"\n", b"no header at all")


def test_a_header_is_never_quoted_and_an_mbox_from_line_goes():
    source = b"From ann@example.org Mon Jan  1 10:00:00 2001\nSubject: x\nX-From: From y\n\nFrom z\n"
    assert one_message(source) == FROM_LINE + b"\nSubject: x\nX-From: From y\n\n>From z\n\n"


def test_gzip_mbox_is_one_gzip_of_every_chunk():
    first, second = (OBSERVED / "crlf@example.org.eml").read_bytes(), (OBSERVED / "nobody@example.org.eml").read_bytes()
    pieces = list(gzip_mbox([[first], [second]]))
    assert len(pieces) == 3  # one flushed piece per chunk, then the end
    assert gzip.decompress(b"".join(pieces)) == one_message(first) + one_message(second)
