"""A message's source as the archive keeps it (sathub.archive.mail.kept_source): compressed when it
arrives, given back byte for byte, or rebuilt when none was kept; a message that cannot be parsed
is a reason, never an exception that would stop an import."""

from __future__ import annotations

import zlib
from datetime import datetime
from types import SimpleNamespace

import pytest

from sathub.archive.mail import kept_source
from sathub.archive.mail.kept_source import ZLIB, compress, decompress, parsed_with_source, source_of

NOW = datetime(2024, 5, 1, 12, 0, 0)
SOURCE = (
    b"From: Ann <ann@example.com>\n"
    b"Subject: hello\n"
    b"Message-ID: <hello@example.org>\n"
    b"Date: Mon, 06 Jan 2020 10:00:00 +0000\n"
    b"\n"
    b"Body \xc3\xa9\n"
)


def test_a_source_is_zlib_at_level_6_and_comes_back_byte_for_byte():
    assert compress(SOURCE) == zlib.compress(SOURCE, 6)  # docs/archive-export.md, "Raw sources"
    assert decompress(ZLIB, compress(SOURCE)) == SOURCE


def test_a_codec_it_does_not_know_is_an_error_not_garbage():
    with pytest.raises(ValueError, match="unknown compression 'zstd'"):
        decompress("zstd", compress(SOURCE))


def test_a_parsed_message_carries_its_compressed_source_its_size_and_from_line():
    email = parsed_with_source(SOURCE, "From ann@example.com Mon Jan  6 10:00:00 2020", NOW)
    assert not isinstance(email, str)
    assert (email.message_id, email.subject) == ("hello@example.org", "hello")
    assert zlib.decompress(email.source) == SOURCE and email.source_size == len(SOURCE)
    assert email.envelope == "From ann@example.com Mon Jan  6 10:00:00 2020"


def test_a_message_that_cannot_be_parsed_is_a_reason(monkeypatch):
    def broken(*_args):
        raise LookupError("no such codec")

    monkeypatch.setattr(kept_source, "parse_email", broken)
    assert parsed_with_source(SOURCE, None, NOW) == "cannot be decoded (LookupError)"


def test_the_source_of_a_row_is_the_kept_one_else_a_rebuilt_one():
    kept = SimpleNamespace(compression=ZLIB, data=memoryview(compress(SOURCE)))  # as a driver may give bytes
    assert source_of(kept, []) == SOURCE
    lost = SimpleNamespace(
        data=None,
        sender_address="ann@example.com",
        sender_name="Ann",
        subject="hello",
        content="Body é\n",
        date=datetime(2020, 1, 6, 10, 0, 0),
        message_id="hello@example.org",
        in_reply_to=None,
    )
    rebuilt = source_of(lost, [])
    assert rebuilt.startswith(b"From: Ann <ann@example.com>\nSubject: hello\n")
    assert b"Message-ID: <hello@example.org>\n" in rebuilt and rebuilt.endswith(b"Body \xc3\xa9\n")
