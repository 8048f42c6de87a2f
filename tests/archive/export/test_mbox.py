"""The mbox of an export (sathub.archive.export.mbox), without a database: mboxrd quoting, the
`From ` line, one gzip piece per chunk. Expected bytes are written out from the mboxrd rules
(quote every line that starts with `>*From ` by one more `>`; a blank line after each message)."""

from __future__ import annotations

import zlib
from datetime import datetime
from types import SimpleNamespace

from isal import isal_zlib

from sathub.archive.export.mbox import asctime, gzip_stream, separator

ARCHIVED = datetime(2020, 1, 6, 10, 0, 0)


def kept(source: bytes, envelope: str | None = None, email_id: int = 1):
    """A row whose source was kept (as store/email_sources.py reads it)."""
    return SimpleNamespace(
        id=email_id,
        envelope=envelope,
        sender_address="ann@example.com",
        archived_date=ARCHIVED,
        compression="zlib",
        size=len(source),
        data=zlib.compress(source),
    )


def mbox(chunks, codec=isal_zlib) -> tuple[bytes, int]:
    pieces = list(gzip_stream(chunks, codec=codec))
    return zlib.decompress(b"".join(pieces), 16 + zlib.MAX_WBITS), len(pieces)


def test_asctime_is_cs_with_a_space_padded_day():
    assert asctime(ARCHIVED) == "Mon Jan  6 10:00:00 2020"
    assert asctime(datetime(2021, 12, 31, 23, 59, 58)) == "Fri Dec 31 23:59:58 2021"


def test_the_from_line_is_the_kept_envelope_else_one_made_of_sender_and_date():
    assert separator(kept(b"", envelope="From x@y Tue Jan  7 11:00:00 2020")) == b"From x@y Tue Jan  7 11:00:00 2020\n"
    assert separator(kept(b"")) == b"From ann@example.com Mon Jan  6 10:00:00 2020\n"
    odd = SimpleNamespace(envelope=None, sender_address="a b@\tc", archived_date=ARCHIVED)
    assert separator(odd) == b"From ab@c Mon Jan  6 10:00:00 2020\n"  # no space may split the line
    nobody = SimpleNamespace(envelope=None, sender_address=" ", archived_date=ARCHIVED)
    assert separator(nobody) == b"From MAILER-DAEMON Mon Jan  6 10:00:00 2020\n"


def test_mboxrd_quotes_every_from_line_of_the_body_by_one_more_angle():
    source = b"Subject: s\n\nFrom here\n>From there\n>>From afar\nFromage\n From not\n"
    quoted = b"Subject: s\n\n>From here\n>>From there\n>>>From afar\nFromage\n From not\n"
    assert mbox([([kept(source)], {})])[0] == b"From ann@example.com Mon Jan  6 10:00:00 2020\n" + quoted + b"\n"


def test_a_source_without_a_line_end_gets_one_before_the_blank_line():
    assert mbox([([kept(b"Subject: s\n\nno end")], {})])[0].endswith(b"\n\nno end\n\n")


def test_one_flushed_piece_per_chunk_and_the_same_mbox_with_zlib():
    chunks = [([kept(b"Subject: one\n\n1\n", email_id=1)], {}), ([kept(b"Subject: two\n\n2\n", email_id=2)], {})]
    text, pieces = mbox(chunks)
    assert pieces == 3  # two chunks, then the gzip trailer
    assert text.count(b"From ann@example.com ") == 2 and text.index(b"one") < text.index(b"two")
    assert mbox(chunks, codec=zlib)[0] == text


def test_mail_without_a_kept_source_is_rebuilt_with_its_attachments():
    row = SimpleNamespace(
        id=7,
        envelope=None,
        sender_address="ann@example.com",
        sender_name="Ann",
        subject="old",
        content="Body\n",
        date=ARCHIVED,
        archived_date=ARCHIVED,
        message_id="old@example.org",
        in_reply_to=None,
        data=None,
    )
    attachment = SimpleNamespace(name="a.txt", content_type="text/plain", encoding=None, content=b"attached")
    text = mbox([([row], {7: [attachment]})])[0]
    assert text.startswith(b"From ann@example.com Mon Jan  6 10:00:00 2020\nFrom: Ann <ann@example.com>\n")
    assert b"Message-ID: <old@example.org>\n" in text and b'filename="a.txt"' in text


def test_asctime_writes_four_digits_of_year_so_a_reimport_reads_the_same_year():
    """C's asctime writes the year with %4d; a year written `1` would be read back as 2001."""
    assert asctime(datetime(1, 1, 1, 0, 0, 0)) == "Mon Jan  1 00:00:00 0001"
